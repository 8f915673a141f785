import { useNow } from '@repex/shared-ui/platform';
import { Badge, formatCountdown } from '@repex/shared-ui/ui';
import type { OpenOffering } from './data';

/** A token in its offering's batch auction: marked, with the time left to bid. */
export function AuctionBadge({ offering }: { offering: OpenOffering }) {
  const left = Date.parse(offering.closes_at) - useNow(1000);
  return (
    <Badge $variant="outline" data-testid="auction-badge" title="Its offering is a batch auction: bid on its page">
      Auction · {left > 0 ? formatCountdown(left) : 'closing'}
    </Badge>
  );
}

/** A token in a volatility auction: continuous trading paused, with the time left in the call. */
export function PausedBadge({ until }: { until: string }) {
  const left = Date.parse(until) - useNow(1000);
  return (
    <Badge
      $variant="outline"
      data-testid="volatility-badge"
      title="A sudden move paused continuous trading: limit orders are collected and trade at one price when it ends"
    >
      Paused · {left > 0 ? formatCountdown(left) : 'reopening'}
    </Badge>
  );
}
