import fc from 'fast-check';
import type { OrderQuote } from '@repex/shared-ui/contracts';
import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { cash, freshToken, invariantViolations, trader } from './harness/market';

jest.setTimeout(300_000);

type StopQuote = Pick<OrderQuote, 'stopped_by' | 'filled' | 'at_trigger' | 'term_refusal' | 'refusal'>;

const HOUR = 3_600_000;

/**
 * The order panel's checks of a stop, a pair and a good-til-date order come from quote_order, which
 * runs the engine's own term and funds checks: what it says of an order is what placing it does,
 * refusal for refusal and, for a buy stop, the cash held back to the cent.
 */
describe.each(ENGINES)('quote_order says what placing a stop does, on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  const stop = fc.record({
    side: fc.constantFrom<'buy' | 'sell'>('buy', 'sell'),
    limit: fc.boolean(),
    amount: fc.integer({ min: 1, max: 60 }),
    stopCents: fc.integer({ min: 800, max: 1200 }), // around the $10 last price: either side of it
    limitCents: fc.integer({ min: 800, max: 1200 }),
    takeProfitCents: fc.option(fc.integer({ min: 900, max: 1200 }), { nil: null }),
    // Hours to a good-til-date expiry (null: good til cancelled): past, under a minute, fine, too far.
    gtdHours: fc.constantFrom(null, null, null, null, 2, 2, -1, 0.001, 24 * 91),
    cash: fc.integer({ min: 50, max: 800 }),
    tokens: fc.integer({ min: 0, max: 40 }),
  });

  it('on random stops, pairs and lifetimes, the quote refuses what the engine refuses and holds what it holds', async () => {
    const seen = { placedBuy: 0, placedSell: 0, trigger: 0, limit: 0, lifetime: 0, takeProfit: 0, funds: 0 };
    await fc.assert(
      fc.asyncProperty(stop, async (s) => {
        const token = await freshToken(backend);
        const who = await trader(backend, { cash: s.cash, token, tokens: s.tokens });
        const pair = s.side === 'sell' && s.takeProfitCents !== null;
        const args = {
          p_token: token,
          p_amount: s.amount,
          p_stop_price: s.stopCents / 100,
          p_time_in_force: s.gtdHours === null ? 'gtc' : 'gtd',
          p_expires_at: s.gtdHours === null ? null : new Date(Date.now() + s.gtdHours * HOUR).toISOString(),
        };
        const limit = s.limit ? s.limitCents / 100 : null;
        const { data: q, error: quoteError } = await who.client.rpc('quote_order', {
          ...args,
          p_side: s.side,
          p_type: s.limit ? 'limit' : 'market',
          p_price: limit,
          p_take_profit: pair ? s.takeProfitCents! / 100 : null,
        });
        expect(quoteError).toBeNull();
        const quote = q as StopQuote;
        const before = await cash(backend, who.id);
        const placed = pair
          ? await who.client.rpc('place_oco', {
              ...args,
              p_take_profit: s.takeProfitCents! / 100,
              p_stop_limit: limit,
            })
          : await who.client.rpc('place_order', {
              ...args,
              p_side: s.side,
              p_type: s.limit ? 'limit' : 'market',
              p_price: limit,
            });
        expect(quote.stopped_by).toBe('stop');
        expect(quote.filled).toBe(0);
        const said = quote.term_refusal?.message ?? quote.refusal;
        expect(placed.error?.message ?? null).toBe(said);
        if (quote.term_refusal) {
          const term = quote.term_refusal.term;
          if (term === 'stop_price') seen.trigger++;
          if (term === 'price') seen.limit++;
          if (term === 'expires_at') seen.lifetime++;
          if (term === 'take_profit') seen.takeProfit++;
          return;
        }
        // The most the cash or holding allows is the line between a placed stop and a refused one.
        expect(s.amount > quote.at_trigger!.max_amount).toBe(quote.refusal !== null);
        if (quote.refusal) {
          seen.funds++;
          return;
        }
        if (s.side === 'buy') seen.placedBuy++;
        else seen.placedSell++;
        // A buy stop holds back what the quote said; a sell holds tokens, never cash.
        const after = await cash(backend, who.id);
        expect(after.reserved - before.reserved).toBeCloseTo(quote.at_trigger!.hold, 2);
        if (s.side === 'sell') expect(quote.at_trigger!.hold).toBe(0);
      }),
      { numRuns: 60, seed: 71 },
    );
    expect(Object.values(seen).every((n) => n > 0)).toBe(true);
    expect(await invariantViolations(backend)).toEqual([]);
  });

  it("a stop's figures are at its trigger, and its terms are checked before its amount is known", async () => {
    const token = await freshToken(backend);
    const buyer = await trader(backend, { cash: 1000 });
    const quote = async (args: Record<string, unknown>) =>
      (await buyer.client.rpc('quote_order', { p_token: token, p_side: 'buy', ...args })).data as StopQuote;

    // A buy stop-market at $11: figured at $11, held at the 20% band's edge from it ($13.20) with the fee.
    expect((await quote({ p_type: 'market', p_amount: 10, p_stop_price: 11 })).at_trigger).toEqual({
      price: 11,
      value: 110,
      fee: 2.2,
      total: 112.2,
      proceeds: 107.8,
      hold: 134.64,
      max_amount: 74, // $1,000 at $13.20 with the fee: 74 ($996.35); 75 would be $1,009.80
    });
    // No amount yet: the trigger's side is said all the same, in the engine's words.
    expect((await quote({ p_type: 'market', p_stop_price: 9 })).term_refusal).toEqual({
      term: 'stop_price',
      message:
        'A buy stop triggers when the price rises to it, so its trigger must be above the last price of $10.00. To buy now, place a market or limit order.',
    });
    expect((await quote({ p_type: 'limit', p_price: 10.5, p_stop_price: 11 })).term_refusal).toEqual({
      term: 'price',
      message:
        "A buy stop-limit's limit price must be at or above its trigger of $11.00: it buys once the price has risen there.",
    });
    const limit = await quote({
      p_type: 'limit',
      p_amount: 1,
      p_price: 10.5,
      p_time_in_force: 'gtd',
      p_expires_at: new Date(Date.now() + 100 * 24 * HOUR).toISOString(),
    });
    expect(limit.term_refusal).toEqual({
      term: 'expires_at',
      message: 'A good-til-date order expires within 90 days; for longer, use good til cancelled.',
    });
    expect(limit.at_trigger).toBeNull();
    const refused = await buyer.client.rpc('quote_order', {
      p_token: token,
      p_side: 'buy',
      p_type: 'market',
      p_amount: 1,
      p_take_profit: 12,
    });
    expect(refused.error?.message).toBe('A take-profit pairs with a sell stop.');
  });
});
