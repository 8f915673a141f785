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
  opts: { count: number; seed: number; until?: () => boolean },
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
    const type = random() < 0.3 ? 'market' : 'limit';
    const args = {
      p_token: tokens[Math.floor(random() * tokens.length)],
      p_side: random() < 0.5 ? 'buy' : 'sell',
      p_type: type,
      p_amount: 1 + Math.floor(random() * 20),
      ...(type === 'limit' ? { p_price: Math.round((9 + random() * 2) * 100) / 100 } : {}),
    };
    const { data, error, status } = await client.rpc('place_order', args);
    if (error) {
      if (status >= 500 || status === 0 || !error.message) result.failures.push(`place: ${status} ${error.message}`);
      else result.refused++;
    } else {
      result.acknowledged.push((data as { order_id: number }).order_id);
    }
  }
  return result;
}
