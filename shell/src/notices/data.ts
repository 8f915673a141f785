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

/** When the user's latest alert fired, if one has: where the alert notices start. */
export const latestAlertFiring = async () =>
  unwrap(
    await supabase()
      .from('my_price_alerts')
      .select('fired_at')
      .not('fired_at', 'is', null)
      .order('fired_at', { ascending: false })
      .limit(1),
  )[0]?.fired_at ?? null;

/** The user's alerts that fired after `at`, oldest first, with what each says. */
export const alertsFiredAfter = async (at: string) =>
  unwrap(
    await supabase()
      .from('my_price_alerts')
      .select('id, fired_at, message')
      .gt('fired_at', at)
      .order('fired_at')
      .limit(20),
  ).flatMap((a) => (a.fired_at ? [{ ...a, fired_at: a.fired_at }] : []));
