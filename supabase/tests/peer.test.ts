import { OrderBook, SelfTradePreventionMode, Side } from 'nodejs-order-book';
import type { Backend } from '../server/index';
import { ENGINES, backendFor } from '../harness/backends';
import { rng } from '../harness/load';
import { book, freshToken, invariantViolations, trader, type Trader } from '../harness/market';

jest.setTimeout(120_000);

/**
 * Our matching, order by order, against an in-memory reference (nodejs-order-book) with the same
 * accounts and the same self-trade policy (expire maker). Accounts have ample cash and tokens, so
 * the only difference left is stated policy: we refuse a market order that cannot fill at all
 * (the reference would expire the owner's own orders); the stream skips it in both.
 */
describe.each(ENGINES)('matching compared with nodejs-order-book on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  it('fills every order by the same amount and leaves the same book', async () => {
    const token = await freshToken(backend, 100_000_000);
    const traders: Trader[] = [];
    for (let i = 0; i < 4; i++) traders.push(await trader(backend, { cash: 10_000_000, token, tokens: 100_000 }));
    const reference = new OrderBook();
    const random = rng(42);
    const ours: number[] = [];
    const theirs: number[] = [];

    for (let i = 0; i < 250; i++) {
      const account = i % traders.length;
      const side = random() < 0.5 ? 'buy' : 'sell';
      const type = i > 20 && random() < 0.25 ? 'market' : 'limit';
      const amount = 1 + Math.floor(random() * 20);
      const price = Math.round((9.5 + random()) * 100) / 100;
      const base = {
        side: side === 'buy' ? Side.BUY : Side.SELL,
        size: amount,
        accountId: String(account),
        stpMode: SelfTradePreventionMode.EXPIRE_MAKER,
      };

      if (type === 'market') {
        const snapshot = reference.snapshot();
        const opposite = side === 'buy' ? snapshot.asks : snapshot.bids;
        const othersRest = opposite.some((level) => level.orders.some((o) => o.accountId !== String(account)));
        const { data, error } = await traders[account]!.client.rpc('place_order', {
          p_token: token,
          p_side: side,
          p_type: 'market',
          p_amount: amount,
        });
        if (!othersRest) {
          expect(error?.message).toMatch(/There are no .* orders/); // refused, nothing changed
          continue;
        }
        expect(error).toBeNull();
        ours.push((data as { filled: number }).filled);
        theirs.push(amount - reference.market(base).quantityLeft);
      } else {
        const id = String(i);
        const { data, error } = await traders[account]!.client.rpc('place_order', {
          p_token: token,
          p_side: side,
          p_type: 'limit',
          p_amount: amount,
          p_price: price,
        });
        expect(error).toBeNull();
        ours.push((data as { filled: number }).filled);
        const result = reference.limit({ ...base, id, price });
        theirs.push(
          result.done.some((d) => d.id === id)
            ? amount
            : result.partial?.id === id
              ? result.partialQuantityProcessed
              : 0,
        );
      }
    }

    expect(ours).toEqual(theirs);
    expect(ours.reduce((a, b) => a + b, 0)).toBeGreaterThan(100); // the stream really traded

    const snapshot = reference.snapshot();
    const level = (side: 'buy' | 'sell') => (l: { price: number; orders: { size: number }[] }) => ({
      side,
      price: l.price,
      amount: l.orders.reduce((n, o) => n + o.size, 0),
    });
    const expected = [...snapshot.bids.map(level('buy')), ...snapshot.asks.map(level('sell'))].filter(
      (l) => l.amount > 0,
    );
    const byKey = (a: { side: string; price: number }, b: { side: string; price: number }) =>
      a.side.localeCompare(b.side) || a.price - b.price;
    expect((await book(backend, token)).sort(byKey)).toEqual(expected.sort(byKey));
    expect(await invariantViolations(backend)).toEqual([]);
  });
});
