import type { Backend } from '../server/index';
import { callerStatement } from '../server/db/caller';
import { ENGINES, backendFor } from './harness/backends';
import { identityOf } from './harness/clients';
import { freshToken, placeOrder, trader } from './harness/market';

const HISTORY = 3000;
/** Bids in the deep book, placed by bidders of at most 150 open orders each (the exchange's limit is higher). */
const DEPTH = 450;

const ORDERS_READ = `select seq_tup_read::int as seq, idx_tup_fetch::int as idx
  from pg_stat_xact_user_tables where schemaname = 'public' and relname = 'orders'`;
/** Holdings rows updated, and of them those updated in place (HOT: no new index entries). */
const HOLDINGS_WRITTEN = `select n_tup_upd::int as updated, n_tup_hot_upd::int as in_place
  from pg_stat_xact_user_tables where schemaname = 'public' and relname = 'holdings'`;

/**
 * Runs place_order as `client`'s user in a transaction of its own: its result, and what `counts`
 * counted in it (by default the orders it read, by sequential and by index scans). Counted as the
 * growth within the transaction: the counts may also hold the connection's earlier transactions,
 * not yet reported.
 */
async function placeCounting<K extends string = 'seq' | 'idx'>(
  backend: Backend,
  client: Parameters<typeof identityOf>[0],
  call: string,
  args: unknown[],
  counts = ORDERS_READ,
) {
  return backend.db.transaction(async (tx) => {
    const [before] = await tx.query<Record<K, number>>(counts);
    const caller = callerStatement(await identityOf(client), {
      method: 'POST',
      path: '/rest/v1/rpc/place_order',
      headers: {},
      cookies: {},
    });
    await tx.query(caller.text, caller.values);
    const [placed] = await tx.query<{ result: { status: string; filled: number } }>(`select ${call} as result`, args);
    await tx.query('reset role');
    const [after] = await tx.query<Record<K, number>>(counts);
    const grown = Object.fromEntries(Object.keys(after!).map((k) => [k, after![k as K] - before![k as K]]));
    return { ...(grown as Record<K, number>), result: placed!.result };
  });
}

/**
 * The exchange keeps every order it took, and a book can be deep, so an order's cost must grow with
 * neither: the engine finds the orders it settles by their keys, and reads the book only as far as
 * it matches; and it updates balances in place. Counted in the database as the order runs (rows
 * read and written in its transaction), not timed.
 */
describe.each(ENGINES)('what an order reads and writes, over a long history and a deep book (%s)', (engine) => {
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

    const { seq, result } = await placeCounting(
      backend,
      buyer.client,
      `public.place_order($1, 'buy', 'limit', 5, 10)`,
      [token],
    );
    expect(result).toMatchObject({ status: 'filled', filled: 5 });
    expect(seq).toBeLessThan(HISTORY);
  });

  it("reads no order outside the book when one is cancelled, or expired by its owner's crossing order", async () => {
    const token = await freshToken(backend);
    const owner = await trader(backend, { cash: 1000, token, tokens: 50 });
    await backend.db.exec(`
      insert into orders (user_id, token_id, side, type, price, amount, status)
      select '${owner.id}', '${token}', 'sell', 'limit', 10, 1, 'cancelled' from generate_series(1, ${HISTORY});
      analyze orders;`);
    const first = await placeOrder(owner.client, token, 'sell', 'limit', 5, 10);
    expect(first.error).toBeNull();

    // Both tell the market the level the order left, and look for a take-profit or stop partner.
    const cancelled = await placeCounting(backend, owner.client, 'public.cancel_order($1)', [
      (first.data as { order_id: number }).order_id,
    ]);
    expect(cancelled.result).toMatchObject({ status: 'cancelled' });
    expect((await placeOrder(owner.client, token, 'sell', 'limit', 5, 10)).error).toBeNull();
    const crossing = await placeCounting(backend, owner.client, `public.place_order($1, 'buy', 'limit', 5, 10)`, [
      token,
    ]);
    expect(crossing.result).toMatchObject({ status: 'open', filled: 0 });
    for (const { seq } of [cancelled, crossing]) expect(seq).toBeLessThan(HISTORY);
  });

  it('reads the book in price-time order and stops when the order is filled, however deep the book', async () => {
    const token = await freshToken(backend);
    const sellers = await Promise.all([0, 1, 2].map(() => trader(backend, { cash: 100, token, tokens: DEPTH })));
    const bidder = await trader(backend, { cash: 1000 });
    const taker = await trader(backend, { cash: 100, token, tokens: 50 });
    // A deep book of asks from 20.00 up and a few bids from 5.00 down, placed by the engine (so
    // tokens and cash are held back as for any resting order).
    const as = (who: { id: string }) =>
      `select set_config('request.jwt.claims', json_build_object('sub', '${who.id}', 'role', 'authenticated')::text, false);`;
    await backend.db.exec(`
      ${sellers
        .map(
          (s, i) => `${as(s)}
      select public.place_order('${token}', 'sell', 'limit', 1, round(20 + g / 100.0, 2))
        from generate_series(${(i * DEPTH) / 3}, ${((i + 1) * DEPTH) / 3 - 1}) g;`,
        )
        .join('')}
      ${as(bidder)}
      select public.place_order('${token}', 'buy', 'limit', 1, round(5 - g / 100.0, 2)) from generate_series(0, 19) g;
      select set_config('request.jwt.claims', '', false);
      analyze orders;`);

    // A sell between the sides meets no order; one that crosses meets only the bids it fills. Neither
    // reads the asks on its own side (the engine used to read every ask above its price, and drop them).
    const resting = await placeCounting(backend, taker.client, `public.place_order($1, 'sell', 'limit', 1, 10)`, [
      token,
    ]);
    expect(resting.result).toMatchObject({ status: 'open', filled: 0 });
    const crossing = await placeCounting(backend, taker.client, `public.place_order($1, 'sell', 'limit', 3, 4.98)`, [
      token,
    ]);
    expect(crossing.result).toMatchObject({ status: 'filled', filled: 3, average_price: 4.99 });
    for (const { seq, idx } of [resting, crossing]) expect(seq + idx).toBeLessThan(50);
  });

  it("updates both sides' holdings in place: a balance is in no index", async () => {
    const token = await freshToken(backend);
    const seller = await trader(backend, { cash: 100, token, tokens: 50 });
    const buyer = await trader(backend, { cash: 1000, token, tokens: 1 });
    expect((await placeOrder(seller.client, token, 'sell', 'limit', 5, 10)).error).toBeNull();

    const written = await placeCounting<'updated' | 'in_place'>(
      backend,
      buyer.client,
      `public.place_order($1, 'buy', 'limit', 5, 10)`,
      [token],
      HOLDINGS_WRITTEN,
    );
    expect(written.result).toMatchObject({ status: 'filled', filled: 5 });
    expect(written.updated).toBe(2); // the seller's 50 down to 45, the buyer's 1 up to 6
    expect(written.in_place).toBe(2);
  });
});
