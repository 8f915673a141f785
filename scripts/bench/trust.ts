import { benchBackend, round1, type Engine } from './common';

/** The trust-weighted rescoring's scale: accounts, trades over the last 90 days, and tokens. */
export const TRUST_ACCOUNTS = Number(process.env.BENCH_TRUST_ACCOUNTS ?? 10_000);
export const TRUST_TRADES = Number(process.env.BENCH_TRUST_TRADES ?? 1_000_000);
const TOKENS = 100;
const BATCH = 50_000;

/**
 * The hourly rescoring (private.refresh_reputation: EigenTrust over the trading graph, then every
 * token's score) over TRUST_ACCOUNTS accounts (a tenth of them verified and old: the seeds) and
 * TRUST_TRADES trades among them in TOKENS tokens over 90 days, in the database itself. Median of
 * three runs, and the trust step alone. Target: the whole rescoring within 60 s, an hourly job.
 */
export async function benchTrust(
  engine: Engine,
): Promise<{ rescoring_s: number; trust_s: number; accounts_with_trust: number }> {
  const { store, backend } = await benchBackend(engine, 'repex_bench_trust', { seed: true });
  try {
    const db = backend.db;
    await db.exec(`insert into auth.users (email, raw_user_meta_data, created_at)
      select 'trust' || g || '@bench.repx.dev', jsonb_build_object('username', 'trust' || g, 'full_name', 'Trust ' || g),
             now() - make_interval(days => case when g % 10 = 0 then 400 else 10 end)
      from generate_series(1, ${TRUST_ACCOUNTS}) g`);
    await db.exec(`update profiles set verified = true, created_at = now() - interval '400 days'
      where username like 'trust%' and substr(username, 6)::int % 10 = 0`);
    await db.exec(`insert into tokens (name, username, category, reputation_score, total_supply, issue_price, owner_id)
      select 'Trust Token ' || g, 'trusttoken' || g, 'Designer', 50, 100000000, 10,
             (select id from profiles where username = 'trust' || (g * 97 % ${TRUST_ACCOUNTS} + 1))
      from generate_series(1, ${TOKENS}) g`);
    // The figures' trigger recomputes a back-dated token from its trades: left out, then run once.
    await db.exec('alter table trades disable trigger trades_stats');
    await db.exec(`create temporary table bench_accounts as
      select row_number() over (order by id) as n, id from profiles where username like 'trust%'`);
    await db.exec(`create temporary table bench_tokens as
      select row_number() over (order by id) as n, id from tokens where username like 'trusttoken%'`);
    for (let from = 0; from < TRUST_TRADES; from += BATCH) {
      await db.exec(`
        insert into trades (token_id, buyer_id, seller_id, price, amount, taker_side, buyer_fee, seller_fee, created_at, fee_bps)
        select k.id, b.id, s.id, 10, 1 + g % 5, 'buy', 0.2, 0.2, now() - make_interval(secs => (g % 7776000)), 200
        from generate_series(${from}, ${Math.min(from + BATCH, TRUST_TRADES) - 1}) g
        join bench_tokens k on k.n = 1 + g % ${TOKENS}
        join bench_accounts b on b.n = 1 + (g::bigint * 7919) % ${TRUST_ACCOUNTS}
        join bench_accounts s on s.n = 1 + (g::bigint * 104729 + 1) % ${TRUST_ACCOUNTS}
        where b.id <> s.id`);
    }
    await db.exec('alter table trades enable trigger trades_stats');
    await db.exec(`select private.refresh_token_stats(id) from tokens where username like 'trusttoken%'`);
    await db.exec('analyze');
    const time = async (sql: string) => {
      const t = performance.now();
      await db.query(sql);
      return (performance.now() - t) / 1000;
    };
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await time('select private.refresh_reputation()'));
    runs.sort((a, b) => a - b);
    const trust = await time('select private.refresh_trust()');
    const [trusted] = await db.query<{ n: string }>('select count(*)::text as n from private.account_trust');
    return { rescoring_s: round1(runs[1]!), trust_s: round1(trust), accounts_with_trust: Number(trusted!.n) };
  } finally {
    await backend.close();
    await store.cleanup();
  }
}
