import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { client } from './harness/clients';
import { cash, freshToken, holding, invariantViolations, placeOrder, trader, type OrderArgs } from './harness/market';

describe.each(ENGINES)('cancel all orders on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  const openOrders = async (userId: string) =>
    (
      await backend.db.query<{ token_id: string }>(
        `select token_id from orders where user_id = $1 and status = 'open' order by id`,
        [userId],
      )
    ).map((o) => o.token_id);

  it("cancels the caller's open orders, on one token or all, and releases what they held", async () => {
    const [a, b] = [await freshToken(backend), await freshToken(backend)];
    const me = await trader(backend, { cash: 1_000, token: b, tokens: 50 });
    const other = await trader(backend, { cash: 1_000 });
    for (const args of [
      [a, 'buy', 'limit', 10, 5],
      [a, 'buy', 'limit', 5, 4],
      [b, 'sell', 'limit', 20, 30],
      [b, 'buy', 'limit', 3, 2],
    ] as OrderArgs[])
      expect((await placeOrder(me.client, ...args)).error).toBeNull();
    expect((await placeOrder(other.client, a, 'buy', 'limit', 7, 5)).error).toBeNull();
    expect((await cash(backend, me.id)).reserved).toBeGreaterThan(0);
    expect((await holding(backend, me.id, b)).reserved).toBe(20);

    // One token's only.
    const onA = await me.client.rpc('cancel_all_orders', { p_token: a });
    expect([onA.error, onA.data]).toEqual([null, 2]);
    expect(await openOrders(me.id)).toEqual([b, b]);
    // Then every other; the other trader's order stands.
    const rest = await me.client.rpc('cancel_all_orders');
    expect([rest.error, rest.data]).toEqual([null, 2]);
    expect(await openOrders(me.id)).toEqual([]);
    expect(await openOrders(other.id)).toEqual([a]);
    expect(await cash(backend, me.id)).toEqual({ available: 1_000, reserved: 0 });
    expect(await holding(backend, me.id, b)).toEqual({ amount: 50, reserved: 0 });
    // Nothing left: zero, not an error.
    const none = await me.client.rpc('cancel_all_orders');
    expect([none.error, none.data]).toEqual([null, 0]);
    expect(await invariantViolations(backend)).toEqual([]);
  });

  it('is for signed-in users only', async () => {
    const anon = await client(backend.url).rpc('cancel_all_orders');
    expect(anon.error?.code).toBe('42501');
  });
});
