import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import {
  cash,
  closeOffering,
  invariantViolations,
  offeringToken,
  placeOrder,
  trader,
  type Trader,
} from './harness/market';

/*
 * A new token's offering is a batch auction (offerings.sql). Each example below is computed by
 * hand: the clearing price, each bid's allocation, what each account paid and what the person
 * received. Fees are 2% on each side; the person's share is 20% of both.
 */
describe.each(ENGINES)('a batch-auction offering on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  const bid = (t: Trader, token: string, price: number, amount: number) =>
    t.client.rpc('place_offering_bid', { p_token: token, p_price: price, p_amount: amount });
  const shown = async (t: Trader, token: string) =>
    (
      await t.client
        .from('offering_book')
        .select('indicative_price, indicative_volume, demand, clearing_price, sold')
        .eq('token_id', token)
        .single()
    ).data;
  const allocations = async (token: string) =>
    Object.fromEntries(
      (
        await backend.db.query<{ user_id: string; allocated: string }>(
          `select b.user_id, b.allocated from offering_bids b join offerings f on f.id = b.offering_id where f.token_id = $1`,
          [token],
        )
      ).map((r) => [r.user_id, Number(r.allocated)]),
    );
  /** What buying `amount` at `price` costs with the 2% fee, to the cent. */
  const cost = (price: number, amount: number) => {
    const value = Math.round(price * amount * 100) / 100;
    return value + Math.round(value * 2) / 100;
  };

  it('takes bids within its rules, reserves their cost, and shows only the indicative price and demand', async () => {
    const person = await trader(backend);
    const token = await offeringToken(backend, { supply: 1000, price: 10, cap: 400, owner: person.id });
    const a = await trader(backend, { cash: 5000 });
    const b = await trader(backend, { cash: 5000 });
    const refusals: [number, number, string][] = [
      [9.99, 10, 'Bids start at the issue price, $10.00.'],
      [10, 401, 'One account may bid for at most 400 tokens in this offering.'],
      [10.001, 10, 'The limit price has at most two decimals.'],
      [10, 2.5, 'The amount must be a whole number of tokens, at least 1.'],
      [20, 400, 'Insufficient funds: this order needs $8,160.00 (value + 2% fee) and you have $5,000.00 available.'],
    ];
    for (const [price, amount, message] of refusals)
      expect((await bid(a, token, price, amount)).error?.message).toBe(message);
    expect((await bid(person, token, 10, 1)).error?.message).toBe("You cannot bid in your own token's offering.");
    expect(await cash(backend, a.id)).toEqual({ available: 5000, reserved: 0 });

    // Continuous trading waits for the close, in words.
    const refused = await placeOrder(a.client, token, 'buy', 'limit', 1, 10);
    expect(refused.error?.message).toMatch(
      /^Trading in t\w+ opens when its offering closes \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)\. Until then, place a bid in the offering\.$/,
    );

    expect((await bid(a, token, 12, 300)).error).toBeNull();
    expect(await cash(backend, a.id)).toEqual({ available: 5000 - cost(12, 300), reserved: cost(12, 300) });
    // A change re-reserves; a refused change leaves the bid as it was.
    expect((await bid(a, token, 11, 200)).error).toBeNull();
    expect(await cash(backend, a.id)).toEqual({ available: 5000 - cost(11, 200), reserved: cost(11, 200) });
    expect((await bid(a, token, 11, 401)).error).not.toBeNull();
    expect(await cash(backend, a.id)).toEqual({ available: 5000 - cost(11, 200), reserved: cost(11, 200) });
    expect((await bid(b, token, 10.5, 400)).error).toBeNull();

    // Sealed: each bidder reads their own bid; the book says only the indicative price and demand.
    const { data: mine } = await a.client.from('offering_bids').select('user_id, price, amount');
    expect(mine).toEqual([{ user_id: a.id, price: 11, amount: 200 }]);
    expect(await shown(b, token)).toEqual({
      indicative_price: 10.5,
      indicative_volume: 600,
      demand: 600,
      clearing_price: null,
      sold: 0,
    });

    // Cancelling releases all of it; cancelling again says there is nothing to cancel.
    expect((await b.client.rpc('cancel_offering_bid', { p_token: token })).error).toBeNull();
    expect(await cash(backend, b.id)).toEqual({ available: 5000, reserved: 0 });
    expect((await b.client.rpc('cancel_offering_bid', { p_token: token })).error?.message).toBe(
      'You have no bid in this offering.',
    );
    expect(await invariantViolations(backend)).toEqual([]);

    // Once the window has passed, no bid is taken or cancelled.
    await backend.db.query(
      `update offerings set opens_at = now() - interval '1 day', closes_at = now() - interval '1 second' where token_id = $1`,
      [token],
    );
    expect((await bid(b, token, 12, 10)).error?.message).toMatch(
      /^The offering of t\w+ has closed; its bids are being settled\.$/,
    );
    expect((await a.client.rpc('cancel_offering_bid', { p_token: token })).error?.message).toBe(
      'This offering has closed; its bids are settled.',
    );
    await closeOffering(backend, token);
    expect((await bid(b, token, 12, 10)).error?.message).toMatch(
      /^t\w+ has no open offering: trade it on the order book\.$/,
    );
  });

  it('clears where the most tokens fill, and between equal volumes where the least demand is left (the tie rule)', async () => {
    const person = await trader(backend);
    const token = await offeringToken(backend, { supply: 1000, price: 10, cap: 1000, owner: person.id });
    const [a, b, c] = [
      await trader(backend, { cash: 10_000 }),
      await trader(backend, { cash: 10_000 }),
      await trader(backend, { cash: 10_000 }),
    ];
    expect((await bid(a, token, 12, 600)).error).toBeNull();
    expect((await bid(b, token, 11, 400)).error).toBeNull();
    expect((await bid(c, token, 10, 500)).error).toBeNull();
    // $12 fills 600; $11 and $10 both fill 1,000, but $11 leaves no demand unfilled and $10 leaves 500.
    expect(await shown(a, token)).toMatchObject({ indicative_price: 11, indicative_volume: 1000, demand: 1500 });

    await closeOffering(backend, token);
    expect(await allocations(token)).toEqual({ [a.id]: 600, [b.id]: 400, [c.id]: 0 });
    // One price for everyone: A bid $12 and pays $11.
    expect(await cash(backend, a.id)).toEqual({ available: 10_000 - cost(11, 600), reserved: 0 });
    expect(await cash(backend, b.id)).toEqual({ available: 10_000 - cost(11, 400), reserved: 0 });
    expect(await cash(backend, c.id)).toEqual({ available: 10_000, reserved: 0 });
    // The person: $11,000 of value less the 2% seller's fee ($220), plus 20% of both sides' fees ($88).
    expect(await cash(backend, person.id)).toEqual({ available: 10_868, reserved: 0 });
    expect(await shown(a, token)).toEqual({
      indicative_price: null,
      indicative_volume: null,
      demand: null,
      clearing_price: 11,
      sold: 1000,
    });
    expect(await invariantViolations(backend)).toEqual([]);
  });

  it('shares the margin pro rata, rounded down, the rest by bid time; the cap holds', async () => {
    const token = await offeringToken(backend, { supply: 1000, price: 10, cap: 600 });
    const [a, b, c, d] = [
      await trader(backend, { cash: 10_000 }),
      await trader(backend, { cash: 10_000 }),
      await trader(backend, { cash: 10_000 }),
      await trader(backend, { cash: 10_000 }),
    ];
    expect((await bid(a, token, 12, 500)).error).toBeNull();
    expect((await bid(b, token, 11, 300)).error).toBeNull(); // before C's: first for the remainder
    expect((await bid(c, token, 11, 600)).error).toBeNull();
    expect((await bid(d, token, 10, 200)).error).toBeNull();
    // Over the cap, refused; the bid at the cap stands.
    expect((await bid(c, token, 11, 601)).error?.message).toBe(
      'One account may bid for at most 600 tokens in this offering.',
    );
    // At $11: A's 500 fill; 500 are left for 900 bid at the margin: B 300 x 5/9 = 166.67 -> 166,
    // C 600 x 5/9 = 333.33 -> 333; the one token left goes to the earlier bid, B's.
    await closeOffering(backend, token);
    expect(await allocations(token)).toEqual({ [a.id]: 500, [b.id]: 167, [c.id]: 333, [d.id]: 0 });
    expect(await cash(backend, b.id)).toEqual({ available: 10_000 - cost(11, 167), reserved: 0 });
    expect(await cash(backend, c.id)).toEqual({ available: 10_000 - cost(11, 333), reserved: 0 });
    expect(await cash(backend, d.id)).toEqual({ available: 10_000, reserved: 0 });
    const trades = await backend.db.query<{ price: string }>('select distinct price from trades where token_id = $1', [
      token,
    ]);
    expect(trades.map((t) => Number(t.price))).toEqual([11]);
    expect(await invariantViolations(backend)).toEqual([]);
  });

  it('a lower amount keeps its bid time, a higher price takes a new one', async () => {
    const token = await offeringToken(backend, { supply: 100, price: 10, cap: 100 });
    const [a, b] = [await trader(backend, { cash: 10_000 }), await trader(backend, { cash: 10_000 })];
    expect((await bid(a, token, 10, 90)).error).toBeNull();
    expect((await bid(b, token, 10, 90)).error).toBeNull();
    expect((await bid(a, token, 10, 80)).error).toBeNull(); // A stays first
    // 100 among 170 at $10: A 80 x 10/17 = 47.06 -> 47, B 90 x 10/17 = 52.94 -> 52; the one left to A, 48.
    const placed = async (t: Trader) =>
      (await t.client.from('offering_bids').select('placed_at').single()).data!.placed_at as string;
    const aFirst = await placed(a);
    expect(Date.parse(aFirst)).toBeLessThan(Date.parse(await placed(b)));
    await closeOffering(backend, token);
    expect(await allocations(token)).toEqual({ [a.id]: 48, [b.id]: 52 });

    const again = await offeringToken(backend, { supply: 100, price: 10, cap: 100 });
    expect((await bid(a, again, 10, 90)).error).toBeNull();
    expect((await bid(b, again, 10, 90)).error).toBeNull();
    expect((await bid(a, again, 10.01, 80)).error).toBeNull(); // a higher price: now above the margin
    await closeOffering(backend, again);
    // $10.01 fills 80 and $10 fills 100: $10 clears; A's 80 fill in full above it, B takes 20.
    expect(await allocations(again)).toEqual({ [a.id]: 80, [b.id]: 20 });
  });
});
