import type { MarketTick } from '@repex/shared-ui/contracts';
import { patchBasket, patchPage, patchSummary } from './live';

const tick = (token_id: string, over: Partial<MarketTick> = {}): MarketTick => ({
  token_id,
  kind: 'trade',
  price: 10,
  change_24h: 1,
  volume_24h: 100,
  market_cap: 1000,
  holders: 3,
  halted: false,
  market_cap_change: 0,
  volume_change: 0,
  best_bid: null,
  best_ask: null,
  levels: [],
  trades: [],
  auction: null,
  ...over,
});
const row = (id: string, market_cap: number) => ({
  id,
  name: id,
  price: 1,
  change_24h: 0,
  volume_24h: 0,
  market_cap,
  holders: 1,
  halted: false,
  reputation_score: 50,
});

describe("the market screen's live patches", () => {
  it("sets the named rows' figures, from each token's last message, and sorts the page again", () => {
    const page = { rows: [row('a', 300), row('b', 200), row('c', 100)], total: 3 };
    const next = patchPage(
      page,
      [tick('c', { market_cap: 250, price: 2 }), tick('c', { market_cap: 400, price: 4, halted: true }), tick('x')],
      'market_cap.desc',
    );
    expect(next.rows.map((r) => [r.id, r.market_cap])).toEqual([
      ['c', 400],
      ['a', 300],
      ['b', 200],
    ]);
    expect(next.rows[0]).toMatchObject({ price: 4, halted: true, holders: 3, volume_24h: 100 });
    expect(next.rows[1]).toBe(page.rows[0]); // untouched rows are the same objects
    expect(patchPage(page, [tick('x')], 'market_cap.desc')).toBe(page);
    const ascending = patchPage(page, [tick('a', { market_cap: 100 })], 'market_cap.asc');
    expect(ascending.rows.map((r) => r.id)).toEqual(['a', 'c', 'b']); // a tie goes by id
  });

  it('moves the total market cap and 24h volume by what each message says moved, to the cent', () => {
    const summary = { total_market_cap: 1000.1, volume_24h: 50.2, active_tokens: 8, total_traders: 3 };
    expect(
      patchSummary(summary, [
        tick('a', { market_cap_change: 0.1, volume_change: 0.1 }),
        tick('b', { market_cap_change: -0.3, volume_change: 0.2 }),
      ]),
    ).toEqual({ total_market_cap: 999.9, volume_24h: 50.5, active_tokens: 8, total_traders: 3 });
    expect(patchSummary(summary, [tick('a')])).toBe(summary);
  });

  it("gives the index's members their last prices", () => {
    const basket = [
      { token_id: 'a', units: 2, price: 10 },
      { token_id: 'b', units: 1, price: 5 },
    ];
    expect(patchBasket(basket, [tick('b', { price: 6 })])).toEqual([basket[0], { token_id: 'b', units: 1, price: 6 }]);
    expect(patchBasket(basket, [tick('z')])).toBe(basket);
  });
});
