import { Muted, Table, formatInteger, formatPrice, formatTime, SideBadge } from '@repex/shared-ui/ui';

import type { TapeTrade } from '../data';

export function RecentTrades({ trades }: { trades: TapeTrade[] }) {
  return (
    <Table aria-label="Recent trades">
      <thead>
        <tr>
          <th>Price</th>
          <th className="num">Amount</th>
          <th>Time</th>
          <th>Type</th>
        </tr>
      </thead>
      <tbody>
        {trades.map((t) => (
          <tr key={t.id} data-testid="recent-trade">
            <td>{formatPrice(t.price)}</td>
            <td className="num">{formatInteger(t.amount)}</td>
            <td>{formatTime(t.created_at)}</td>
            <td>
              <SideBadge side={t.type} />
            </td>
          </tr>
        ))}
        {trades.length === 0 && (
          <tr>
            <td colSpan={4}>
              <Muted>No trades yet.</Muted>
            </td>
          </tr>
        )}
      </tbody>
    </Table>
  );
}
