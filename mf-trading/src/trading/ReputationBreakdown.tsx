import { useQuery } from '@repex/shared-ui/platform';
import {
  Muted,
  formatCount,
  formatDate,
  formatInteger,
  formatMoney,
  formatNumber,
  formatTime,
} from '@repex/shared-ui/ui';
import { loadReputationBreakdown } from './data';

/**
 * The score the screen shows, part by part, as the database computed it (fetched when first asked
 * for): the parts add up to the number in the header, and say when they were computed.
 */
export default function ReputationBreakdown({ tokenId }: { tokenId: string }) {
  const q = useQuery(() => loadReputationBreakdown(tokenId), [tokenId]);
  const c = q.data;
  const rows: [string, string, number | undefined, number][] = c
    ? [
        ['Verified person', c.verified ? 'yes' : 'no', c.verified, c.max.verified],
        [
          'Holders',
          `${formatInteger(c.facts.holders)}, ${formatNumber(c.facts.holders_weighted)} by trust`,
          c.holders,
          c.max.holders,
        ],
        [
          'Traded volume, 30 days',
          `${formatMoney(c.facts.volume_30d)}, ${formatMoney(c.facts.volume_30d_weighted)} by trust`,
          c.volume,
          c.max.volume,
        ],
        [
          'Price stability, 7 days',
          c.facts.price_variation_7d === null
            ? 'too few trades'
            : `${(c.facts.price_variation_7d * 100).toFixed(1)}% variation over ${formatCount(c.facts.trades_7d, 'trade')}`,
          c.stability,
          c.max.stability,
        ],
        ['Time on RepX', formatCount(c.facts.account_age_days, 'day'), c.age, c.max.age],
        ['Open fraud alerts', formatInteger(c.facts.open_alerts), c.alerts, c.max.alerts],
        [
          'Social analysis (automated)',
          c.facts.social_score === null ? 'no connected account' : `${formatNumber(c.facts.social_score)} of 100`,
          c.social,
          c.max.social,
        ],
      ]
    : [];
  return (
    <>
      {c && (
        <table>
          <tbody>
            {rows.map(([label, fact, points, max]) => (
              <tr key={label}>
                <td>{label}</td>
                <td>
                  <Muted>{fact}</Muted>
                </td>
                <td>
                  {points?.toFixed(1)} / {max}
                </td>
              </tr>
            ))}
            <tr>
              <td colSpan={3} style={{ textAlign: 'left' }}>
                <Muted>
                  Holders and volume count by the trust of the accounts behind them, so accounts made to trade among
                  themselves add nothing; stability weighs its trades against a neutral prior of 20. The social part is
                  an automated analysis of the person's connected accounts: reach, engagement, authenticity, tone and
                  consistency.
                </Muted>
              </td>
            </tr>
            <tr>
              <td>
                <strong>Score</strong>
              </td>
              <td>
                <Muted data-testid="reputation-scored-at">
                  computed {formatDate(c.scored_at)}, {formatTime(c.scored_at)}
                </Muted>
              </td>
              <td>
                <strong data-testid="reputation-breakdown-score">{c.score.toFixed(1)} / 100</strong>
              </td>
            </tr>
          </tbody>
        </table>
      )}
    </>
  );
}
