import { useQuery } from '@repex/shared-ui/platform';
import { Muted, formatCount, formatInteger, formatMoney, formatNumber } from '@repex/shared-ui/ui';
import { loadReputationComponents } from './data';

/** The database's reputation formula, part by part, for this token (fetched when first asked for). */
export default function ReputationBreakdown({ tokenId }: { tokenId: string }) {
  const q = useQuery(() => loadReputationComponents(tokenId), [tokenId]);
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
                <strong>Score now</strong>
              </td>
              <td />
              <td>
                <strong>{c.score.toFixed(1)} / 100</strong>
              </td>
            </tr>
          </tbody>
        </table>
      )}
    </>
  );
}
