import { useIndexFeed, useMarketFeed, useQuery, useSoon, type FirstRead } from '@repex/shared-ui/platform';
import { patchBasket } from './live';
import { loadIndex, type MarketScreenRead } from './data';

const DAY_MS = 86_400_000;

/**
 * The RepX index for the market screen. The database records its level every hour; its level now
 * is the latest basket's units at the members' last prices, so the card follows trades as they
 * happen, from the market's messages. It reads again when the database records a level (and with
 * it, perhaps, a new basket). The change is against the last hourly level at least 24 hours old,
 * or the first. Its first read comes with the market screen's (`first`).
 */
export function useRepxIndex(first: FirstRead<MarketScreenRead>) {
  const index = useQuery(
    () =>
      first.load(
        'index',
        (s) => ({ ...s.index, readAt: Date.now() }),
        () => loadIndex(),
      ),
    [],
  );
  useMarketFeed(
    (ticks) => index.patch((d) => ({ ...d, basket: patchBasket(d.basket, ticks), readAt: Date.now() })),
    index.reload,
  );
  useIndexFeed(useSoon(index.reload, 1_000, 10_000));
  const { levels = [], basket = [], method, readAt = 0 } = index.data ?? {};
  const level = basket.length ? basket.reduce((sum, m) => sum + m.units * m.price, 0) : undefined;
  // A younger index is compared with its start, and says so.
  const dayOld = levels.filter((p) => Date.parse(p.at) <= readAt - DAY_MS).at(-1);
  const dayAgo = dayOld ?? levels[0];
  return {
    loading: index.loading,
    error: index.error,
    reload: index.reload,
    points: level === undefined ? levels : [...levels, { at: new Date(readAt).toISOString(), level }],
    level,
    change: level !== undefined && dayAgo ? ((level - dayAgo.level) / dayAgo.level) * 100 : undefined,
    changeSince: dayOld ? '24h' : 'since its start',
    members: basket,
    /** The index's rules as the database applies them (public.index_method). */
    method,
  };
}
