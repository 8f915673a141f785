import type { Backend } from '../server/index';
import { ENGINES, backendFor, eventually } from './harness/backends';
import { ANON_KEY, keyClient } from './harness/clients';
import { NO_RATE_LIMITS } from '../server/http/rateLimit';
import {
  cash,
  freshToken,
  holding,
  invariantViolations,
  makeKey,
  placeOrder,
  trader,
  type Trader,
} from './harness/market';

jest.setTimeout(90_000);

const openOrders = async (backend: Backend, userId: string) =>
  (
    await backend.db.query<{ id: number }>(
      `select id from orders where user_id = $1 and status in ('open', 'pending') order by id`,
      [userId],
    )
  ).map((o) => Number(o.id));

describe.each(ENGINES)('orders for bots on %s', (engine) => {
  let backend: Backend;
  let token: string;
  let bot: Trader;
  beforeAll(async () => {
    backend = await backendFor(engine)();
    token = await freshToken(backend);
    bot = await trader(backend, { cash: 10_000, token, tokens: 500 });
  });
  afterAll(() => backend.close());

  it('places an order once for a client order id, however many retries arrive at once', async () => {
    const api = keyClient(backend.url, (await makeKey(bot, ['read', 'trade'])).key);
    const args = { p_token: token, p_side: 'buy', p_type: 'limit', p_amount: 3, p_price: 5, p_client_order_id: 'mm-1' };
    const before = await cash(backend, bot.id);
    const answers = await Promise.all(Array.from({ length: 6 }, () => api.rpc('place_order', args)));
    for (const a of answers) expect(a.error).toBeNull();
    const ids = new Set(answers.map((a) => (a.data as { order_id: number }).order_id));
    expect(ids.size).toBe(1);
    expect(answers.filter((a) => (a.data as { replayed?: boolean }).replayed).length).toBe(5);
    const [id] = [...ids];
    expect((await backend.db.query(`select 1 from orders where user_id = $1 and price = 5`, [bot.id])).length).toBe(1);
    expect((await cash(backend, bot.id)).reserved - before.reserved).toBeCloseTo(15.3, 2);
    // A refused order keeps nothing of its id: the corrected retry is placed.
    const refused = await api.rpc('place_order', { ...args, p_price: -1, p_client_order_id: 'mm-2' });
    expect(refused.error?.message).toMatch(/price/i);
    const placed = await api.rpc('place_order', { ...args, p_client_order_id: 'mm-2' });
    expect(placed.error).toBeNull();
    expect((placed.data as { order_id: number }).order_id).not.toBe(id);
    const bad = await api.rpc('place_order', { ...args, p_client_order_id: 'no spaces please' });
    expect(bad.error?.message).toBe('A client order id has 1 to 64 letters, digits or . _ : -');
    // Another account's same id is its own.
    const other = await trader(backend, { cash: 100 });
    const theirs = await placeOrder(other.client, token, 'buy', 'limit', 1, 4);
    expect(theirs.error).toBeNull();
    const same = await other.client.rpc('place_order', { ...args, p_amount: 1, p_client_order_id: 'mm-1' });
    expect(same.data).not.toMatchObject({ replayed: true });
  });

  it('places a batch, each order on its own: one refusal leaves the others placed', async () => {
    const second = await freshToken(backend);
    await backend.db.query('select private.issue_tokens($1, $2, 100)', [second, bot.id]);
    const before = await openOrders(backend, bot.id);
    const { data, error } = await bot.client.rpc('place_orders', {
      p_orders: [
        { token, side: 'buy', type: 'limit', amount: 2, price: 6 },
        { token: second, side: 'sell', type: 'limit', amount: 5, price: 30 },
        { token, side: 'sell', type: 'limit', amount: 1_000_000, price: 50 },
        { token, side: 'buy', type: 'limit', amount: 2, price: 'six' },
        'not an order',
        { token: second, side: 'buy', type: 'limit', amount: 1, price: 7, client_order_id: 'b-1' },
      ],
    });
    expect(error).toBeNull();
    const results = data as { order_id?: number; status?: string; error?: string }[];
    expect(results.map((r) => r.error ?? r.status)).toEqual([
      'open',
      'open',
      'The amount cannot exceed the total supply of 10000 tokens.',
      expect.stringMatching(/^Order 4: invalid input syntax for type numeric/),
      'Each order is a JSON object.',
      'open',
    ]);
    expect((await openOrders(backend, bot.id)).length - before.length).toBe(3);
    const tooMany = await bot.client.rpc('place_orders', {
      p_orders: Array.from({ length: 21 }, () => ({ token, side: 'buy', type: 'limit', amount: 1, price: 1 })),
    });
    expect(tooMany.error?.message).toBe('Send 1 to 20 orders, as a JSON array.');
    // Cancelling several: each on its own too.
    const ids = results.filter((r) => r.order_id).map((r) => r.order_id!);
    const cancelled = await bot.client.rpc('cancel_orders', { p_orders: [...ids, 999_999_999] });
    expect(cancelled.error).toBeNull();
    expect((cancelled.data as { status?: string; error?: string }[]).map((r) => r.error ?? r.status)).toEqual([
      'cancelled',
      'cancelled',
      'cancelled',
      'You have no order #999999999.',
    ]);
    expect(await invariantViolations(backend)).toEqual([]);
  });

  it("cancels every open order when the dead-man's switch is not called again in time", async () => {
    const t = await trader(backend, { cash: 500, token, tokens: 20 });
    const api = keyClient(backend.url, (await makeKey(t, ['read', 'trade'])).key);
    expect((await placeOrder(api, token, 'buy', 'limit', 2, 3)).error).toBeNull();
    expect((await placeOrder(api, token, 'sell', 'limit', 4, 90)).error).toBeNull();
    const armed = await api.rpc('cancel_all_after', { p_seconds: 2 });
    expect(armed.data).toMatchObject({ armed: true, seconds: 2 });
    // A heartbeat within the time keeps the orders.
    await new Promise((r) => setTimeout(r, 1_200));
    expect((await api.rpc('cancel_all_after', { p_seconds: 2 })).error).toBeNull();
    await new Promise((r) => setTimeout(r, 1_200));
    expect(await openOrders(backend, t.id)).toHaveLength(2);
    // Then silence: cancelled after the deadline, the reservations released, the owner told.
    await eventually(async () => ((await openOrders(backend, t.id)).length ? undefined : true), 6_000);
    expect(await cash(backend, t.id)).toMatchObject({ available: 500, reserved: 0 });
    expect(await holding(backend, t.id, token)).toEqual({ amount: 20, reserved: 0 });
    const mail = await backend.db.query<{ body: string }>(
      `select body from private.account_mail where user_id = $1 and subject like '%dead-man%'`,
      [t.id],
    );
    expect(mail[0]!.body).toMatch(/cancelled your 2 open orders/);
    // Turned off, it never fires.
    expect((await placeOrder(api, token, 'buy', 'limit', 1, 3)).error).toBeNull();
    await api.rpc('cancel_all_after', { p_seconds: 1 });
    expect((await api.rpc('cancel_all_after', { p_seconds: 0 })).data).toMatchObject({ armed: false });
    await new Promise((r) => setTimeout(r, 2_500));
    expect(await openOrders(backend, t.id)).toHaveLength(1);
    expect((await api.rpc('cancel_all_after', { p_seconds: -1 })).error?.message).toMatch(/1 to 86400, or 0/);
  });
});

