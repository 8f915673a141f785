import { useEffect, useRef } from 'react';
import { toast, useAccountFeed } from '@repex/shared-ui/platform';
import { latestTradeId, ordersNow, tradesAfter, type OwnTrade } from './data';
import { fillNotice } from './fillNotice';

/** The user's trades read per check. */
const PAGE = 200;

/** The user's order in a trade, and whether it was the resting one (the maker). */
function ownOrder(t: OwnTrade, userId: string): { id: number | null; resting: boolean } {
  const bought = t.buyer_id === userId;
  return bought
    ? { id: t.buy_order_id, resting: t.taker_side === 'sell' }
    : { id: t.sell_order_id, resting: t.taker_side === 'buy' };
}

/**
 * Tells the signed-in user, on any screen, when someone trades against one of their resting
 * orders or someone's trade triggers one of their stops (the order panel already tells them what
 * their own new order did). The database tells the user's account topic when an order of theirs
 * traded; this then reads the user's own trades (row-level security) since the last one it saw.
 */
export function FillNotices({ userId }: { userId: string }) {
  const seen = useRef<number | null>(null);
  const busy = useRef(false);
  // A market event during a check may be a trade the check did not see: check again after it.
  const again = useRef(false);

  useEffect(() => {
    seen.current = null;
    let live = true;
    latestTradeId()
      .then((id) => {
        if (live) seen.current = id;
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [userId]);

  const check = async () => {
    if (seen.current === null) return;
    if (busy.current) {
      again.current = true;
      return;
    }
    busy.current = true;
    again.current = false;
    try {
      const trades = await tradesAfter(seen.current, PAGE);
      if (!trades.length) return;
      seen.current = trades.at(-1)!.id;
      if (trades.length === PAGE) again.current = true; // more since: the next page after this one
      // Resting orders others traded against, and stops others' trades triggered: the user placed
      // neither just now, so no panel has told them.
      const own = trades.map((t) => ownOrder(t, userId)).filter((o) => o.id !== null);
      const resting = new Set(own.filter((o) => o.resting).map((o) => o.id!));
      const ids = [...new Set(own.map((o) => o.id!))];
      if (!ids.length) return;
      const orders = (await ordersNow(ids)).filter((o) => resting.has(o.id) || o.triggered_at !== null);
      const notice = fillNotice(orders);
      if (notice) toast(notice);
    } catch {
      // A notice is a courtesy: a read that failed is tried again at the next trade, from the same point.
    } finally {
      busy.current = false;
      if (again.current) void check();
    }
  };
  // Only this user's fills are told here: nobody else's trade costs this screen a read.
  useAccountFeed(
    (notes) => notes.some((n) => n.what === 'fills') && void check(),
    () => void check(),
  );
  return null;
}
