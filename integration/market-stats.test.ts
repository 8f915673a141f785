import type { Backend } from '../server/index';
import { ENGINES, backendFor, eventually } from './harness/backends';
import { freshToken, invariantViolations, placeOrder, trader } from './harness/market';

describe.each(ENGINES)('maintained market figures on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  const figures = async (token: string) => {
    const [row] = await backend.db.query<Record<string, string>>(
      'select price, change_24h, volume_24h, market_cap, holders, available_supply from market_tokens where id = $1',
      [token],
    );
    return Object.fromEntries(Object.entries(row!).map(([k, v]) => [k, Number(v)]));
  };

  it('slide when a trade leaves the 24h window, by the scheduler, without a new trade', async () => {
    const token = await freshToken(backend, 1000);
    const seller = await trader(backend, { cash: 100, token, tokens: 100 });
    const buyer = await trader(backend, { cash: 10_000 });
    const settle = (price: number, amount: number, ago: string) =>
      backend.db.query(
        `select private.settle_trade($1, $2, $3, $4, $5, 'buy', null, null, 0, false, now() - $6::interval)`,
        [token, buyer.id, seller.id, price, amount, ago],
      );
    // Inserted out of order on purpose: a back-dated trade recomputes, a newer one updates in place.
    await settle(15, 2, '0 seconds');
    await settle(10, 1, '30 hours');
    await settle(20, 3, '23 hours 59 minutes 56 seconds');

    // Compared with the last price a day old ($10): +50%; the volume counts the two younger trades.
    expect(await figures(token)).toEqual({
      price: 15,
      change_24h: 50,
      volume_24h: 90,
      market_cap: 15_000,
      holders: 2,
      available_supply: 900,
    });
    // Four seconds on, the $20 trade is a day old: it is the base now (-25%) and leaves the volume.
    const slid = await eventually(async () => {
      const f = await figures(token);
      return f.volume_24h === 30 ? f : undefined;
    }, 15_000);
    expect(slid).toMatchObject({ price: 15, change_24h: -25, volume_24h: 30 });
    expect(await invariantViolations(backend)).toEqual([]);
  }, 30_000);

  it('move once per statement: an order that sweeps the book, and two tokens traded in one insert', async () => {
    const token = await freshToken(backend, 1000);
    const seller = await trader(backend, { cash: 100, token, tokens: 15 });
    const buyer = await trader(backend, { cash: 10_000 });
    for (const price of [10, 11, 12]) await placeOrder(seller.client, token, 'sell', 'limit', 5, price);
    expect((await placeOrder(buyer.client, token, 'buy', 'market', 15)).error).toBeNull();
    // The last fill sets the price, the three make the volume, the first trade is the base.
    expect(await figures(token)).toMatchObject({ price: 12, volume_24h: 165, change_24h: 20, market_cap: 12_000 });

    // One statement, two tokens, out of time order: each token moves by its own newest and oldest.
    const [b, c] = [await freshToken(backend, 1000), await freshToken(backend, 1000)];
    await backend.db.query(
      `insert into trades (token_id, buyer_id, seller_id, price, amount, taker_side, buyer_fee, seller_fee, created_at, fee_bps)
       values ($1, $3, $4, 14, 1, 'buy', 0, 0, now() - interval '1 hour', 0),
              ($2, $3, $4, 9, 2, 'buy', 0, 0, now(), 0),
              ($1, $3, $4, 13, 2, 'buy', 0, 0, now() - interval '2 hours', 0)`,
      [b, c, buyer.id, seller.id],
    );
    expect(await figures(b)).toMatchObject({ price: 14, volume_24h: 40, change_24h: 7.69 });
    expect(await figures(c)).toMatchObject({ price: 9, volume_24h: 18, change_24h: 0 });
    expect(await invariantViolations(backend)).toEqual([]);
  });

  it('count holders as accounts go from none to some and back, through the engine', async () => {
    const token = await freshToken(backend, 1000);
    const seller = await trader(backend, { cash: 100, token, tokens: 10 });
    const buyer = await trader(backend, { cash: 10_000 });
    expect((await figures(token)).holders).toBe(1);
    await placeOrder(seller.client, token, 'sell', 'limit', 10, 12);
    await placeOrder(buyer.client, token, 'buy', 'market', 4);
    expect(await figures(token)).toMatchObject({ holders: 2, price: 12, volume_24h: 48, change_24h: 0 });
    await placeOrder(buyer.client, token, 'buy', 'market', 6);
    expect((await figures(token)).holders).toBe(1); // the seller sold out
    expect(await invariantViolations(backend)).toEqual([]);
  });

  it("count the market's traders once per account, from its first token to its last, reading no holding", async () => {
    const [a, b] = [await freshToken(backend, 1000), await freshToken(backend, 1000)];
    const sellerA = await trader(backend, { cash: 100, token: a, tokens: 10 });
    const sellerB = await trader(backend, { cash: 100, token: b, tokens: 10 });
    const buyer = await trader(backend, { cash: 10_000 });
    const traders = async () =>
      Number((await backend.db.query<{ n: string }>('select total_traders as n from market_summary'))[0]!.n);
    const before = await traders();
    await placeOrder(sellerA.client, a, 'sell', 'limit', 10, 12);
    await placeOrder(sellerB.client, b, 'sell', 'limit', 10, 12);
    await placeOrder(buyer.client, a, 'buy', 'market', 4);
    expect(await traders()).toBe(before + 1); // the buyer's first token
    await placeOrder(buyer.client, b, 'buy', 'market', 10);
    expect(await traders()).toBe(before); // the buyer's second, and seller B's last
    await backend.db.query('select private.slide_token_stats()'); // folds the changes into the total
    expect(await traders()).toBe(before);
    await placeOrder(buyer.client, a, 'buy', 'market', 6);
    expect(await traders()).toBe(before - 1); // seller A's last

    // The summary is read by every market screen opened: it reads the kept totals alone.
    const read = await backend.db.transaction(async (tx) => {
      const counted = `select coalesce(sum(seq_tup_read + coalesce(idx_tup_fetch, 0)), 0)::int as n
        from pg_stat_xact_user_tables where relname in ('holdings', 'trades', 'token_stats')`;
      const [start] = await tx.query<{ n: number }>(counted);
      await tx.query('select * from market_summary');
      const [end] = await tx.query<{ n: number }>(counted);
      return end!.n - start!.n;
    });
    expect(read).toBe(0);
    expect(await invariantViolations(backend)).toEqual([]);
  });
});
