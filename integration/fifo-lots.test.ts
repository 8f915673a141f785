import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { freshToken, placeOrder, trader, type Trader } from './harness/market';

type Lot = {
  tokens: number;
  bought_at: string;
  sold_at: string;
  cost: number;
  proceeds: number;
  fees: number;
  gain: number;
};

describe.each(ENGINES)('realized gains lot by lot, first in first out, on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  /** `taker` takes `maker`'s resting order of `amount` at `price`: one trade through the engine. */
  async function trade(
    taker: Trader,
    maker: Trader,
    token: string,
    side: 'buy' | 'sell',
    amount: number,
    price: number,
  ) {
    const other = side === 'buy' ? 'sell' : 'buy';
    expect((await placeOrder(maker.client, token, other, 'limit', amount, price)).error).toBeNull();
    // A crossing limit (the market band would refuse the last sale, 27% below the price before it).
    expect((await placeOrder(taker.client, token, side, 'limit', amount, price)).error).toBeNull();
  }

  it('matches each sale to the oldest lots, with each lot’s fee in its cost and the sale’s fee shared', async () => {
    const token = await freshToken(backend, 100_000);
    const investor = await trader(backend, { cash: 10_000 });
    const seller = await trader(backend, { token, tokens: 1_000 });
    const buyer = await trader(backend, { cash: 10_000 });

    // The exchange's fee is 2%: two lots, then a sale across both, then the rest of the second.
    await trade(investor, seller, token, 'buy', 10, 10); // lot 1: 100 + 2.00 fee, 10.20 a token
    await trade(investor, seller, token, 'buy', 10, 12); // lot 2: 120 + 2.40 fee, 12.24 a token
    await trade(investor, buyer, token, 'sell', 15, 15); // 225, fee 4.50: all of lot 1, 5 of lot 2
    await trade(investor, buyer, token, 'sell', 5, 11); // 55, fee 1.10: the rest of lot 2

    const { data, error } = await investor.client.rpc('my_realized_lots');
    expect(error).toBeNull();
    const lots = data as Lot[];
    const rows = lots.map((l) => ({
      tokens: l.tokens,
      cost: Number(l.cost),
      proceeds: Number(l.proceeds),
      fees: Number(l.fees),
      gain: Number(l.gain),
    }));
    expect(rows).toEqual([
      { tokens: 10, cost: 102, proceeds: 150, fees: 3, gain: 45 },
      { tokens: 5, cost: 61.2, proceeds: 75, fees: 1.5, gain: 12.3 },
      { tokens: 5, cost: 61.2, proceeds: 55, fees: 1.1, gain: -7.3 },
    ]);
    // Each lot keeps its own purchase time: the first piece is the first buy's.
    expect(Date.parse(lots[0]!.bought_at)).toBeLessThan(Date.parse(lots[1]!.bought_at));

    // A range keeps the sales within it; another user sees only their own lots (none sold).
    const last = lots[2]!.sold_at;
    const { data: recent } = await investor.client.rpc('my_realized_lots', { p_from: last });
    expect((recent as Lot[]).map((l) => Number(l.gain))).toEqual([-7.3]);
    const { data: theirs } = await buyer.client.rpc('my_realized_lots');
    expect(theirs).toEqual([]);
  });
});
