import { startBackend } from '../../supabase/server/index';
import { signedIn } from '../../supabase/harness/clients';
import { throwAwayStorage } from '../../supabase/harness/backends';
import { stopServer } from '../../supabase/harness/process';
import { DEMO_ACCOUNTS, DEMO_JWT_SECRET } from '../../supabase/server/demo';
import { NO_RATE_LIMITS } from '../../supabase/server/http/rateLimit';
import { httpFetch } from '../lib/httpFetch';
import { benchServer, timeReads, type Engine, type Timing } from './common';

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
  const store = await throwAwayStorage(engine, 'repex_bench_candles');
  const prepared = await startBackend({
    port: 0,
    seed: true,
    jwtSecret: DEMO_JWT_SECRET,
    rateLimits: NO_RATE_LIMITS,
    ...store.options,
  });
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

  const { server, url } = await benchServer(store, { SEED: 'false', LOG_REQUESTS: 'false' });
  const results: Record<string, Timing> = {};
  try {
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
  } finally {
    await stopServer(server);
    await store.cleanup();
  }
  return results;
}
