import styled from 'styled-components';
import { useQuery } from '@repex/shared-ui/platform';
import { loadReputationComponents } from './data';
import { Muted, formatCount, formatInteger, formatMoney } from '@repex/shared-ui/ui';

const Box = styled.details`
  font-size: 14px;
  summary {
    cursor: pointer;
    color: ${({ theme }) => theme.colors.muted};
    width: fit-content;
  }
  table {
    margin-top: 8px;
    border-collapse: collapse;
    width: 100%;
    max-width: 560px;
  }
  td {
    padding: 4px 8px 4px 0;
    border-bottom: 1px solid ${({ theme }) => theme.colors.border};
  }
  td:last-child {
    text-align: right;
    font-variant-numeric: tabular-nums;
  }
`;

/** How the reputation score is computed: the database's formula, part by part, for this token. */
export function ReputationInfo({ tokenId }: { tokenId: string }) {
  const q = useQuery(() => loadReputationComponents(tokenId), [tokenId]);
  const c = q.data;
  const rows: [string, string, number | undefined, number][] = c
    ? [
        ['Verified person', c.verified ? 'yes' : 'no', c.verified, 15],
        ['Holders', formatInteger(c.facts.holders), c.holders, 20],
        ['Traded volume, 30 days', formatMoney(c.facts.volume_30d), c.volume, 20],
        [
          'Price stability, 7 days',
          c.facts.price_variation_7d === null
            ? 'too few trades'
            : `${(c.facts.price_variation_7d * 100).toFixed(1)}% variation`,
          c.stability,
          20,
        ],
        ['Time on RepX', formatCount(c.facts.account_age_days, 'day'), c.age, 15],
        ['Open fraud alerts', formatInteger(c.facts.open_alerts), c.alerts, 10],
      ]
    : [];
  return (
    <Box data-testid="reputation-info">
      <summary>How is the reputation score computed?</summary>
      <Muted>
        From what the exchange knows, recomputed hourly; no outside or AI figure. The score shown above is the last
        hourly one.
      </Muted>
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
    </Box>
  );
}
