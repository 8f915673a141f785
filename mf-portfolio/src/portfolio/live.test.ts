import type { MarketTick, Position } from '@repex/shared-ui/contracts';
import type { DashboardData } from './data';
import { patchDashboard } from './live';

const tick = (token_id: string, price: number, halted = false): MarketTick => ({
  token_id,
  kind: 'trade',
  price,
  change_24h: 0,
  volume_24h: 0,
  market_cap: 0,
  holders: 0,
  halted,
  market_cap_change: 0,
  volume_change: 0,
  best_bid: null,
  best_ask: null,
  levels: [],
  trades: [],
  auction: null,
});
const position = (token_id: string, tokens: number, price: number, cost: number): Position =>
  ({
    token_id,
    name: token_id,
    username: token_id,
    category: 'Test',
    avatar_url: '',
    verified: false,
    tokens,
    avg_price: cost / tokens,
    cost,
    price,
    value: tokens * price,
    pnl: tokens * price - cost,
    pnl_percent: ((tokens * price - cost) / cost) * 100,
  }) as Position;

describe("the dashboard's live patch", () => {
  const data: DashboardData = {
    positions: [position('a', 10, 5, 40), position('b', 3, 10, 30)],
    summary: { at: '2026-11-27T00:00:00Z', realized: 2, unrealized: 10, invested: 70, value: 80 },
    cash: 100,
    ownTokenId: null,
    halted: new Set(),
  };

  it('values each held token at its new price, as my_positions would, and moves the summary by as much', () => {
    const next = patchDashboard(data, [tick('b', 20.05), tick('z', 1)]);
    expect(next.positions.map((p) => [p.token_id, p.price, p.value, p.pnl, p.pnl_percent])).toEqual([
      ['b', 20.05, 60.15, 30.15, 100.5],
      ['a', 5, 50, 10, 25],
    ]);
    expect(next.summary).toEqual({ ...data.summary, value: 110.15, unrealized: 40.15 });
    expect(next.cash).toBe(100);
  });

  it('marks a held token halted and resumed, and leaves the data as it was when nothing held moved', () => {
    expect([...patchDashboard(data, [tick('a', 5, true)]).halted]).toEqual(['a']);
    expect(patchDashboard(data, [tick('a', 5), tick('z', 3)])).toBe(data);
  });
});
