import type { ReactNode } from 'react';
import { useAccountFeed, useQuery, useSoon } from '@repex/shared-ui/platform';
import { DataTable, Muted, formatInteger, DateTime } from '@repex/shared-ui/ui';
import { Bar } from './Bar';
import { OrderCells } from './OrderCells';
import { loadOrderHistory, orderOutcome } from './orders';

/**
 * The caller's last 50 orders that are no longer open: filled, cancelled (by them, by Cancel All,
 * by self-trade prevention, by a suspension) or partly filled with the rest cancelled, so an order
 * that left the book is never just gone.
 */
export function OrderHistory({ toggle }: { toggle: ReactNode }) {
  const orders = useQuery(loadOrderHistory, []);
  useAccountFeed(useSoon(orders.reload, 500, 200), orders.reload);
  return (
    <>
      <Bar>{toggle}</Bar>
      <DataTable
        label="Order History"
        head={
          <>
            <th>Person</th>
            <th>Side</th>
            <th className="num">Price</th>
            <th className="num">Filled</th>
            <th>Outcome</th>
            <th>Placed</th>
          </>
        }
        rows={orders.data}
        error={orders.error}
        errorTitle="Your order history could not be loaded."
        onRetry={orders.reload}
        skeleton={[2, 6]}
        empty="No past orders yet. Orders that fill or are cancelled are kept here."
      >
        {(o) => (
          <tr key={o.id} data-testid="order-history-row">
            <OrderCells order={o} />
            <td className="num" data-label="Filled">
              {formatInteger(o.filled)} <Muted>of {formatInteger(o.amount)}</Muted>
            </td>
            <td data-label="Outcome">{orderOutcome(o)}</td>
            <td data-label="Placed">
              <DateTime iso={o.created_at} />
            </td>
          </tr>
        )}
      </DataTable>
    </>
  );
}
