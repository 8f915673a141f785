import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { book, cash, freshToken, holding, invariantViolations, placeOrder, trader } from './harness/market';

describe.each(ENGINES)('trading engine on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(async () => {
    expect(await invariantViolations(backend)).toEqual([]);
    await backend.close();
  });

  const orderCount = async (token: string) =>
    Number(
      (await backend.db.query<{ n: string }>('select count(*) as n from orders where token_id = $1', [token]))[0]!.n,
    );

  it('fills a market buy in full against a resting sell, moving cash, tokens and fees', async () => {
    const token = await freshToken(backend, 10_000, 12.5);
    const seller = await trader(backend, { token, tokens: 100 });
    const buyer = await trader(backend, { cash: 1000 });
    const ask = await placeOrder(seller.client, token, 'sell', 'limit', 10, 12.5);
    expect(ask.error).toBeNull();
    expect(ask.data).toMatchObject({ status: 'open', filled: 0, resting: 10 });
    expect(await holding(backend, seller.id, token)).toEqual({ amount: 100, reserved: 10 });

    const { data, error } = await placeOrder(buyer.client, token, 'buy', 'market', 10);
    expect(error).toBeNull();
    expect(data).toMatchObject({
      status: 'filled',
      filled: 10,
      average_price: 12.5,
      value: 125,
      fee: 2.5,
      total: 127.5,
    });
    expect(await cash(backend, buyer.id)).toEqual({ available: 872.5, reserved: 0 });
    expect(await cash(backend, seller.id)).toEqual({ available: 122.5, reserved: 0 });
    expect(await holding(backend, buyer.id, token)).toEqual({ amount: 10, reserved: 0 });
    expect(await holding(backend, seller.id, token)).toEqual({ amount: 90, reserved: 0 });
    expect(await book(backend, token)).toEqual([]);
    const [trade] = await backend.db.query<Record<string, string>>(
      'select price::text, amount::text, buyer_fee::text, seller_fee::text, taker_side from trades where token_id = $1',
      [token],
    );
    expect(trade).toEqual({ price: '12.50', amount: '10', buyer_fee: '2.50', seller_fee: '2.50', taker_side: 'buy' });
    // The taker's order is written with its outcome, closed no earlier than it reached the book.
    const [order] = await backend.db.query<Record<string, unknown>>(
      `select status, filled::int, filled_value::text, fees_paid::text, reserved::text, closed_at >= created_at as closed_after
       from orders where id = $1`,
      [(data as { order_id: number }).order_id],
    );
    expect(order).toEqual({
      status: 'filled',
      filled: 10,
      filled_value: '125.00',
      fees_paid: '2.50',
      reserved: '0.00',
      closed_after: true,
    });
    // The price follows the trade.
    const [market] = await backend.db.query<{ price: string }>('select price from market_tokens where id = $1', [
      token,
    ]);
    expect(Number(market!.price)).toBe(12.5);
  });

  it('refuses, when it commits, a trade that names an order never written', async () => {
    const token = await freshToken(backend);
    const seller = await trader(backend, { token, tokens: 10 });
    const buyer = await trader(backend, { cash: 100 });
    const unwritten = backend.db.transaction((tx) =>
      tx.query(
        `insert into trades (token_id, buy_order_id, buyer_id, seller_id, price, amount, taker_side, buyer_fee, seller_fee, fee_bps)
         values ($1, (select coalesce(max(id), 0) + 1000 from orders), $2, $3, 10, 1, 'buy', 0, 0, 0)`,
        [token, buyer.id, seller.id],
      ),
    );
    await expect(unwritten).rejects.toMatchObject({ code: '23503' });
    expect(await backend.db.query('select 1 from trades where token_id = $1', [token])).toEqual([]);
  });

  it('keeps the plans of what an order runs: generic plans, and no SQL function planned at each call', async () => {
    // A later definition of one of these (create or replace) drops the setting unless it restates it.
    const rows = await backend.db.query<{ fn: string; lang: string; generic: boolean }>(
      `select p.oid::regprocedure::text as fn, l.lanname as lang,
              coalesce('plan_cache_mode=force_generic_plan' = any(p.proconfig), false) as generic
       from pg_proc p join pg_language l on l.oid = p.prolang
       where p.oid in ('public.place_order'::regproc, 'public.cancel_order'::regproc, 'private.check_order_request'::regproc,
                       'private.check_order_funds'::regproc, 'private.match_order'::regproc, 'private.settle_fills'::regproc,
                       'private.release_order'::regproc, 'private.stats_on_trades'::regproc, 'private.stats_on_holding'::regproc,
                       'private.fee_bps'::regproc, 'private.fill_rows'::regproc)
       order by 1`,
    );
    expect(rows).toHaveLength(11);
    expect(rows.filter((r) => r.lang !== 'plpgsql')).toEqual([]);
    expect(rows.filter((r) => !r.generic && !/fee_bps|fill_rows/.test(r.fn))).toEqual([]);
  });

  it('plans no function at each call in the checks every request runs: the policies and the second step', async () => {
    // A SQL function with a SET clause is never inlined, and PostgreSQL before 18 plans its body at
    // each call: in a policy, once per statement of every read; in the order path, once per order.
    const perCall = await backend.db.query<{ fn: string }>(
      `select distinct p.oid::regprocedure::text as fn
       from pg_proc p join pg_language l on l.oid = p.prolang
       where l.lanname = 'sql' and p.proconfig is not null
         and (p.oid in (select d.refobjid from pg_depend d
                        where d.classid = 'pg_policy'::regclass and d.refclassid = 'pg_proc'::regclass)
              or p.oid in ('private.second_step_due'::regproc, 'private.require_second_step'::regproc,
                           'private.active_caller'::regproc, 'private.is_admin'::regproc))`,
    );
    expect(perCall).toEqual([]);
    // The policies do call functions: the query above would find a SQL one among them.
    const called = await backend.db.query<{ fn: string }>(
      `select distinct d.refobjid::regprocedure::text as fn from pg_depend d
       where d.classid = 'pg_policy'::regclass and d.refclassid = 'pg_proc'::regclass`,
    );
    expect(called.map((r) => r.fn)).toEqual(
      expect.arrayContaining(['private.is_admin()', 'private.second_step_due()']),
    );
  });

  it('fills partially: the rest of the resting order stays on the book', async () => {
    const token = await freshToken(backend);
    const seller = await trader(backend, { token, tokens: 50 });
    const buyer = await trader(backend, { cash: 500 });
    await placeOrder(seller.client, token, 'sell', 'limit', 10, 10);
    const { data } = await placeOrder(buyer.client, token, 'buy', 'limit', 4, 10);
    expect(data).toMatchObject({ status: 'filled', filled: 4 });
    expect(await book(backend, token)).toEqual([{ side: 'sell', price: 10, amount: 6 }]);
    expect(await holding(backend, seller.id, token)).toEqual({ amount: 46, reserved: 6 });
  });

  it('walks several price levels, best first, at the resting prices', async () => {
    const token = await freshToken(backend);
    const a = await trader(backend, { token, tokens: 20 });
    const b = await trader(backend, { token, tokens: 20 });
    const buyer = await trader(backend, { cash: 1000 });
    await placeOrder(b.client, token, 'sell', 'limit', 5, 10.5);
    await placeOrder(a.client, token, 'sell', 'limit', 5, 10);
    const { data } = await placeOrder(buyer.client, token, 'buy', 'market', 8);
    expect(data).toMatchObject({ filled: 8, value: 81.5, fee: 1.63, total: 83.13 }); // 5 x 10.00 + 3 x 10.50
    expect(await book(backend, token)).toEqual([{ side: 'sell', price: 10.5, amount: 2 }]);
    expect(await cash(backend, buyer.id)).toEqual({ available: 1000 - 83.13, reserved: 0 });
  });

  it('rests a limit order that does not cross, reserving its cost; a crossing sell then fills it', async () => {
    const token = await freshToken(backend);
    const buyer = await trader(backend, { cash: 100 });
    const seller = await trader(backend, { token, tokens: 10 });
    const { data } = await placeOrder(buyer.client, token, 'buy', 'limit', 5, 9);
    expect(data).toMatchObject({ status: 'open', resting: 5 });
    expect(await cash(backend, buyer.id)).toEqual({ available: 54.1, reserved: 45.9 });
    const sold = await placeOrder(seller.client, token, 'sell', 'market', 5);
    expect(sold.data).toMatchObject({ status: 'filled', filled: 5, value: 45, fee: 0.9, total: 44.1 });
    expect(await cash(backend, buyer.id)).toEqual({ available: 54.1, reserved: 0 });
    expect(await cash(backend, seller.id)).toEqual({ available: 44.1, reserved: 0 });
    expect(await holding(backend, buyer.id, token)).toEqual({ amount: 5, reserved: 0 });
  });

  it('refuses a market order into an empty book and changes nothing', async () => {
    const token = await freshToken(backend);
    const buyer = await trader(backend, { cash: 100 });
    const { error } = await placeOrder(buyer.client, token, 'buy', 'market', 1);
    expect(error?.message).toMatch(/There are no sell orders for .* right now/);
    expect(await orderCount(token)).toBe(0);
    expect(await cash(backend, buyer.id)).toEqual({ available: 100, reserved: 0 });
  });

  it('never lets a market buy spend more than the cash available', async () => {
    const token = await freshToken(backend);
    const seller = await trader(backend, { token, tokens: 100 });
    const buyer = await trader(backend, { cash: 100 });
    await placeOrder(seller.client, token, 'sell', 'limit', 100, 10);
    const { data } = await placeOrder(buyer.client, token, 'buy', 'market', 100);
    expect(data).toMatchObject({ status: 'cancelled', filled: 9, total: 91.8 }); // 10 would cost 102.00
    expect(await cash(backend, buyer.id)).toEqual({ available: 8.2, reserved: 0 });
  });
});
