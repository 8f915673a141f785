import { useNow } from '@repex/shared-ui/platform';
import {
  Badge,
  Card,
  CardTitle,
  Muted,
  formatCountdown,
  formatPrice,
  formatTime,
  formatTokens,
} from '@repex/shared-ui/ui';
import type { VolatilityAuction } from '../data';
import { Lines } from '../order/OrderPanel.styles';
import { Countdown, TitleRow } from '../offering/Offering.styles';

/**
 * Above the order form while the token is in a volatility auction (supabase/schemas/auctions.sql):
 * why continuous trading stopped, until when, and the price and volume the book would uncross at
 * now. Limit orders placed meanwhile join it; the form says why others wait.
 */
export function AuctionCard({ auction: a, tokenName }: { auction: VolatilityAuction; tokenName: string }) {
  const left = Date.parse(a.ends_at) - useNow(1000);
  return (
    <Card aria-label="Volatility Auction" data-testid="volatility-auction">
      <TitleRow>
        <CardTitle>Volatility Auction</CardTitle>
        <Badge $variant="outline">Paused</Badge>
      </TitleRow>
      <Countdown data-testid="auction-countdown" aria-live="off">
        {left > 0 ? `Ends in ${formatCountdown(left)}` : 'Ending: finding the price'}
      </Countdown>
      <Muted as="p" style={{ margin: '0 0 12px' }}>
        Until {formatTime(a.ends_at)}. A trade at {formatPrice(a.trigger_price)} would have moved {tokenName} beyond{' '}
        {a.band_bps / 100}% of its reference price of {formatPrice(a.reference_price)}. Limit orders are collected
        without trading; when the auction ends, everything that crosses trades at one price, and continuous trading
        resumes.
      </Muted>
      <Lines aria-label="Auction figures">
        <dt>Indicative Price</dt>
        <dd data-testid="auction-indicative">
          {a.indicative_price === null ? 'No orders cross yet' : formatPrice(a.indicative_price)}
        </dd>
        <dt>Would Trade</dt>
        <dd data-testid="auction-volume">{formatTokens(a.indicative_volume ?? 0)}</dd>
        <dt>Bid at or Above</dt>
        <dd>{formatTokens(a.demand ?? 0)}</dd>
        <dt>Offered at or Below</dt>
        <dd>{formatTokens(a.supply ?? 0)}</dd>
      </Lines>
    </Card>
  );
}
