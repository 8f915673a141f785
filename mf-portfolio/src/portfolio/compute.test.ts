import { computePortfolio, type TradeLeg } from './compute';

const leg = (token_id: string, type: 'buy' | 'sell', amount: number, price: number, at: string): TradeLeg => {
  const value = Math.round(price * amount * 100) / 100;
  return { token_id, type, amount, value, fee: Math.round(value * 2) / 100, created_at: at };
};

describe('portfolio from trades (average cost, fees included)', () => {
  it('is empty with no trades', () => {
    expect(computePortfolio([], {})).toEqual({ positions: [], totalValue: 0, totalInvested: 0, unrealizedPnL: 0, realizedPnL: 0 });
  });

  it('values a position at the current price against what it cost with fees', () => {
    const p = computePortfolio([leg('s', 'buy', 100, 40, '2026-01-01')], { s: 45 });
    expect(p.positions[0]).toMatchObject({ tokens: 100, avgPrice: 40.8, cost: 4080, value: 4500, pnl: 420 });
    expect(p).toMatchObject({ totalValue: 4500, totalInvested: 4080, unrealizedPnL: 420, realizedPnL: 0 });
  });

  it('averages several buys and realizes a sell against the average cost', () => {
    const trades = [
      leg('s', 'buy', 300, 38.5, '2026-01-01'), // cost 11,550 + 231 = 11,781
      leg('s', 'buy', 250, 41, '2026-01-02'), // cost 10,250 + 205 = 10,455
      leg('s', 'sell', 50, 44, '2026-01-03'), // proceeds 2,200 - 44 = 2,156
    ];
    const p = computePortfolio(trades, { s: 45.2 });
    const avg = (11781 + 10455) / 550;
    expect(p.positions[0]!.tokens).toBe(500);
    expect(p.realizedPnL).toBeCloseTo(2156 - avg * 50, 2);
    expect(p.totalInvested).toBeCloseTo(avg * 500, 2);
    expect(p.totalValue).toBe(22600);
    expect(p.unrealizedPnL).toBeCloseTo(22600 - avg * 500, 1);
  });

  it('orders trades by time whatever order they come in', () => {
    const a = [leg('s', 'buy', 10, 10, '2026-01-01'), leg('s', 'sell', 10, 20, '2026-01-02')];
    expect(computePortfolio(a.reverse(), {}).realizedPnL).toBeCloseTo(196 - 102, 2);
  });

  it('drops closed positions and ignores sells of tokens never bought here', () => {
    const p = computePortfolio([leg('a', 'buy', 5, 10, '2026-01-01'), leg('a', 'sell', 5, 12, '2026-01-02'), leg('b', 'sell', 3, 9, '2026-01-03')], { a: 50, b: 9 });
    expect(p.positions).toEqual([]);
    expect(p.realizedPnL).toBeCloseTo(60 - 1.2 - 51, 2);
  });

  it('shows a loss as a negative P&L', () => {
    const p = computePortfolio([leg('e', 'buy', 200, 34.5, '2026-01-01')], { e: 31.85 });
    expect(p.positions[0]!.pnl).toBeLessThan(0);
    expect(p.positions[0]!.pnlPercent).toBeCloseTo(((6370 - 7038) / 7038) * 100, 4);
  });
});
