import { OrderPrice, PersonCell, SideBadge } from '@repex/shared-ui/ui';
import type { MarketToken } from '@repex/shared-ui/contracts';
import type { MyOrder } from './orders';

/** The cells every row of the orders tab begins with: whose token, the side, the price. */
export function OrderCells({ order }: { order: MyOrder & { token: MarketToken } }) {
  return (
    <>
      <td className="full">
        <PersonCell person={order.token} withCategory={false} />
      </td>
      <td>
        <SideBadge side={order.side} />
      </td>
      <td className="num" data-label="Price">
        <OrderPrice order={order} />
      </td>
    </>
  );
}
