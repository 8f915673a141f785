import type { SupabaseClient } from '@supabase/supabase-js';
import type { Queryable } from '../../server/db/database';
import { callerStatement } from '../../server/db/caller';
import type { Backend } from '../../server/index';
import { identityOf } from './clients';

/**
 * A month of bare trades of `token` between `buyer` and `seller` (no order, no cash or tokens
 * moved, no trigger fired), `count` of them, the last `ago` before now (an interval, '2 days'):
 * history for what a read looks at, to be deleted before the invariants are checked. Left as
 * vacuum leaves an older history once newer trades follow it: each range of its pages summarized
 * in the trades' time index (vacuum itself leaves the last range, still filling, to be read whole).
 */
export async function pastTrades(
  backend: Backend,
  { token, buyer, seller, count, ago }: { token: string; buyer: string; seller: string; count: number; ago: string },
) {
  await backend.db.exec('alter table trades disable trigger user');
  await backend.db.exec(`
    insert into trades (token_id, buyer_id, seller_id, price, amount, taker_side, buyer_fee, seller_fee, created_at, fee_bps)
    select '${token}', '${buyer}', '${seller}', 10, 1, 'buy', 0.2, 0.2,
           now() - interval '${ago}' - interval '30 days' + make_interval(secs => g), 200
      from generate_series(1, ${count}) g;`);
  await backend.db.exec('alter table trades enable trigger user');
  await backend.db.exec('vacuum analyze trades');
  await backend.db.exec("select brin_summarize_new_values('public.trades_time_brin_idx')");
}

/**
 * `read` run in one transaction as `client`'s account, as the server runs a request: what it
 * returns, and the trade rows it read (sequential and by index), which a test compares as the
 * history grows.
 */
export async function tradesReadBy<T>(backend: Backend, client: SupabaseClient, read: (tx: Queryable) => Promise<T>) {
  const caller = callerStatement(await identityOf(client), { method: 'GET', path: '/', headers: {}, cookies: {} });
  return backend.db.transaction(async (tx) => {
    const counted = `select coalesce(sum(seq_tup_read + coalesce(idx_tup_fetch, 0)), 0)::int as n
      from pg_stat_xact_user_tables where relname = 'trades'`;
    const [before] = await tx.query<{ n: number }>(counted);
    await tx.query(caller.text, caller.values);
    const answer = await read(tx);
    await tx.query('reset role');
    const [after] = await tx.query<{ n: number }>(counted);
    return { answer, trades: after!.n - before!.n };
  });
}
