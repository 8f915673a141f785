import { withTicks } from '@repex/shared-ui/contracts';
import { useMarketFeed, useQuery } from '@repex/shared-ui/platform';
import { loadWatchlist } from './data';

/**
 * The starred tokens with their market figures, read when the Watchlist tab opens and again once a
 * star's change is stored (`saved`), and moved live by the market's messages.
 */
export function useWatchedTokens(saved: number) {
  const watchlist = useQuery(loadWatchlist, [saved]);
  useMarketFeed((ticks) => watchlist.patch((rows) => withTicks(rows, ticks)), watchlist.reload);
  return watchlist;
}
