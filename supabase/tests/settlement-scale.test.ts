import type { Backend } from '../server/index';
import { callerStatement } from '../server/db/caller';
import { ENGINES, backendFor } from '../harness/backends';
import { identityOf } from '../harness/clients';
import { freshToken, placeOrder, trader } from '../harness/market';

const HISTORY = 3000;

/**
 * The exchange keeps every order it took, so an order's cost must not grow with that history: the
 * engine finds the orders it settles by their keys. Counted in the database as the order runs
 * (pg_stat_xact_user_tables: rows read by sequential scans in this transaction), not timed.
 */
describe.each(ENGINES)('settling a fill over a long history (%s)', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  it('reads no order outside the book: the fills find their orders by key', async () => {
    const token = await freshToken(backend);
    const seller = await trader(backend, { cash: 100, token, tokens: 50 });
    const buyer = await trader(backend, { cash: 1000 });
    await backend.db.exec(`
      insert into orders (user_id, token_id, side, type, price, amount, status)
      select '${seller.id}', '${token}', 'sell', 'limit', 10, 1, 'cancelled' from generate_series(1, ${HISTORY});
      analyze orders;`);
    expect((await placeOrder(seller.client, token, 'sell', 'limit', 5, 10)).error).toBeNull();

    const { read, result } = await backend.db.transaction(async (tx) => {
      const caller = callerStatement(await identityOf(buyer.client), {
        method: 'POST',
        path: '/rest/v1/rpc/place_order',
        headers: {},
        cookies: {},
      });
      await tx.query(caller.text, caller.values);
      const [placed] = await tx.query<{ result: { status: string; filled: number } }>(
        `select public.place_order($1, 'buy', 'limit', 5, 10) as result`,
        [token],
      );
      await tx.query('reset role');
      const [stats] = await tx.query<{ read: string }>(
        `select seq_tup_read::text as read from pg_stat_xact_user_tables where schemaname = 'public' and relname = 'orders'`,
      );
      return { read: Number(stats!.read), result: placed!.result };
    });
    expect(result).toMatchObject({ status: 'filled', filled: 5 });
    expect(read).toBeLessThan(HISTORY);
  });
});
