import type { MarketTick } from '@repex/shared-ui/contracts';
import { applyLevels, patchAuction, patchCandles, patchHistory, prependTrades, ticksOf } from './live';
import { intervalSeconds } from './chart/useCandles';

const tick = (over: Partial<MarketTick>): MarketTick => ({
  token_id: 't1',
  kind: 'trade',
  price: 10,
  change_24h: 0,
  volume_24h: 0,
  market_cap: 0,
  holders: 0,
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
const trade = (id: number, price: number, at: string, amount = 1) => ({
  id,
  price,
  amount,
  value: price * amount,
  type: 'buy' as const,
  created_at: at,
});

describe("the trading screen's live patches", () => {
  it('sets each touched level to what it holds now, and removes an emptied one', () => {
    const book = [
      { side: 'sell' as const, price: 10, amount: 5 },
      { side: 'sell' as const, price: 11, amount: 2 },
      { side: 'buy' as const, price: 9, amount: 4 },
    ];
    const next = applyLevels(book, [
      tick({ levels: [{ side: 'sell', price: 10, amount: 0 }] }),
      tick({
        levels: [
          { side: 'buy', price: 9.5, amount: 3 },
          { side: 'sell', price: 11, amount: 7 },
        ],
      }),
    ]);
    expect(next).toEqual([
      { side: 'sell', price: 11, amount: 7 },
      { side: 'buy', price: 9, amount: 4 },
      { side: 'buy', price: 9.5, amount: 3 },
    ]);
    expect(applyLevels(book, [tick({})])).toBe(book);
  });

  it('puts new trades on top of the tape, newest first, once each, five at most', () => {
    const tape = [1, 2, 3]
      .map((id) => ({ id, price: 9, amount: 1, type: 'sell' as const, created_at: `2026-11-27T10:00:0${id}Z` }))
      .reverse();
    const next = prependTrades(tape, [
      tick({ trades: [trade(5, 10, '2026-11-27T10:00:05Z'), trade(4, 10, '2026-11-27T10:00:05Z')] }),
      tick({ trades: [trade(6, 11, '2026-11-27T10:00:06Z'), trade(3, 9, '2026-11-27T10:00:03Z')] }),
    ]);
    expect(next.map((t) => t.id)).toEqual([6, 5, 4, 3, 2]);
  });

  it("closes the line's hour with the last trade, and a later hour starts a new point", () => {
    const points = Array.from({ length: 24 }, (_, i) => ({
      bucket: new Date(Date.UTC(2026, 10, 27, i)).toISOString(),
      price: 10,
    }));
    const same = patchHistory(points, [tick({ trades: [trade(1, 12, '2026-11-27T23:30:00.000Z')] })]);
    expect(same).toHaveLength(24);
    expect(same.at(-1)).toEqual({ bucket: points.at(-1)!.bucket, price: 12 });
    const next = patchHistory(points, [tick({ trades: [trade(2, 13, '2026-11-28T00:10:00.000Z')] })]);
    expect(next).toHaveLength(24);
    expect(next[0]).toEqual(points[1]);
    expect(next.at(-1)).toEqual({ bucket: '2026-11-28T00:00:00.000Z', price: 13 });
    // An older trade than the line's last hour changes nothing.
    expect(patchHistory(points, [tick({ trades: [trade(3, 1, '2026-11-27T01:00:00.000Z')] })])).toBe(points);
  });

  it("folds trades into the newest candle, or opens the next at the interval's boundary", () => {
    const candles = [{ bucket: '2026-11-27T10:00:00.000Z', open: 10, high: 11, low: 9, close: 10, volume: 5 }];
    const seconds = intervalSeconds('15m');
    expect(seconds).toBe(900);
    const next = patchCandles(
      candles,
      [
        tick({ trades: [trade(1, 12, '2026-11-27T10:14:59.000Z', 2)] }),
        tick({ trades: [trade(2, 8, '2026-11-27T10:15:00.000Z', 3)] }),
      ],
      seconds,
    );
    expect(next).toEqual([
      { bucket: '2026-11-27T10:00:00.000Z', open: 10, high: 12, low: 9, close: 12, volume: 7 },
      { bucket: '2026-11-27T10:15:00.000Z', open: 8, high: 8, low: 8, close: 8, volume: 3 },
    ]);
    expect([intervalSeconds('1m'), intervalSeconds('4h'), intervalSeconds('1d')]).toEqual([60, 14_400, 86_400]);
  });

  it("follows an open volatility auction's indicative figures from the latest message that carries them", () => {
    const open = {
      id: 1,
      ends_at: '2026-11-29T12:00:00Z',
      indicative_price: 12,
      indicative_volume: 5,
      demand: 5,
      supply: 5,
    };
    const moved = { indicative_price: 12.5, indicative_volume: 7, demand: 9, supply: 7 };
    expect(
      patchAuction(open, [tick({ auction: { ...moved, demand: 1 } }), tick({ auction: moved }), tick({})]),
    ).toEqual({
      ...open,
      ...moved,
    });
    expect(patchAuction(open, [tick({})])).toBe(open);
    expect(patchAuction(null, [tick({ auction: moved })])).toBeNull();
  });
  it("keeps one token's messages", () => {
    expect(ticksOf([tick({ token_id: 'a' }), tick({ token_id: 'b' })], 'b').map((t) => t.token_id)).toEqual(['b']);
  });
});
