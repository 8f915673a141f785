import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { cash, freshToken, holding, invariantViolations, placeOrder, trader } from './harness/market';

interface Placed {
  order_id: number;
  status: string;
  filled: number;
  resting: number;
  replaced?: number;
}

describe.each(ENGINES)('changing a resting order on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  /** An order's row, its figures as numbers (the engines spell bigint and numeric differently). */
  const order = async (id: number) => {
    const [row] = await backend.db.query<Record<string, string | number>>(
      'select status, amount, filled, price, reserved from orders where id = $1',
      [id],
    );
    const { status, ...figures } = row!;
    return { status, ...Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, Number(v)])) };
  };

  it('cancels the order and places the new one in one step: the funds follow, the old one stays in the history', async () => {
    const token = await freshToken(backend);
    const me = await trader(backend, { cash: 1000 });
    const first = (await placeOrder(me.client, token, 'buy', 'limit', 10, 5)).data as Placed;
    const { data, error } = await me.client.rpc('replace_order', { p_order: first.order_id, p_amount: 20, p_price: 6 });
    expect(error).toBeNull();
    const second = data as Placed;
    expect(second).toMatchObject({ status: 'open', resting: 20, replaced: first.order_id });
    expect(second.order_id).not.toBe(first.order_id);
    expect(await order(first.order_id)).toMatchObject({ status: 'cancelled', reserved: 0 });
    expect(await order(second.order_id)).toMatchObject({ status: 'open', amount: 20, price: 6 });
    // 20 x $6.00 = $120.00 and its 2% fee held back, nothing more.
    expect(await cash(backend, me.id)).toEqual({ available: 877.6, reserved: 122.4 });
    expect(await invariantViolations(backend)).toEqual([]);
  });

  it('changes nothing when the new order cannot be placed, or the order is not the caller’s or not open', async () => {
    const token = await freshToken(backend);
    const me = await trader(backend, { cash: 100 });
    const other = await trader(backend, { cash: 100 });
    const mine = (await placeOrder(me.client, token, 'buy', 'limit', 10, 5)).data as Placed;
    const before = { order: await order(mine.order_id), cash: await cash(backend, me.id) };
    const replace = (c = me.client, p_amount = 10, p_price = 5) =>
      c.rpc('replace_order', { p_order: mine.order_id, p_amount, p_price });

    expect((await replace(me.client, 10, 5)).error?.message).toBe(
      `Order #${mine.order_id} already rests at that price and amount.`,
    );
    expect((await replace(me.client, 100, 5)).error?.message).toMatch(/^Insufficient funds/);
    expect((await replace(me.client, 10, 5.001)).error?.message).toBe('The limit price has at most two decimals.');
    expect((await replace(other.client, 10, 6)).error?.message).toBe(`You have no order #${mine.order_id}.`);
    await backend.db.query(`update tokens set halt_reason = 'Checks.', halted_at = now() where id = $1`, [token]);
    expect((await replace(me.client, 10, 6)).error?.message).toMatch(/is halted: Checks\. Cancelling open orders/);
    await backend.db.query('update tokens set halt_reason = null, halted_at = null where id = $1', [token]);
    expect({ order: await order(mine.order_id), cash: await cash(backend, me.id) }).toEqual(before);

    expect((await me.client.rpc('cancel_order', { p_order: mine.order_id })).error).toBeNull();
    expect((await replace(me.client, 10, 6)).error?.message).toBe(`Order #${mine.order_id} is already cancelled.`);
    expect(await invariantViolations(backend)).toEqual([]);
  });

  it('a partly filled order is replaced for what it has left; a new price that crosses trades at once', async () => {
    const token = await freshToken(backend);
    const seller = await trader(backend, { token, tokens: 100 });
    const buyer = await trader(backend, { cash: 1000 });
    const ask = (await placeOrder(seller.client, token, 'sell', 'limit', 30, 10)).data as Placed;
    expect((await placeOrder(buyer.client, token, 'buy', 'market', 10)).data).toMatchObject({ filled: 10 });
    expect(await order(ask.order_id)).toMatchObject({ status: 'open', filled: 10 });

    // The seller lowers the 20 left to $9.50; the buyer's bid at $9.00 is not crossed yet.
    await placeOrder(buyer.client, token, 'buy', 'limit', 5, 9);
    const lowered = (await seller.client.rpc('replace_order', { p_order: ask.order_id, p_amount: 20, p_price: 9.5 }))
      .data as Placed;
    expect(lowered).toMatchObject({ status: 'open', resting: 20 });
    expect(await order(ask.order_id)).toMatchObject({ status: 'cancelled', filled: 10 });
    // Then to $9.00: it meets the bid and trades 5 at once, 15 resting.
    const crossed = (await seller.client.rpc('replace_order', { p_order: lowered.order_id, p_amount: 20, p_price: 9 }))
      .data as Placed;
    expect(crossed).toMatchObject({ filled: 5, resting: 15 });
    expect(await holding(backend, seller.id, token)).toEqual({ amount: 85, reserved: 15 });
    expect(await invariantViolations(backend)).toEqual([]);
  });

  it('an order that traded while its owner was changing it is left as it was, and the answer says what is filled now', async () => {
    const token = await freshToken(backend);
    const seller = await trader(backend, { token, tokens: 100 });
    const buyer = await trader(backend, { cash: 1000 });
    const ask = (await placeOrder(seller.client, token, 'sell', 'limit', 100, 10)).data as Placed;
    // The seller opens Edit with all 100 left; a taker buys 60 before they save.
    expect((await placeOrder(buyer.client, token, 'buy', 'market', 60)).data).toMatchObject({ filled: 60 });
    const stale = await seller.client.rpc('replace_order', {
      p_order: ask.order_id,
      p_amount: 100,
      p_price: 9.5,
      p_filled: 0,
    });
    expect(stale.status).toBe(409);
    expect(stale.error).toMatchObject({
      code: 'PT409',
      message: `Order #${ask.order_id} traded while you were changing it: 60 of 100 tokens are filled now, 40 left. Nothing was changed.`,
    });
    expect(await order(ask.order_id)).toMatchObject({ status: 'open', filled: 60, price: 10 });
    expect(await holding(backend, seller.id, token)).toEqual({ amount: 40, reserved: 40 });

    // Made against what is filled now, the change goes through for the 40 left.
    const { data, error } = await seller.client.rpc('replace_order', {
      p_order: ask.order_id,
      p_amount: 40,
      p_price: 9.5,
      p_filled: 60,
    });
    expect(error).toBeNull();
    expect(data).toMatchObject({ status: 'open', resting: 40, replaced: ask.order_id });
    expect(await holding(backend, seller.id, token)).toEqual({ amount: 40, reserved: 40 });
    expect(await invariantViolations(backend)).toEqual([]);
  });
});
