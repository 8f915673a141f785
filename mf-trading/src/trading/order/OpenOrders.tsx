import { useState } from 'react';
import styled from 'styled-components';
import { cancelOrder, replaceOrder, toast } from '@repex/shared-ui/platform';
import type { OpenOrder } from '../data';
import {
  Button,
  Card,
  CardTitle,
  Muted,
  CardRowsTable,
  formatInteger,
  SideBadge,
  EditOrderDialog,
  OrderPrice,
} from '@repex/shared-ui/ui';

// The side column is narrow at every width: each order is a card, its buttons on a line of their own.
const Actions = styled.div`
  display: flex;
  gap: 4px;
  justify-content: flex-end;
`;

/** The user's resting orders and waiting stops on this token, each with Edit (not a pair's) and Cancel. */
export function OpenOrders({ orders, tokenName }: { orders: OpenOrder[]; tokenName: string }) {
  const [cancelling, setCancelling] = useState<number | null>(null);
  const [editing, setEditing] = useState<OpenOrder | null>(null);
  const cancel = async (id: number) => {
    setCancelling(id);
    // The cancel's market event has the list read again.
    await cancelOrder(id);
    setCancelling(null);
  };
  return (
    <Card aria-label="Your Open Orders">
      <CardTitle>Your Open Orders</CardTitle>
      {orders.length === 0 ? (
        <Muted>You have no open orders on this token.</Muted>
      ) : (
        <CardRowsTable>
          <thead>
            <tr>
              <th>Side</th>
              <th className="num">Price</th>
              <th className="num">Open</th>
              <th aria-label="Action" />
            </tr>
          </thead>
          <tbody>
            {orders.map((o) => (
              <tr key={o.id} data-testid="open-order">
                <td>
                  <SideBadge side={o.side} />
                </td>
                <td className="num" data-label="Price">
                  <OrderPrice order={o} />
                </td>
                <td className="num" data-label="Open">
                  {formatInteger(o.amount - o.filled)}
                  {o.filled > 0 && <Muted> of {formatInteger(o.amount)}</Muted>}
                </td>
                <td className="full">
                  <Actions>
                    {o.oco_with === null && (
                      <Button $size="sm" $variant="ghost" onClick={() => setEditing(o)}>
                        Edit
                      </Button>
                    )}
                    <Button $size="sm" $variant="outline" disabled={cancelling === o.id} onClick={() => cancel(o.id)}>
                      Cancel
                    </Button>
                  </Actions>
                </td>
              </tr>
            ))}
          </tbody>
        </CardRowsTable>
      )}
      {editing && (
        <EditOrderDialog
          order={editing}
          tokenName={tokenName}
          replace={replaceOrder}
          tell={toast}
          onClose={() => setEditing(null)}
        />
      )}
    </Card>
  );
}
