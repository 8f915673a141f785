import { formatCount, formatInteger } from '@repex/shared-ui/ui';
import { MARKET_TOKEN_COLUMNS, type MarketToken } from '@repex/shared-ui/contracts';
import { supabase, unwrap } from '@repex/shared-ui/platform';

/** Orders with the tokens they are on (for the person's name and avatar). */
async function withTokens<T extends { token_id: string }>(orders: T[]): Promise<(T & { token: MarketToken })[]> {
  if (!orders.length) return [];
  const ids = [...new Set(orders.map((o) => o.token_id))];
  const tokens = unwrap(await supabase().from('market_tokens').select(MARKET_TOKEN_COLUMNS).in('id', ids));
  const byId = new Map(tokens.map((t) => [t.id, t]));
  return orders.flatMap((o) => (byId.has(o.token_id) ? [{ ...o, token: byId.get(o.token_id)! }] : []));
}

const ORDER_COLUMNS =
  'id, token_id, side, type, price, amount, filled, status, created_at, stop_price, oco_with, time_in_force, expires_at';

/** The caller's open orders on every token, newest first. */
export async function loadOpenOrders() {
  return withTokens(unwrap(await supabase().rpc('list_open_orders', { p_limit: 500 })));
}

/** The caller's last 50 orders that are no longer open (row-level security: their own). */
export async function loadOrderHistory() {
  return withTokens(
    unwrap(
      await supabase()
        .from('orders')
        .select(ORDER_COLUMNS)
        .not('status', 'in', '(open,pending)')
        .order('created_at', { ascending: false })
        .order('id', { ascending: false })
        .limit(50),
    ),
  );
}

/** One of the caller's orders, as public.orders keeps it. */
export type MyOrder = Awaited<ReturnType<typeof loadOrderHistory>>[number];

/** An order that is no longer open, in words: filled, cancelled or expired, or partly filled and the rest cancelled or expired. */
export function orderOutcome(o: Pick<MyOrder, 'status' | 'filled'>): string {
  if (o.status === 'filled') return 'Filled';
  if (o.status === 'open') return 'Open';
  if (o.status === 'pending') return 'Waiting';
  if (o.status === 'expired') return o.filled > 0 ? 'Partly filled, expired' : 'Expired';
  return o.filled > 0 ? 'Partly filled' : 'Cancelled';
}

/** How many orders rest on the book, and how many stops wait for their trigger. */
export function openCount(orders: { status: string }[]): string {
  const waiting = orders.filter((o) => o.status === 'pending').length;
  if (waiting === 0) return `${formatCount(orders.length, 'order')} on the book.`;
  return `${formatCount(orders.length, 'order')}: ${formatInteger(orders.length - waiting)} on the book, ${formatInteger(waiting)} waiting for ${waiting === 1 ? 'its trigger' : 'their triggers'}.`;
}
