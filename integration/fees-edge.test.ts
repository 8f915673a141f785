import fc from 'fast-check';
import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { cash, freshToken, invariantViolations, placeOrder, trader } from './harness/market';

jest.setTimeout(180_000);

/**
 * A resting buy holds back value + fee of the whole order. Filled in parts, the fees of the parts,
 * each rounded half up to the cent, must never come to more than that: a buyer funded with exactly
 * the reservation sees every fill go through and ends with nothing left over or owed.
 */
describe.each(ENGINES)('fees of partial fills on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  async function fillInParts(priceCents: number, parts: number[]) {
    const amount = parts.reduce((a, b) => a + b, 0);
    // Listed at the order's price: the market sells that fill it stay within their band.
    const token = await freshToken(backend, 100_000, priceCents / 100);
    const value = (priceCents * amount) / 100;
    const [{ cost }] = (await backend.db.query<{ cost: string }>(
      'select private.buy_cost($1, $2, private.fee_bps()) as cost',
      [priceCents / 100, amount],
    )) as [{ cost: string }];
    const buyer = await trader(backend, { cash: Number(cost) });
    const seller = await trader(backend, { token, tokens: amount });
    const placed = await placeOrder(buyer.client, token, 'buy', 'limit', amount, priceCents / 100);
    expect(placed.error).toBeNull();
    for (const n of parts) {
      const { error } = await placeOrder(seller.client, token, 'sell', 'market', n);
      expect({ part: n, error: error?.message }).toEqual({ part: n, error: undefined });
    }
    const left = await cash(backend, buyer.id);
    expect(left.reserved).toBe(0);
    expect(left.available).toBeGreaterThanOrEqual(0);
    expect(left.available).toBeLessThanOrEqual(Number(cost) - value); // never more than the fee comes back
    return left;
  }

  it('four single fills of a $0.25 buy: each fee alone rounds up a cent', async () => {
    await fillInParts(25, [1, 1, 1, 1]);
  });

  it('any price and any split of the order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 2_000 }),
        fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 2, maxLength: 6 }),
        async (priceCents, parts) => {
          await fillInParts(priceCents, parts);
        },
      ),
      { numRuns: 25, seed: 825 },
    );
    expect(await invariantViolations(backend)).toEqual([]);
  });
});
