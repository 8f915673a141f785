import styled from 'styled-components';
import type { PositionReturn } from '@repex/shared-ui/contracts';
import { Change, EmptyState, Muted, formatPrice, formatSignedPrice, media } from '@repex/shared-ui/ui';

const Columns = styled.div`
  display: grid;
  grid-template-columns: repeat(2, minmax(0, 1fr));
  gap: 16px;
  ${media.phone} {
    grid-template-columns: minmax(0, 1fr);
  }
  h3 {
    margin: 0 0 8px;
    font-size: 14px;
  }
  ol {
    margin: 0;
    padding: 0;
    list-style: none;
    display: flex;
    flex-direction: column;
    gap: 8px;
    font-size: 14px;
  }
  li {
    display: flex;
    justify-content: space-between;
    gap: 8px;
  }
`;

const Entry = ({ r }: { r: PositionReturn }) => (
  <li>
    <span>
      {r.name}
      <br />
      <Muted>
        {formatPrice(r.value_start)} → {formatPrice(r.value_end)},{' '}
        {r.net_bought >= 0 ? `${formatPrice(r.net_bought)} put in` : `${formatPrice(-r.net_bought)} taken out`}
      </Muted>
    </span>
    <Change $value={r.gain}>{formatSignedPrice(r.gain)}</Change>
  </li>
);

/** The positions that gained and lost the most over the period (now - opening - money put in). */
export function BestWorst({ returns }: { returns: PositionReturn[] }) {
  if (!returns.length) return <EmptyState>No positions over this period.</EmptyState>;
  const best = returns.filter((r) => r.gain > 0).slice(0, 3);
  const worst = returns
    .filter((r) => r.gain < 0)
    .slice(-3)
    .reverse();
  return (
    <Columns>
      <section aria-label="Best positions">
        <h3>Best</h3>
        {best.length ? (
          <ol>
            {best.map((r) => (
              <Entry key={r.token_id} r={r} />
            ))}
          </ol>
        ) : (
          <Muted>No position gained.</Muted>
        )}
      </section>
      <section aria-label="Worst positions">
        <h3>Worst</h3>
        {worst.length ? (
          <ol>
            {worst.map((r) => (
              <Entry key={r.token_id} r={r} />
            ))}
          </ol>
        ) : (
          <Muted>No position lost.</Muted>
        )}
      </section>
    </Columns>
  );
}
