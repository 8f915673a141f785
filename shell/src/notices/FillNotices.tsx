import { useEffect, useRef } from 'react';
import { toast, useMarketEvents } from '@repex/shared-ui/platform';
import { latestTradeId, ordersNow, tradesAfter, type OwnTrade } from './data';
import { fillNotice } from './fillNotice';

/** The user's trades read per check. */
const PAGE = 200;

/** The user's order in a trade where it was the resting one (the maker), if it was. */
function restingOrder(t: OwnTrade, userId: string): number | null {
  const bought = t.buyer_id === userId;
  if (bought && t.taker_side === 'sell') return t.buy_order_id;
  if (!bought && t.taker_side === 'buy') return t.sell_order_id;
  return null;
}

/**
 * Tells the signed-in user, on any screen, when someone trades against one of their resting
 * orders (the order panel already tells them what their own new order did). It follows the public
 * market events, so the trading path writes nothing more for it, and reads the user's own trades
 * (row-level security) since the last one it saw.
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
      const ids = [...new Set(trades.map((t) => restingOrder(t, userId)).filter((id) => id !== null))];
      if (!ids.length) return;
      const notice = fillNotice(await ordersNow(ids));
      if (notice) toast(notice);
    } catch {
      // A notice is a courtesy: a read that failed is tried again at the next trade, from the same point.
    } finally {
      busy.current = false;
      if (again.current) void check();
    }
  };
  // Any trade anywhere may be against one of ours (a change of a book or a halt fills nothing); a
  // busy market is checked a few times a second.
  useMarketEvents(
    null,
    (kinds) => {
      if (kinds.has('trade')) void check();
    },
    250,
  );
  return null;
}
