import { useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import {
  cancelAllOrders,
  cancelOrder,
  replaceOrder,
  toast,
  useAccountFeed,
  useQuery,
  useSoon,
} from '@repex/shared-ui/platform';
import { Bar } from './Bar';
import { OrderCells } from './OrderCells';
import { loadOpenOrders, openCount, type MyOrder } from './orders';
import type { MarketToken } from '@repex/shared-ui/contracts';
import {
  Button,
  DataTable,
  Dialog,
  DialogActions,
  Muted,
  formatCount,
  formatInteger,
  DateTime,
  EditOrderDialog,
} from '@repex/shared-ui/ui';

const plural = (n: number) => formatCount(n, 'order');

/** Every resting order, each with Edit and Cancel, and Cancel All. */
export function OpenOrders({ toggle }: { toggle: ReactNode }) {
  const orders = useQuery(loadOpenOrders, []);
  // Fills and cancels elsewhere (another tab, a taker) change the list.
  useAccountFeed(useSoon(orders.reload, 500, 200), orders.reload);
  const [busy, setBusy] = useState<number | 'all' | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [editing, setEditing] = useState<(MyOrder & { token: MarketToken }) | null>(null);
  const count = orders.data?.length ?? 0;

  const cancel = async (id: number) => {
    setBusy(id);
    await cancelOrder(id);
    setBusy(null);
    orders.reload();
  };
  const cancelAll = async () => {
    setBusy('all');
    await cancelAllOrders();
    setBusy(null);
    setConfirming(false);
    orders.reload();
  };

  return (
    <>
      <Bar>
        {toggle}
        <Button
          $size="sm"
          $variant="destructive"
          disabled={!count || busy !== null}
          onClick={() => setConfirming(true)}
        >
          Cancel All
        </Button>
      </Bar>
      {count > 0 && <Muted>{openCount(orders.data ?? [])}</Muted>}
      <DataTable
        label="Open Orders"
        head={
          <>
            <th>Person</th>
            <th>Side</th>
            <th className="num">Price</th>
            <th className="num">Open</th>
            <th>Placed</th>
            <th aria-label="Action" />
          </>
        }
        rows={orders.data}
        error={orders.error}
        errorTitle="Your open orders could not be loaded."
        onRetry={orders.reload}
        skeleton={[2, 6]}
        empty="You have no open orders. A limit order that does not fill at once, or a stop, waits here."
      >
        {(o) => (
          <tr key={o.id} data-testid="open-order-row">
            <OrderCells order={o} />
            <td className="num" data-label="Open">
              {formatInteger(o.amount - o.filled)}
              {o.filled > 0 && <Muted> of {formatInteger(o.amount)}</Muted>}
            </td>
            <td data-label="Placed">
              <DateTime iso={o.created_at} />
            </td>
            <td>
              <div style={{ display: 'flex', gap: 6, justifyContent: 'flex-end' }}>
                <Button as={Link} to={`/trading/${o.token_id}`} $size="sm" $variant="ghost">
                  Trade
                </Button>
                {o.oco_with === null && (
                  <Button $size="sm" $variant="ghost" disabled={busy !== null} onClick={() => setEditing(o)}>
                    Edit
                  </Button>
                )}
                <Button $size="sm" $variant="outline" disabled={busy !== null} onClick={() => void cancel(o.id)}>
                  Cancel
                </Button>
              </div>
            </td>
          </tr>
        )}
      </DataTable>
      {editing && (
        <EditOrderDialog
          order={editing}
          tokenName={editing.token.name}
          replace={replaceOrder}
          tell={toast}
          onClose={() => setEditing(null)}
          onChanged={orders.reload}
        />
      )}
      {confirming && (
        <Dialog title="Cancel All Orders" onClose={() => setConfirming(false)}>
          <Muted>Cancel your {plural(count)} on every token? The cash and tokens they hold are released at once.</Muted>
          <DialogActions>
            <Button $variant="outline" onClick={() => setConfirming(false)}>
              Keep Orders
            </Button>
            <Button $variant="destructive" disabled={busy === 'all'} onClick={() => void cancelAll()}>
              {busy === 'all' ? 'Cancelling...' : 'Cancel All Orders'}
            </Button>
          </DialogActions>
        </Dialog>
      )}
    </>
  );
}
