import { useEffect, useRef } from 'react';
import { supabase, toast, useMarketEvents } from '@repex/shared-ui/platform';
import { fillNotice, type FilledOrder } from './fillNotice';

/** The user's trades read per check. */
const PAGE = 200;

interface OwnTrade {
  id: number;
  buy_order_id: number | null;
  sell_order_id: number | null;
  buyer_id: string;
  taker_side: 'buy' | 'sell';
}

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
    void supabase()
      .from('trades')
      .select('id')
      .order('id', { ascending: false })
      .limit(1)
      .then(({ data }) => {
        if (live) seen.current = (data?.[0] as { id: number } | undefined)?.id ?? 0;
      });
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
      const { data: trades } = await supabase()
        .from('trades')
        .select('id, buy_order_id, sell_order_id, buyer_id, taker_side')
        .gt('id', seen.current)
        .order('id')
        .limit(PAGE);
      if (!trades?.length) return;
      seen.current = (trades.at(-1) as OwnTrade).id;
      if (trades.length === PAGE) again.current = true; // more since: the next page after this one
      const ids = [...new Set((trades as OwnTrade[]).map((t) => restingOrder(t, userId)).filter((id) => id !== null))];
      if (!ids.length) return;
      const { data: orders } = await supabase()
        .from('orders')
        .select('id, side, price, amount, filled, status, tokens(name)')
        .in('id', ids);
      const notice = fillNotice((orders ?? []) as unknown as FilledOrder[]);
      if (notice) toast(notice);
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
