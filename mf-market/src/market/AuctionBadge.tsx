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
