import fc from 'fast-check';
import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { cash, invariantViolations, offeringToken, trader } from './harness/market';

jest.setTimeout(300_000);

interface BidQuote {
  value: number;
  fee: number;
  total: number;
  usable: number;
  refusal: string | null;
}

/**
 * The offering panel checks a bid with quote_offering_bid, which runs place_offering_bid's own
 * checks: what it says of a bid (refused, in which words, or what it holds back) is what placing it
 * does, a change of bid counting the current bid's reservation as released.
 */
describe.each(ENGINES)('quote_offering_bid says what placing a bid does, on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  const bids = fc.array(
    fc.record({
      cents: fc.integer({ min: 950, max: 1300 }), // around the $10 issue price
      amount: fc.integer({ min: 1, max: 120 }), // the cap is 100
    }),
    { minLength: 1, maxLength: 4 },
  );

  it('on random bids and changes of bid, the quote refuses what the engine refuses and holds what it holds', async () => {
    const seen = { placed: 0, changed: 0, issuePrice: 0, cap: 0, funds: 0 };
    await fc.assert(
      fc.asyncProperty(bids, fc.integer({ min: 100, max: 1500 }), async (tries, money) => {
        const token = await offeringToken(backend, { cap: 100 });
        const bidder = await trader(backend, { cash: money });
        let held = false;
        for (const b of tries) {
          const price = b.cents / 100;
          const { data, error } = await bidder.client.rpc('quote_offering_bid', {
            p_token: token,
            p_price: price,
            p_amount: b.amount,
          });
          expect(error).toBeNull();
          const q = data as BidQuote;
          expect(q.usable).toBeCloseTo(money, 2); // all the cash, whatever part the current bid holds
          const placed = await bidder.client.rpc('place_offering_bid', {
            p_token: token,
            p_price: price,
            p_amount: b.amount,
          });
          expect(placed.error?.message ?? null).toBe(q.refusal);
          if (q.refusal?.startsWith('Bids start')) seen.issuePrice++;
          else if (q.refusal?.startsWith('One account')) seen.cap++;
          else if (q.refusal) seen.funds++;
          else {
            expect((await cash(backend, bidder.id)).reserved).toBeCloseTo(q.total, 2);
            if (held) seen.changed++;
            else seen.placed++;
            held = true;
          }
        }
      }),
      { numRuns: 25, seed: 29 },
    );
    expect(Object.values(seen).every((n) => n > 0)).toBe(true);
    expect(await invariantViolations(backend)).toEqual([]);
  });

  it("the token's own person is refused, and bad input is refused in words", async () => {
    const owner = await trader(backend, { cash: 1000 });
    const token = await offeringToken(backend, { owner: owner.id });
    const quote = (args: Record<string, unknown>) =>
      owner.client.rpc('quote_offering_bid', { p_token: token, p_price: 10, p_amount: 1, ...args });
    expect(((await quote({})).data as BidQuote).refusal).toBe("You cannot bid in your own token's offering.");
    expect((await quote({ p_price: 0 })).error?.message).toBe('A bid needs a price above $0.00.');
    expect((await quote({ p_amount: 1.5 })).error?.message).toBe(
      'The amount must be a whole number of tokens, at least 1.',
    );
  });
});
