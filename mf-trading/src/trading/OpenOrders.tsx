import { useState } from 'react';
import { supabase, toast } from '@repex/shared-ui/platform';
import {
  Button,
  Card,
  CardTitle,
  Muted,
  Table,
  TableScroll,
  formatInteger,
  formatPrice,
  SideBadge,
} from '@repex/shared-ui/ui';

export interface OpenOrder {
  id: number;
  side: 'buy' | 'sell';
  price: number;
  amount: number;
  filled: number;
}

/** The user's resting orders on this token, each with Cancel. */
export function OpenOrders({ orders, onChanged }: { orders: OpenOrder[]; onChanged: () => void }) {
  const [cancelling, setCancelling] = useState<number | null>(null);
  const cancel = async (id: number) => {
    setCancelling(id);
    const { error } = await supabase().rpc('cancel_order', { p_order: id });
    setCancelling(null);
    if (error) toast({ title: 'Cancel Failed', description: error.message, variant: 'destructive' });
    else toast({ title: 'Order Cancelled', description: `Order #${id} was cancelled and its funds released.` });
    onChanged();
  };
  return (
    <Card aria-label="Your Open Orders">
      <CardTitle>Your Open Orders</CardTitle>
      {orders.length === 0 ? (
        <Muted>You have no open orders on this token.</Muted>
      ) : (
        <TableScroll>
          <Table>
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
                  <td className="num">{formatPrice(o.price)}</td>
                  <td className="num">
                    {formatInteger(o.amount - o.filled)}
                    {o.filled > 0 && <Muted> of {formatInteger(o.amount)}</Muted>}
                  </td>
                  <td>
                    <Button $size="sm" $variant="outline" disabled={cancelling === o.id} onClick={() => cancel(o.id)}>
                      Cancel
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        </TableScroll>
      )}
    </Card>
  );
}
