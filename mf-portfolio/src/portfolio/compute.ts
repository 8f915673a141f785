import { roundTo } from '@repex/shared-ui';

/**
 * Portfolio figures from the user's own trades and current prices, by average cost:
 * a buy adds its total (value + fee) to the position's cost; a sell releases the average cost
 * of the tokens sold and realizes (value - fee) minus that cost.
 */
export interface TradeLeg {
  token_id: string;
  type: 'buy' | 'sell';
  amount: number;
  value: number;
  fee: number;
  created_at: string;
}

export interface Position {
  tokenId: string;
  tokens: number;
  /** Average cost per token, fees included. */
  avgPrice: number;
  cost: number;
  currentPrice: number;
  value: number;
  pnl: number;
  pnlPercent: number;
}

export interface Portfolio {
  positions: Position[];
  totalValue: number;
  totalInvested: number;
  unrealizedPnL: number;
  realizedPnL: number;
}

const cents = (n: number) => roundTo(n, 2);

export function computePortfolio(trades: TradeLeg[], prices: Record<string, number>): Portfolio {
  const open = new Map<string, { tokens: number; cost: number }>();
  let realized = 0;
  const ordered = [...trades].sort((a, b) => a.created_at.localeCompare(b.created_at));
  for (const t of ordered) {
    const p = open.get(t.token_id) ?? { tokens: 0, cost: 0 };
    if (t.type === 'buy') {
      p.tokens += t.amount;
      p.cost += t.value + t.fee;
    } else if (p.tokens > 0) {
      const sold = Math.min(t.amount, p.tokens);
      const released = (p.cost / p.tokens) * sold;
      realized += ((t.value - t.fee) * sold) / t.amount - released;
      p.cost -= released;
      p.tokens -= sold;
    }
    open.set(t.token_id, p);
  }
  const positions: Position[] = [];
  for (const [tokenId, p] of open) {
    if (p.tokens <= 0) continue;
    const currentPrice = prices[tokenId] ?? 0;
    const value = cents(p.tokens * currentPrice);
    const cost = cents(p.cost);
    positions.push({
      tokenId,
      tokens: p.tokens,
      avgPrice: cents(p.cost / p.tokens),
      cost,
      currentPrice,
      value,
      pnl: cents(value - cost),
      pnlPercent: cost > 0 ? ((value - cost) / cost) * 100 : 0,
    });
  }
  positions.sort((a, b) => b.value - a.value);
  const totalValue = cents(positions.reduce((s, p) => s + p.value, 0));
  const totalInvested = cents(positions.reduce((s, p) => s + p.cost, 0));
  return {
    positions,
    totalValue,
    totalInvested,
    unrealizedPnL: cents(totalValue - totalInvested),
    realizedPnL: cents(realized),
  };
}
