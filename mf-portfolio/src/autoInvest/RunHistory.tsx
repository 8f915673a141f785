import type { InvestRunRow } from '@repex/shared-ui/contracts';
import { Badge, EmptyState, StackedTable, formatDay, formatPrice, formatTokens } from '@repex/shared-ui/ui';

const STATUS: Record<string, { label: string; variant: 'up' | 'secondary' | 'down' }> = {
  bought: { label: 'Bought', variant: 'up' },
  partial: { label: 'Partly bought', variant: 'secondary' },
  skipped: { label: 'Skipped', variant: 'down' },
};

/**
 * Every run of the user's plans, newest first: one row per token a run bought or tried, with what
 * it bought, at what average price and fee, or why it did not.
 */
export function RunHistory({ runs }: { runs: InvestRunRow[] }) {
  if (!runs.length)
    return <EmptyState>No runs yet. A plan runs on its first date, within seconds of 00:00 UTC.</EmptyState>;
  return (
    <StackedTable aria-label="Auto-Invest runs">
      <thead>
        <tr>
          <th>Date (UTC)</th>
          <th>Plan</th>
          <th>Status</th>
          <th>Bought</th>
          <th className="num">Avg. price</th>
          <th className="num">Fee</th>
          <th className="num">Cost</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((r) => {
          const status = STATUS[r.status] ?? STATUS.skipped!;
          const bought = (r.tokens ?? 0) > 0;
          const why = r.reason ?? r.run_reason;
          return (
            <tr key={`${r.run_id}-${r.token_id ?? ''}`} data-run={r.run_id}>
              <td>{formatDay(r.period)}</td>
              <td>{formatPrice(r.amount)}</td>
              <td>
                <Badge $variant={bought ? 'up' : status.variant}>{bought ? 'Bought' : status.label}</Badge>
              </td>
              {bought ? (
                <>
                  <td data-label="Bought">{formatTokens(r.tokens!, r.token_name ?? undefined)}</td>
                  <td className="num" data-label="Avg. price">
                    {formatPrice(r.average_price!)}
                  </td>
                  <td className="num" data-label="Fee">
                    {formatPrice(r.fee!)}
                  </td>
                  <td className="num" data-label="Cost">
                    {formatPrice(r.value! + r.fee!)}
                  </td>
                </>
              ) : (
                <td colSpan={4} className="full">
                  {/* The engine's words name the token. */}
                  {why}
                </td>
              )}
            </tr>
          );
        })}
      </tbody>
    </StackedTable>
  );
}
