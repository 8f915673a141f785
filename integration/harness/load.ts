import type { SupabaseClient } from '@supabase/supabase-js';

export interface LoadResult {
  acknowledged: number[];
  refused: number;
  failures: string[];
}

/** A small deterministic random generator, so a failing run can be replayed. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * One client placing random orders (and now and then cancelling one) until `until` or `count`.
 * Refusals with a clear 4xx message are normal trading (not enough cash, empty book); anything
 * else is a failure.
 */
export async function randomOrders(
  client: SupabaseClient,
  tokens: string[],
  opts: { count: number; seed: number; until?: () => boolean; onAcknowledged?: () => void },
): Promise<LoadResult> {
  const random = rng(opts.seed);
  const result: LoadResult = { acknowledged: [], refused: 0, failures: [] };
  for (let i = 0; i < opts.count && !(opts.until?.() ?? false); i++) {
    if (random() < 0.1 && result.acknowledged.length) {
      const id = result.acknowledged[Math.floor(random() * result.acknowledged.length)]!;
      const { error, status } = await client.rpc('cancel_order', { p_order: id });
      if (error && status >= 500) result.failures.push(`cancel: ${status} ${error.message}`);
      continue;
    }
    const token = tokens[Math.floor(random() * tokens.length)];
    const side = random() < 0.5 ? 'buy' : 'sell';
    const amount = 1 + Math.floor(random() * 20);
    const price = Math.round((9 + random() * 2) * 100) / 100;
    const { data, error, status } = await (random() < 0.05
      ? client.rpc('place_oco', {
          p_token: token,
          p_amount: amount,
          p_take_profit: Math.round((price + 0.5) * 100) / 100,
          p_stop_price: Math.round((price - 0.5) * 100) / 100,
        })
      : client.rpc('place_order', { p_token: token, p_side: side, p_amount: amount, ...orderTerms(random, price) }));
    if (error) {
      if (status >= 500 || status === 0 || !error.message) result.failures.push(`place: ${status} ${error.message}`);
      else result.refused++;
    } else {
      const placed = data as { order_id?: number; take_profit?: { order_id: number } };
      result.acknowledged.push(placed.order_id ?? placed.take_profit!.order_id);
      opts.onAcknowledged?.();
    }
  }
  return result;
}

/**
 * A random order's type and terms: market and limit orders, immediate-or-cancel, fill-or-kill,
 * good-til-date and post-only limits, and stops (market or limit) around the price.
 */
function orderTerms(random: () => number, price: number): Record<string, unknown> {
  const roll = random();
  if (roll < 0.25) return { p_type: 'market' };
  if (roll < 0.55) return { p_type: 'limit', p_price: price };
  if (roll < 0.62) return { p_type: 'limit', p_price: price, p_time_in_force: 'ioc' };
  if (roll < 0.68) return { p_type: 'limit', p_price: price, p_time_in_force: 'fok' };
  if (roll < 0.74) return { p_type: 'limit', p_price: price, p_post_only: true };
  if (roll < 0.8)
    return {
      p_type: 'limit',
      p_price: price,
      p_time_in_force: 'gtd',
      p_expires_at: new Date(Date.now() + (1 + random() * 2) * 60_000).toISOString(),
    };
  // A stop: refused when its trigger is on the wrong side of the last price, as any refusal.
  const stop = Math.round((9 + random() * 2) * 100) / 100;
  return random() < 0.5
    ? { p_type: 'market', p_stop_price: stop }
    : { p_type: 'limit', p_stop_price: stop, p_price: price };
}
