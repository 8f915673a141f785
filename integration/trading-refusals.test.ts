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

  it('self-trade: an order never trades with its owner; the crossed resting order is expired', async () => {
    const token = await freshToken(backend);
    const me = await trader(backend, { cash: 1000, token, tokens: 10 });
    await placeOrder(me.client, token, 'sell', 'limit', 5, 10);
    const { data } = await placeOrder(me.client, token, 'buy', 'limit', 5, 10);
    expect(data).toMatchObject({ status: 'open', filled: 0 });
    expect(await book(backend, token)).toEqual([{ side: 'buy', price: 10, amount: 5 }]);
    expect(await holding(backend, me.id, token)).toEqual({ amount: 10, reserved: 0 });
    const trades = await backend.db.query('select 1 from trades where token_id = $1', [token]);
    expect(trades).toHaveLength(0);
  });

  it('refuses a settlement in which an account would trade with itself, and moves nothing', async () => {
    const token = await freshToken(backend);
    const me = await trader(backend, { cash: 1000, token, tokens: 10 });
    const other = await trader(backend, { cash: 1000 });
    // Two fills of one settlement: the account buys in the first and sells in the second.
    const fills = JSON.stringify([
      {
        seq: 1,
        buyer: me.id,
        seller: other.id,
        price: 10,
        amount: 1,
        buyer_reserved: 0,
        buyer_completes: true,
        seller_reserved: false,
      },
      {
        seq: 2,
        buyer: other.id,
        seller: me.id,
        price: 10,
        amount: 1,
        buyer_reserved: 0,
        buyer_completes: true,
        seller_reserved: false,
      },
    ]);
    await expect(
      backend.db.query(`select private.settle_fills($1, 'buy', $2::jsonb)`, [token, fills]),
    ).rejects.toMatchObject({ message: 'An account cannot trade with itself.' });
    expect(await cash(backend, me.id)).toEqual({ available: 1000, reserved: 0 });
    expect(await holding(backend, me.id, token)).toEqual({ amount: 10, reserved: 0 });
    expect(await backend.db.query('select 1 from trades where token_id = $1', [token])).toEqual([]);
  });

  it("refuses a suspended account's order in the database, after the checks of its input", async () => {
    const me = await trader(backend, { cash: 1000 });
    const request = (side: string) =>
      backend.db.query(`select (private.check_order_request($1, $2, 'limit', 1, 10)).fee_bps`, [me.id, side]);
    expect(await request('buy')).toEqual([{ fee_bps: 200 }]);
    await backend.db.query(`update profiles set status = 'suspended' where id = $1`, [me.id]);
    await expect(request('hold')).rejects.toMatchObject({ message: 'The side must be buy or sell.' });
    await expect(request('buy')).rejects.toMatchObject({ message: 'Your account is suspended: trading is disabled.' });
  });
  it("cancels one's own open order, releasing what it held; never another's", async () => {
    const token = await freshToken(backend);
    const me = await trader(backend, { cash: 200, token, tokens: 10 });
    const other = await trader(backend, { cash: 10 });
    const buy = await placeOrder(me.client, token, 'buy', 'limit', 10, 5);
    const sell = await placeOrder(me.client, token, 'sell', 'limit', 4, 8);
    const open = await me.client.rpc('list_open_orders', { p_token: token });
    expect((open.data as { id: number }[]).map((o) => o.id).sort()).toEqual(
      [buy.data.order_id, sell.data.order_id].sort(),
    );
    expect((await other.client.rpc('cancel_order', { p_order: buy.data.order_id })).error?.message).toBe(
      `You have no order #${buy.data.order_id}.`,
    );
    expect((await me.client.rpc('cancel_order', { p_order: buy.data.order_id })).error).toBeNull();
    expect((await me.client.rpc('cancel_order', { p_order: sell.data.order_id })).error).toBeNull();
    expect(await cash(backend, me.id)).toEqual({ available: 200, reserved: 0 });
    expect(await holding(backend, me.id, token)).toEqual({ amount: 10, reserved: 0 });
    expect((await me.client.rpc('cancel_order', { p_order: buy.data.order_id })).error?.message).toBe(
      `Order #${buy.data.order_id} is already cancelled.`,
    );
    expect(await book(backend, token)).toEqual([]);
  });

  it('refuses an order that would overdraw cash or sell tokens not held, changing nothing', async () => {
    const token = await freshToken(backend);
    const poor = await trader(backend, { cash: 50, token, tokens: 3 });
    const overdraw = await placeOrder(poor.client, token, 'buy', 'limit', 10, 5);
    expect(overdraw.error?.message).toBe(
      'Insufficient funds: this order needs $51.00 (value + 2% fee) and you have $50.00 available.',
    );
    const oversell = await placeOrder(poor.client, token, 'sell', 'limit', 4, 5);
    expect(oversell.error?.message).toMatch(/You have 3 .* tokens available to sell; this order needs 4\./);
    // Tokens reserved by a resting order cannot be sold twice either.
    await placeOrder(poor.client, token, 'sell', 'limit', 3, 50);
    const twice = await placeOrder(poor.client, token, 'sell', 'market', 1);
    expect(twice.error?.message).toMatch(/You have 0 .* tokens available to sell/);
    expect(await cash(backend, poor.id)).toEqual({ available: 50, reserved: 0 });
    expect(await orderCount(token)).toBe(1);
  });

  it('refuses bad input with a clear message', async () => {
    const token = await freshToken(backend, 1000);
    const me = await trader(backend, { cash: 1000, token, tokens: 10 });
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ p_amount: 0 }, /whole number of tokens, at least 1/],
      [{ p_amount: -5 }, /whole number of tokens, at least 1/],
      [{ p_amount: 1.5 }, /whole number of tokens, at least 1/],
      [{ p_amount: 'NaN' }, /whole number of tokens, at least 1/],
      [{ p_amount: 'Infinity' }, /cannot exceed the total supply of 1000 tokens/],
      [{ p_amount: 1e12 }, /cannot exceed the total supply of 1000 tokens/],
      [{ p_amount: 'abc' }, /invalid input syntax for type numeric/],
      [{ p_token: '00000000-0000-0000-0000-000000000000' }, /There is no such token/],
      [{ p_side: 'hold' }, /side must be buy or sell/],
      [{ p_type: 'stop' }, /order type must be market or limit/],
      [{ p_price: 0 }, /price above \$0\.00/],
      [{ p_price: -1 }, /price above \$0\.00/],
      [{ p_price: 'NaN' }, /price above \$0\.00/],
      [{ p_price: 10.123 }, /at most two decimals/],
      [{ p_price: 5e6 }, /cannot exceed \$1,000,000\.00/],
      [{ p_type: 'market', p_price: 10 }, /A market order takes no price/],
    ];
    for (const [change, message] of cases) {
      const args = { p_token: token, p_side: 'buy', p_type: 'limit', p_amount: 1, p_price: 10, ...change };
      const { error, status } = await me.client.rpc('place_order', args);
      expect({ change, message: error?.message, status }).toEqual({
        change,
        message: expect.stringMatching(message),
        status: 400,
      });
    }
    expect(await orderCount(token)).toBe(0);
    expect(await cash(backend, me.id)).toEqual({ available: 1000, reserved: 0 });
  });

  it('refuses anonymous trading in the database', async () => {
    const token = await freshToken(backend);
    const res = await fetch(`${backend.url}/rest/v1/rpc/place_order`, {
      method: 'POST',
      headers: { apikey: (await import('./harness/clients')).ANON_KEY, 'Content-Type': 'application/json' },
      body: JSON.stringify({ p_token: token, p_side: 'buy', p_type: 'market', p_amount: 1 }),
    });
    expect(res.status).toBe(401);
  });
});

