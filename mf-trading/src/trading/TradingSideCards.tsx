import { Card, CardTitle, Muted, formatDate, formatInteger, formatTime } from '@repex/shared-ui/ui';
import type { TradedToken, Vesting } from './data';
import { Info } from './Trading.styles';

/** In place of the order form while the exchange has halted the token: why, since when, what still works. */
export function HaltedCard({ reason, since }: { reason: string; since: string }) {
  return (
    <Card aria-label="Trading halted" data-testid="trading-halted">
      <CardTitle>Trading Halted</CardTitle>
      <p style={{ margin: '0 0 8px' }}>{reason}</p>
      <Muted>
        Since {formatDate(since)}, {formatTime(since)}. New orders are refused until the exchange resumes trading; your
        open orders stay on the book, and you can cancel them.
      </Muted>
    </Card>
  );
}

/**
 * The token's supply and holders, how many of its tokens the user can sell, and its founder's
 * vesting: what of their allocation they may sell yet, and when the rest is released.
 */
export function TokenInfo({
  token: t,
  held,
  vesting: v,
}: {
  token: TradedToken | undefined;
  held: number | undefined;
  vesting?: Vesting | null;
}) {
  return (
    <Card aria-label="Token Info">
      <CardTitle>Token Info</CardTitle>
      <Info>
        <dt>Total Supply</dt>
        <dd>{t ? formatInteger(t.total_supply) : '—'}</dd>
        <dt>Available</dt>
        <dd>{t ? formatInteger(t.available_supply) : '—'}</dd>
        <dt>Holders</dt>
        <dd>{t ? formatInteger(t.holders) : '—'}</dd>
        <dt>Your Balance</dt>
        <dd data-testid="your-balance">{held === undefined ? '—' : `${formatInteger(held)} tokens`}</dd>
        {v && (
          <>
            <dt>Founder Vesting</dt>
            <dd data-testid="founder-vesting">
              {formatInteger(v.vested)} of {formatInteger(v.total)} released
            </dd>
            {/* Nothing vested yet: the cliff is ahead. */}
            <dt>{v.vested === 0 ? 'Cliff' : 'Fully Vested'}</dt>
            <dd>{formatDate(v.vested === 0 ? v.cliff_at : v.ends_at)}</dd>
          </>
        )}
      </Info>
    </Card>
  );
}
