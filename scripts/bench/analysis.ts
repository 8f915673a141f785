import type { SupabaseClient } from '@supabase/supabase-js';
import { pageAfter, type WalletPlace } from '@repex/shared-ui/contracts';
import { signedIn } from '../../integration/harness/clients';
import { DEMO_ACCOUNTS } from '../../server/demo';
import { keepPortfolioCloses } from '../../server/schedule';
import { httpFetch } from '../lib/httpFetch';
import { overHttp, benchBackend, timeReads, type Engine, type Timing } from './common';

/** The investor's trades: over the year before now, in 20 tokens, buying and selling. */
export const ANALYSIS_TRADES = Number(process.env.BENCH_ANALYSIS_TRADES ?? 10_000);
const TOKENS = 20;
const BATCH = 1_000;
const CALLS = 50;
const WARM_UP = 20;

/** Every movement of the wallet, a page after the last row of the one before, as its export reads them. */
async function wholeExport(client: SupabaseClient) {
  let last: WalletPlace | undefined;
  for (;;) {
    const { data, error } = await client.rpc('wallet_history_after', pageAfter(last));
    if (error || !(data as WalletPlace[]).length) return { error };
    last = (data as WalletPlace[]).at(-1);
  }
}

/**
 * The Portfolio Analysis screen's reads, the wallet's history and a month's statement for one user with
 * ANALYSIS_TRADES trades (and twelve monthly deposits) over a year, over HTTP as the browser
 * makes them: p50 / p95 of CALLS after WARM_UP (the whole export: of 5 after one). The target:
 * every analysis read within 50 ms at p95.
 */
export async function benchAnalysis(engine: Engine): Promise<Record<string, Timing>> {
  const { store, backend: prepared } = await benchBackend(engine, 'repex_bench_analysis', { seed: true });
  const investor = `(select id from auth.users where email = '${DEMO_ACCOUNTS.user.email}')`;
  const other = `(select id from profiles where username = 'marcusj')`;
  await prepared.db
    .exec(`insert into tokens (name, username, category, reputation_score, total_supply, issue_price, created_at)
    select 'Analysis ' || g, 'analysis' || g, 'Designer', 50, 1000000, 10, now() - interval '400 days'
    from generate_series(1, ${TOKENS}) g`);
  await prepared.db.exec(`select private.record_deposit(${investor}, 50000, now() - make_interval(days => 30 * g))
    from generate_series(0, 11) g`);
  // Two buys for each sale, so positions grow over the year; prices wander around $10.
  for (let from = 0; from < ANALYSIS_TRADES; from += BATCH) {
    await prepared.db.exec(`
      insert into trades (token_id, buyer_id, seller_id, price, amount, taker_side, buyer_fee, seller_fee, created_at, fee_bps)
      select (select id from tokens where username = 'analysis' || (1 + g % ${TOKENS})),
             case when g % 3 = 2 then ${other} else ${investor} end, case when g % 3 = 2 then ${investor} else ${other} end,
             round((10 + sin(g / 300.0) * 3 + (g % 7) * 0.01)::numeric, 2), 1 + g % 5, 'buy', 0.2, 0.2,
             now() - make_interval(secs => (365 * 86400 / ${ANALYSIS_TRADES}.0) * (${ANALYSIS_TRADES} - g)), 200
      from generate_series(${from}, ${Math.min(from + BATCH, ANALYSIS_TRADES) - 1}) g`);
  }
  // An account as old as its year of history (the seed made it now).
  await prepared.db.exec(`update profiles set created_at = now() - interval '400 days' where id = ${investor}`);
  await prepared.db.exec('analyze');
  // The closed days kept, as the scheduler leaves them by the time anyone reads (analysis.sql).
  await keepPortfolioCloses(prepared.db, 10_000);
  await prepared.close();

  return overHttp(
    store,
    async (url) => {
      const results: Record<string, Timing> = {};
      const client = await signedIn(url, DEMO_ACCOUNTS.user, httpFetch);
      const lastMonth = new Date();
      lastMonth.setUTCDate(0);
      const monthEnd = lastMonth.toISOString().slice(0, 10);
      const reads: [string, () => PromiseLike<{ error: { message: string } | null }>][] = [
        ['history 30d', () => client.rpc('my_portfolio_history', { p_period: '30d' })],
        ['history 1y', () => client.rpc('my_portfolio_history', { p_period: '1y' })],
        ['history all', () => client.rpc('my_portfolio_history', { p_period: 'all' })],
        ['position returns 1y', () => client.rpc('my_position_returns', { p_period: '1y' })],
        ['positions', () => client.rpc('my_positions')],
        [
          // The first page, newest sale first, as the Realized Gains by Lot table asks.
          'lots 1y',
          () =>
            client
              .rpc('my_realized_lots', { p_from: new Date(Date.now() - 365 * 86_400_000).toISOString() })
              .order('sold_at', { ascending: false })
              .order('bought_at', { ascending: false })
              .range(0, 25),
        ],
        // The wallet's history as it opens: the newest 500 movements with their balances.
        ['wallet, newest 500', () => client.rpc('recent_wallet_history', { p_limit: 500 }, { get: true })],
        // Filtered to one kind: the buys, two of every three trades.
        [
          'wallet, newest 500 buys',
          () => client.rpc('recent_wallet_history', { p_kind: 'Buy', p_limit: 500 }, { get: true }),
        ],
        [
          'statement, a month',
          () => client.rpc('my_statement', { p_from: `${monthEnd.slice(0, 7)}-01`, p_to: monthEnd }),
        ],
      ];
      for (const [name, read] of reads) {
        results[name] = await timeReads(read, { calls: CALLS, warmUp: WARM_UP });
      }
      // The wallet's CSV export: every movement, a page after the last (mf-wallet's loadWholeHistory).
      results['wallet, whole export'] = await timeReads(() => wholeExport(client), { calls: 5, warmUp: 1 });
      return results;
    },
    { SEED: 'false', LOG_REQUESTS: 'false' },
  );
}