describe.each(ENGINES)('bounded growth on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  it('lists open orders a page at a time, and prunes old market events and unused sessions', async () => {
    const token = await freshToken(backend);
    const me = await trader(backend, { cash: 1000 });
    for (let i = 0; i < 5; i++) await placeOrder(me.client, token, 'buy', 'limit', 1, 1 + i);
    const { data: page } = await me.client.rpc('list_open_orders', { p_token: token, p_limit: 2, p_offset: 1 });
    expect((page as { price: number }[]).map((o) => o.price)).toEqual([4, 3]);
    expect(((await me.client.rpc('list_open_orders', { p_token: token })).data as unknown[]).length).toBe(5);
    // Across tokens, newest first, ties by id; one token's list holds only its own.
    const other = await freshToken(backend);
    await placeOrder(me.client, other, 'buy', 'limit', 1, 9);
    const prices = async (args: Record<string, unknown>) =>
      ((await me.client.rpc('list_open_orders', args)).data as { price: number }[]).map((o) => o.price);
    expect(await prices({ p_limit: 3 })).toEqual([9, 5, 4]);
    expect(await prices({ p_token: other })).toEqual([9]);
    await backend.db.query(`update orders set created_at = '2026-01-01' where user_id = $1`, [me.id]);
    expect(await prices({ p_limit: 3 })).toEqual([9, 5, 4]);
    expect(await prices({ p_token: token, p_offset: 3 })).toEqual([2, 1]);

    await backend.db.query(`update auth.sessions set created_at = now() - interval '40 days' where user_id = $1`, [
      me.id,
    ]);
    const [{ prune }] = (await backend.db.query<{ prune: Record<string, number> }>('select private.prune()')) as [
      { prune: Record<string, number> },
    ];
    expect(prune.sessions).toBeGreaterThanOrEqual(1);
    expect((await me.client.from('profiles').select('id').limit(1)).status).toBe(401); // that session ended
  });
});
