import { adminSuite } from './harness/suites';
import { ENGINES } from './harness/backends';
import { book, cash, freshToken, invariantViolations, placeOrder, trader } from './harness/market';

interface Placed {
  status: string;
  filled: number;
  average_price: number | null;
}

describe.each(ENGINES)('market orders trade within a band around the last price on %s', (engine) => {
  const suite = adminSuite(engine);
  /** A new token at $10.00 (no trade yet: its issue price is its last price), with a seller and a buyer. */
  const market = async () => {
    const token = await freshToken(suite.backend);
    const seller = await trader(suite.backend, { token, tokens: 100, cash: 1000 });
    const buyer = await trader(suite.backend, { token, tokens: 100, cash: 1000 });
    return { token, seller, buyer };
  };

  it('a market buy pays at most 20% above the last price: the asks beyond stay, the rest of the order is cancelled', async () => {
    const { token, seller, buyer } = await market();
    for (const [amount, price] of [
      [5, 11.5],
      [5, 12],
      [5, 12.01],
    ] as const)
      expect((await placeOrder(seller.client, token, 'sell', 'limit', amount, price)).error).toBeNull();

    const { data, error } = await placeOrder(buyer.client, token, 'buy', 'market', 20);
    expect(error).toBeNull();
    expect(data as Placed).toMatchObject({ status: 'cancelled', filled: 10, average_price: 11.75 });
    expect(await book(suite.backend, token)).toEqual([{ side: 'sell', price: 12.01, amount: 5 }]);
    // The band follows the last price: $12.00 now, so $12.01 is within it.
    expect((await placeOrder(buyer.client, token, 'buy', 'market', 5)).data).toMatchObject({ status: 'filled' });
    expect(await invariantViolations(suite.backend)).toEqual([]);
  });

  it('a market sell accepts at least 20% below it; an order that meets only what lies beyond is refused in words', async () => {
    const { token, seller, buyer } = await market();
    expect((await placeOrder(buyer.client, token, 'buy', 'limit', 5, 8)).error).toBeNull();
    expect((await placeOrder(buyer.client, token, 'buy', 'limit', 5, 7.99)).error).toBeNull();
    expect((await placeOrder(seller.client, token, 'sell', 'market', 10)).data).toMatchObject({
      status: 'cancelled',
      filled: 5,
      average_price: 8,
    });

    const lone = await freshToken(suite.backend);
    const asker = await trader(suite.backend, { token: lone, tokens: 10 });
    expect((await placeOrder(asker.client, lone, 'sell', 'limit', 10, 12.01)).error).toBeNull();
    const before = await cash(suite.backend, buyer.id);
    const [{ name }] = (await suite.backend.db.query<{ name: string }>('select name from tokens where id = $1', [
      lone,
    ])) as [{ name: string }];
    const refused = await placeOrder(buyer.client, lone, 'buy', 'market', 1);
    expect(refused.error?.message).toBe(
      `No sell order for ${name} is within 20% of its last price ($10.00): a market order trades no further from it. Place a limit order at the price you accept.`,
    );
    expect(await cash(suite.backend, buyer.id)).toEqual(before);
    expect(await book(suite.backend, lone)).toEqual([{ side: 'sell', price: 12.01, amount: 10 }]);
    expect(await invariantViolations(suite.backend)).toEqual([]);
  });

  it('the admin sets the band, between 1% and 50%', async () => {
    const { token, seller, buyer } = await market();
    expect((await placeOrder(seller.client, token, 'sell', 'limit', 5, 14)).error).toBeNull();
    expect((await placeOrder(buyer.client, token, 'buy', 'market', 5)).error?.message).toMatch(/^No sell order/);

    const set = (market_band_bps: unknown) =>
      suite.admin.rpc('admin_update_settings', { p_changes: { market_band_bps }, p_reason: 'Band check.' });
    const refusal = 'The market order band must be between 100 and 5,000 basis points (1% to 50%).';
    expect((await set(50)).error?.message).toBe(refusal);
    expect((await set(5001)).error?.message).toBe(refusal);
    expect(
      (await buyer.client.rpc('admin_update_settings', { p_changes: { market_band_bps: 5000 } })).error,
    ).not.toBeNull();
    try {
      expect((await set(5000)).error).toBeNull();
      expect((await placeOrder(buyer.client, token, 'buy', 'market', 5)).data).toMatchObject({ status: 'filled' });
    } finally {
      expect((await set(2000)).error).toBeNull();
    }
    expect(await invariantViolations(suite.backend)).toEqual([]);
  });
});
