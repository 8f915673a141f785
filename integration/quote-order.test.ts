import fc from 'fast-check';
import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { book, cash, freshToken, invariantViolations, placeOrder, trader, type Trader } from './harness/market';

jest.setTimeout(300_000);

interface Quote {
  filled: number;
  value: number;
  fee: number;
  total: number;
  average_price: number | null;
  best_price: number | null;
  worst_price: number | null;
  levels: { price: number; amount: number }[];
  remaining: number;
  resting: number;
  rest_cost: number;
  stopped_by: string;
  last_price: number;
  band_edge: number;
  impact_bps: number | null;
  cash: number;
  held: number;
  blocked: string | null;
  refusal: string | null;
}

interface Placed {
  status: string;
  filled: number;
  resting: number;
  average_price: number | null;
  value: number;
  fee: number;
  total: number;
}

const quote = async (t: Trader, args: Record<string, unknown>) => {
  const { data, error } = await t.client.rpc('quote_order', args);
  if (error) throw new Error(error.message);
  return data as Quote;
};

/**
 * quote_order is the order panel's estimate: on any book, what it says an order would do is what
 * place_order then does, to the cent. The book is made of others' limit orders (some beyond the
 * market band, some the taker's own, which the engine expires and the quote skips).
 */
describe.each(ENGINES)('quote_order walks the book as the engine does on %s', (engine) => {
  let backend: Backend;
  let makers: Trader[];
  beforeAll(async () => {
    backend = await backendFor(engine)();
    makers = [];
    for (let i = 0; i < 3; i++) makers.push(await trader(backend, { cash: 1_000_000 }));
  });
  afterAll(() => backend.close());

  const level = fc.record({
    maker: fc.integer({ min: 0, max: 3 }), // 3: the taker's own order (a sell)
    side: fc.constantFrom<'buy' | 'sell'>('buy', 'sell'),
    cents: fc.integer({ min: 700, max: 1300 }), // $7 to $13 around the $10 issue price, the band's edges within
    amount: fc.integer({ min: 1, max: 40 }),
  });
  const order = fc.record({
    side: fc.constantFrom<'buy' | 'sell'>('buy', 'sell'),
    type: fc.constantFrom<'market' | 'limit'>('market', 'limit'),
    amount: fc.integer({ min: 1, max: 120 }),
    cents: fc.integer({ min: 700, max: 1300 }),
    tif: fc.constantFrom('gtc', 'ioc', 'fok'),
    postOnly: fc.boolean(),
    cash: fc.integer({ min: 20, max: 2_000 }),
  });

  it('on random books, the quote is what place_order does', async () => {
    const seen = { refused: 0, makerTerms: 0, filled: 0, partly: 0, rested: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(level, { minLength: 0, maxLength: 12 }), order, async (levels, o) => {
        const token = await freshToken(backend);
        const taker = await trader(backend, { cash: o.cash, token, tokens: 1000 });
        for (const m of makers) await backend.db.query('select private.issue_tokens($1, $2, 1000)', [token, m.id]);
        // Makers never cross each other: a sell rests above every buy.
        for (const l of levels) {
          const who = l.maker === 3 && l.side === 'sell' ? taker : makers[l.maker % 3]!;
          const price = (l.side === 'sell' ? Math.max(l.cents, 1001) : Math.min(l.cents, 1000)) / 100;
          const { error } = await placeOrder(who.client, token, l.side, 'limit', l.amount, price);
          expect(error).toBeNull();
        }
        const price = o.type === 'limit' ? o.cents / 100 : null;
        const tif = o.type === 'limit' ? o.tif : 'gtc';
        const postOnly = o.type === 'limit' && tif === 'gtc' && o.postOnly;
        const q = await quote(taker, {
          p_token: token,
          p_side: o.side,
          p_type: o.type,
          p_amount: o.amount,
          p_price: price,
          p_time_in_force: tif,
          p_post_only: postOnly,
        });
        const { data, error } = await taker.client.rpc('place_order', {
          p_token: token,
          p_side: o.side,
          p_type: o.type,
          p_amount: o.amount,
          p_price: price,
          p_time_in_force: tif,
          p_post_only: postOnly,
        });
        if (error) {
          // Refused: the quote said so in the engine's words, or, for a market order, met nothing.
          expect(q.refusal ?? (o.type === 'market' && q.filled === 0 ? error.message : null)).toBe(error.message);
          seen.refused++;
          if (/^(Post-only|Fill or kill)/.test(error.message)) seen.makerTerms++;
          return;
        }
        expect(q.refusal).toBeNull();
        const placed = data as Placed;
        expect({
          filled: placed.filled,
          resting: placed.resting,
          value: Number(placed.value),
          fee: Number(placed.fee),
          total: Number(placed.total),
          average_price: placed.average_price === null ? null : Number(placed.average_price),
        }).toEqual({
          filled: q.filled,
          resting: q.resting,
          value: Number(q.value),
          fee: Number(q.fee),
          total: Number(q.total),
          average_price: q.average_price === null ? null : Number(q.average_price),
        });
        expect(q.levels.reduce((n, l) => n + l.amount, 0)).toBe(q.filled);
        if (placed.filled === o.amount) seen.filled++;
        else if (placed.filled > 0) seen.partly++;
        if (placed.resting > 0) seen.rested++;
      }),
      { numRuns: 30, seed: 65 },
    );
    // The runs met each case the engine has: the property held where it matters.
    expect(Object.values(seen).every((n) => n > 0)).toBe(true);
    expect(await invariantViolations(backend)).toEqual([]);
  });

  it('"spend $50": the whole tokens the sum covers at the book\'s prices, and the rest stays cash', async () => {
    const token = await freshToken(backend);
    const seller = await trader(backend, { token, tokens: 100 });
    expect((await placeOrder(seller.client, token, 'sell', 'limit', 2, 10.2)).error).toBeNull();
    expect((await placeOrder(seller.client, token, 'sell', 'limit', 10, 10.5)).error).toBeNull();
    const buyer = await trader(backend, { cash: 1000 });

    const q = await quote(buyer, { p_token: token, p_side: 'buy', p_type: 'market', p_max_total: 50 });
    // 2 at $10.20 and 2 at $10.50 = $41.40 + $0.83 fee = $42.23; a fifth token would bring it to $52.94.
    expect(q).toMatchObject({ filled: 4, value: 41.4, fee: 0.83, total: 42.23, best_price: 10.2, worst_price: 10.5 });
    expect(q.levels).toEqual([
      { price: 10.2, amount: 2 },
      { price: 10.5, amount: 2 },
    ]);
    expect(q.stopped_by).toBe('cash');

    const { data, error } = await buyer.client.rpc('place_order', {
      p_token: token,
      p_side: 'buy',
      p_type: 'market',
      p_amount: q.filled,
      p_max_total: 50,
    });
    expect(error).toBeNull();
    expect(data).toMatchObject({ status: 'filled', filled: 4, total: 42.23 });
    expect(await cash(backend, buyer.id)).toEqual({ available: 957.77, reserved: 0 });

    // The book moved up between quote and order: the cap holds, fewer tokens fill.
    expect((await placeOrder(seller.client, token, 'sell', 'limit', 5, 10.1)).error).toBeNull();
    await backend.db.query(`update orders set price = 12.5 where token_id = $1 and status = 'open'`, [token]);
    const capped = await buyer.client.rpc('place_order', {
      p_token: token,
      p_side: 'buy',
      p_type: 'market',
      p_amount: 4,
      p_max_total: 50,
    });
    expect(capped.data).toMatchObject({ filled: 3, total: 38.25 }); // 4 at $12.50 would be $51.00
    expect(Number((capped.data as Placed).total)).toBeLessThanOrEqual(50);
    expect(await invariantViolations(backend)).toEqual([]);
  });

  it('a quote changes nothing, says where the book stops an order, and refuses bad input in words', async () => {
    const token = await freshToken(backend);
    const seller = await trader(backend, { token, tokens: 100 });
    expect((await placeOrder(seller.client, token, 'sell', 'limit', 10, 11)).error).toBeNull();
    expect((await placeOrder(seller.client, token, 'sell', 'limit', 5, 12.5)).error).toBeNull(); // beyond the 20% band
    const buyer = await trader(backend, { cash: 100 });
    const before = { cash: await cash(backend, buyer.id), book: await book(backend, token) };

    const market = await quote(buyer, { p_token: token, p_side: 'buy', p_type: 'market', p_amount: 20 });
    // $100 covers 8 at $11 with the 2% fee ($89.76); the 9th would make $100.98.
    expect(market).toMatchObject({ filled: 8, remaining: 12, stopped_by: 'cash', band_edge: 12, impact_bps: 1000 });
    const rich = await trader(backend, { cash: 10_000 });
    expect(await quote(rich, { p_token: token, p_side: 'buy', p_type: 'market', p_amount: 20 })).toMatchObject({
      filled: 10,
      stopped_by: 'limit',
    });
    const limit = await quote(rich, {
      p_token: token,
      p_side: 'buy',
      p_type: 'limit',
      p_amount: 20,
      p_price: 13,
    });
    // 10 at $11 and 5 at $12.50 fill ($172.50); 5 rest at $13, holding back $65 and the fee's rise ($1.30).
    expect(limit).toMatchObject({ filled: 15, resting: 5, value: 172.5, rest_cost: 66.3, refusal: null });
    expect(
      (await quote(buyer, { p_token: token, p_side: 'buy', p_type: 'limit', p_amount: 20, p_price: 13 })).refusal,
    ).toBe('Insufficient funds: this order needs $265.20 (value + 2% fee) and you have $100.00 available.');
    expect({ cash: await cash(backend, buyer.id), book: await book(backend, token) }).toEqual(before);

    const refusal = async (args: Record<string, unknown>) =>
      (await buyer.client.rpc('quote_order', { p_token: token, ...args })).error?.message;
    expect(await refusal({ p_side: 'hold', p_amount: 1 })).toBe('The side must be buy or sell.');
    expect(await refusal({ p_side: 'buy', p_amount: 1.5 })).toBe(
      'The amount must be a whole number of tokens, at least 1.',
    );
    expect(await refusal({ p_side: 'buy', p_amount: -5 })).toBe(
      'The amount must be a whole number of tokens, at least 1.',
    );
    expect(await refusal({ p_side: 'buy', p_type: 'limit', p_amount: 1 })).toBe(
      'A limit order needs a price above $0.00.',
    );
    expect(await refusal({ p_side: 'sell', p_max_total: 50 })).toBe(
      'A spending limit is for market buys, above $0.00.',
    );
    expect(await refusal({ p_side: 'buy' })).toBe('Give an amount of tokens or a sum to spend.');
    const spend = (p_max_total: unknown) =>
      buyer.client.rpc('place_order', { p_token: token, p_side: 'buy', p_type: 'market', p_amount: 1, p_max_total });
    expect((await spend(0)).error?.message).toBe('The amount to spend must be above $0.00, with at most two decimals.');
    expect((await spend(10.001)).error?.message).toBe(
      'The amount to spend must be above $0.00, with at most two decimals.',
    );
    expect(
      (
        await buyer.client.rpc('place_order', {
          p_token: token,
          p_side: 'sell',
          p_type: 'market',
          p_amount: 1,
          p_max_total: 10,
        })
      ).error?.message,
    ).toBe('A spending limit (p_max_total) is for market buys only.');
    expect({ cash: await cash(backend, buyer.id), book: await book(backend, token) }).toEqual(before);
  });
});