describe.each(ENGINES)('API rate limits on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine, {
      rateLimits: {
        ...NO_RATE_LIMITS,
        apiKey: { capacity: 3, perSeconds: 300 },
        apiAccount: { capacity: 5, perSeconds: 300 },
      },
    })();
  });
  afterAll(() => backend.close());

  const get = (key: string) =>
    fetch(`${backend.url}/rest/v1/orders?select=id`, { headers: { apikey: ANON_KEY, Authorization: `Bearer ${key}` } });

  it('counts each key and its account, says where each answer stands, and refuses past the limit with 429', async () => {
    const t = await trader(backend);
    const [one, two] = [await makeKey(t, ['read']), await makeKey(t, ['read'])];
    const seen = [];
    for (let i = 0; i < 4; i++) {
      const r = await get(one.key);
      seen.push([r.status, r.headers.get('ratelimit-limit'), r.headers.get('ratelimit-remaining')]);
      if (r.status === 429) {
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(((await r.json()) as { message: string }).message).toMatch(
          /^Too many requests with this API key: wait \d+ seconds?/,
        );
      }
    }
    expect(seen).toEqual([
      [200, '3', '2'],
      [200, '3', '1'],
      [200, '3', '0'],
      [429, '3', '0'],
    ]);
    // The account's other key has its own bucket, but the account's is shared: 2 left of 5.
    const other = [];
    for (let i = 0; i < 3; i++) other.push((await get(two.key)).status);
    expect(other).toEqual([200, 200, 429]);
    // The person's own session is not counted against the keys.
    const own = await t.client.from('orders').select('id');
    expect(own.error).toBeNull();
  });
});
