import { signedIn } from '../../integration/harness/clients';
import { DEMO_ACCOUNTS } from '../../server/demo';
import { httpFetch } from '../lib/httpFetch';
import { overHttp, benchBackend, timeReads, type Engine, type Timing } from './common';

/** Trades in the token's history, and how many a statement inserts (as settlements add them, in bulk). */
export const CANDLE_TRADES = Number(process.env.BENCH_CANDLE_TRADES ?? 1_000_000);
const BATCH = 10_000;
const CALLS = 50;
const WARM_UP = 20;

/**
 * The trading screen's candle read, 1,000 candles of each interval, over a token with
 * CANDLE_TRADES trades (one every 30 seconds, back from now), inserted through the trigger that
 * keeps the candles. p50 / p95 of CALLS reads over HTTP, after WARM_UP.
 */
export async function benchCandles(engine: Engine): Promise<Record<string, Timing>> {
  const { store, backend: prepared } = await benchBackend(engine, 'repex_bench_candles', { seed: true });
  await prepared.db.exec(`insert into tokens (name, username, category, reputation_score, total_supply, issue_price)
    values ('Candle Bench', 'candlebench', 'Designer', 50, 100000000, 10)`);
  // The figures' trigger recomputes a back-dated token from its trades: left out, then run once.
  await prepared.db.exec('alter table trades disable trigger trades_stats');
  for (let from = 0; from < CANDLE_TRADES; from += BATCH) {
    await prepared.db.exec(`
      insert into trades (token_id, buyer_id, seller_id, price, amount, taker_side, buyer_fee, seller_fee, created_at, fee_bps)
      select (select id from tokens where username = 'candlebench'),
             (select id from profiles where username = 'sarahchen'), (select id from profiles where username = 'marcusj'),
             round((10 + sin(g / 500.0) * 3 + (g % 7) * 0.01)::numeric, 2), 1 + g % 20, 'buy', 0.2, 0.2,
             now() - make_interval(secs => 30 * (${CANDLE_TRADES} - g)), 200
      from generate_series(${from}, ${Math.min(from + BATCH, CANDLE_TRADES) - 1}) g`);
  }
  await prepared.db.exec('alter table trades enable trigger trades_stats');
  await prepared.db.exec(`select private.refresh_token_stats(id) from tokens where username = 'candlebench'`);
  await prepared.db.exec('analyze');
  await prepared.close();

  return overHttp(
    store,
    async (url) => {
      const results: Record<string, Timing> = {};
      const client = await signedIn(url, DEMO_ACCOUNTS.user, httpFetch);
      const { data: token } = await client.from('tokens').select('id').eq('username', 'candlebench').single();
      const p_token = (token as { id: string }).id;
      for (const interval of ['1m', '15m', '1h', '1d']) {
        results[interval] = await timeReads(
          () => client.rpc('candles', { p_token, p_interval: interval, p_limit: 1000 }),
          {
            calls: CALLS,
            warmUp: WARM_UP,
          },
        );
      }
      return results;
    },
    { SEED: 'false', LOG_REQUESTS: 'false' },
  );
}
