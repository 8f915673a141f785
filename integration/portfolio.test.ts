import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { client } from './harness/clients';
import { freshToken, placeOrder, trader, type OrderArgs, type Trader } from './harness/market';

describe.each(ENGINES)('positions and profit & loss in the database on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  it("says a new account's first steps: funded, traded, connected, applied; the old ones are not new", async () => {
    const token = await freshToken(backend);
    const seller = await trader(backend, { token, tokens: 10 });
    const fresh = await trader(backend);
    const steps = async (t: Trader) => (await t.client.rpc('my_first_steps')).data;
    expect(await steps(fresh)).toEqual({
      new: true,
      deposited: false,
      traded: false,
      connected: false,
      applied: false,
    });
    await backend.db.query('select private.record_deposit($1, 100)', [fresh.id]);
    expect((await placeOrder(seller.client, token, 'sell', 'limit', 1, 10)).error).toBeNull();
    expect((await placeOrder(fresh.client, token, 'buy', 'market', 1)).error).toBeNull();
    expect(await steps(fresh)).toMatchObject({ new: true, deposited: true, traded: true, connected: false });
    await backend.db.query(`update profiles set created_at = now() - interval '31 days' where id = $1`, [fresh.id]);
    expect(await steps(fresh)).toMatchObject({ new: false });
    expect((await client(backend.url).rpc('my_first_steps')).error).not.toBeNull();
  });

  it("averages cost with fees, realizes on sells, and the P&L history ends at the dashboard's figures", async () => {
    const token = await freshToken(backend);
    const seller = await trader(backend, { cash: 1000, token, tokens: 100 });
    const buyer = await trader(backend, { cash: 10_000 });
    const order = (t: Trader, side: OrderArgs[1], type: OrderArgs[2], amount: number, price?: number) =>
      placeOrder(t.client, token, side, type, amount, price);

    await order(seller, 'sell', 'limit', 10, 10);
    await order(buyer, 'buy', 'market', 10); // cost 100 + 2.00 fee
    await order(seller, 'sell', 'limit', 10, 12);
    await order(buyer, 'buy', 'market', 10); // cost 120 + 2.40 fee: 20 tokens for 224.40, 11.22 each
    await order(seller, 'buy', 'limit', 5, 15);
    await order(buyer, 'sell', 'market', 5); // 75 - 1.50 fee = 73.50 for tokens that cost 56.10: realized 17.40

    const { data: positions, error } = await buyer.client.rpc('my_positions');
    expect(error).toBeNull();
    expect(positions).toEqual([
      expect.objectContaining({
        token_id: token,
        tokens: 15,
        avg_price: 11.22,
        cost: 168.3,
        price: 15,
        value: 225,
        pnl: 56.7,
        pnl_percent: 33.69,
      }),
    ]);
    const { data: pnl } = await buyer.client.rpc('my_pnl', { p_days: 30 });
    expect(pnl).toHaveLength(30);
    expect((pnl as unknown[])[29]).toMatchObject({ realized: 17.4, unrealized: 56.7, invested: 168.3, value: 225 });
    expect((pnl as unknown[])[0]).toMatchObject({ realized: 0, unrealized: 0, invested: 0, value: 0 }); // nothing a month ago

    // Each person sees only their own. The seller holds 85: 80 issued to it (no cost) and 5 it bought for 76.50.
    const { data: theirs } = await seller.client.rpc('my_positions');
    expect(theirs).toEqual([expect.objectContaining({ token_id: token, tokens: 85, cost: 76.5, avg_price: 0.9 })]);
  });
});
