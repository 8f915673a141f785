import { performance } from 'node:perf_hooks';
import { freshToken, placeOrder, trader } from '../../integration/harness/market';
import { benchBackend, round1, type Engine } from './common';

/** Stops in the cascade, and cascades timed. */
export const CASCADE = 100;
const ROUNDS = 5;

/**
 * A cascade of CASCADE stops triggered by one trade: a ladder of bids a cent apart, and a sell
 * stop at each level, so each stop's sale takes the price to the next one's trigger. Timed is the
 * order that starts it, over HTTP (its one transaction runs all the stops), beside the same order
 * on a book with no stops. Medians of ROUNDS rounds, each on a fresh token.
 */
export async function benchCascade(
  engine: Engine,
): Promise<{ cascade_ms: number; plain_ms: number; stops_run: number }> {
  const { store, backend } = await benchBackend(engine, 'repex_bench_stops', { seed: false });
  const cascade: number[] = [];
  const plain: number[] = [];
  let ran = 0;
  try {
    await backend.db.query('update exchange_settings set max_open_orders = 1000');
    for (let round = 0; round < ROUNDS; round++) {
      for (const withStops of [true, false]) {
        const token = await freshToken(backend, 1_000_000);
        const bidder = await trader(backend, { cash: 1_000_000 });
        const holder = await trader(backend, { token, tokens: 10 * CASCADE });
        const starter = await trader(backend, { token, tokens: 1 });
        for (let i = 1; i <= CASCADE; i++) await placeOrder(bidder.client, token, 'buy', 'limit', 10, 10 - i / 100);
        if (withStops)
          for (let i = 1; i <= CASCADE; i++)
            await holder.client.rpc('place_order', {
              p_token: token,
              p_side: 'sell',
              p_type: 'market',
              p_amount: 10,
              p_stop_price: Number((10 - i / 100).toFixed(2)),
            });
        const started = performance.now();
        const { error } = await placeOrder(starter.client, token, 'sell', 'market', 1);
        const ms = performance.now() - started;
        if (error) throw new Error(`the cascade's first order was refused: ${error.message}`);
        (withStops ? cascade : plain).push(ms);
        if (withStops) {
          const [row] = await backend.db.query<{ n: string }>(
            'select count(*) as n from orders where token_id = $1 and triggered_at is not null',
            [token],
          );
          ran = Number(row!.n);
        }
      }
    }
  } finally {
    await backend.close();
    await store.cleanup();
  }
  const median = (xs: number[]) => round1([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!);
  return { cascade_ms: median(cascade), plain_ms: median(plain), stops_run: ran };
}
