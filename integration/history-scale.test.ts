import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { freshToken, trader } from './harness/market';
import { pastTrades } from './harness/history';

/** Trades of a month ago: more pages than a few of BRIN's ranges of 128. */
const HISTORY = 30_000;

/** Rows of trades and orders read in the current transaction, by any scan. */
const READ = `select coalesce(sum(seq_tup_read + coalesce(idx_tup_fetch, 0)), 0)::int as n
  from pg_stat_xact_user_tables where schemaname = 'public' and relname in ('trades', 'orders')`;

/**
 * The fraud scan runs every minute over the last 24 hours of trades and orders of every account.
 * It may not read the whole history to find that day: another month of trades behind it must
 * add nothing to what it reads. Counted in the database, sequential scans ruled out so that only a
 * read by time can answer (the planner would pick a sequential scan of a table this small anyway).
 */
describe.each(ENGINES)('reads of a recent window over a long history (%s)', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  /** The trades and orders one fraud scan reads. */
  const scanRead = () =>
    backend.db.transaction(async (tx) => {
      await tx.query('set local enable_seqscan = off');
      const [before] = await tx.query<{ n: number }>(READ);
      await tx.query('select private.scan_fraud()');
      const [after] = await tx.query<{ n: number }>(READ);
      return after!.n - before!.n;
    });

  it('the fraud scan reads no more with another month of trades behind the day', async () => {
    const token = await freshToken(backend);
    const [a, b] = [await trader(backend), await trader(backend)];
    // A month of a new token's trades, none of them in the last day; then a month before it.
    const history = (ago: string) => pastTrades(backend, { token, buyer: a.id, seller: b.id, count: HISTORY, ago });
    await history('2 days');
    const month = await scanRead();
    await history('40 days');
    expect((await scanRead()) - month).toBeLessThan(HISTORY / 10);
  });
});
