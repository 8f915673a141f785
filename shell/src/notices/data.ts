import { supabase, unwrap } from '@repex/shared-ui/platform';

/** The fill notices' reads: the user's own trades and orders (row-level security), typed by the database. */

/** The id of the user's latest trade, or 0: where the notices start. */
export const latestTradeId = async () =>
  unwrap(await supabase().from('trades').select('id').order('id', { ascending: false }).limit(1))[0]?.id ?? 0;

/** The user's trades after `afterId`, oldest first, at most `limit`. */
export const tradesAfter = async (afterId: number, limit: number) =>
  unwrap(
    await supabase()
      .from('trades')
      .select('id, buy_order_id, sell_order_id, buyer_id, taker_side')
      .gt('id', afterId)
      .order('id')
      .limit(limit),
  );
export type OwnTrade = Awaited<ReturnType<typeof tradesAfter>>[number];

/** The user's orders, as they are now, with their token's name. */
export const ordersNow = async (ids: number[]) =>
  unwrap(
    await supabase()
      .from('orders')
      .select('id, side, price, amount, filled, filled_value, status, stop_price, triggered_at, tokens(name)')
      .in('id', ids),
  );
export type FilledOrder = Awaited<ReturnType<typeof ordersNow>>[number];
