import type { BookLevel } from '../data';

/** One step of a depth chart: at `price`, `total` tokens are bid at it or higher (or asked at it or lower). */
export interface DepthStep {
  price: number;
  total: number;
}

/**
 * The book's depth: for bids, best (highest) first, the tokens wanted at each price or above it;
 * for asks, best (lowest) first, the tokens offered at each price or below it.
 */
export function depthSeries(levels: BookLevel[]): { bids: DepthStep[]; asks: DepthStep[] } {
  const cumulate = (side: 'buy' | 'sell') => {
    let total = 0;
    return levels
      .filter((l) => l.side === side)
      .sort((a, b) => (side === 'buy' ? b.price - a.price : a.price - b.price))
      .map((l) => ({ price: l.price, total: (total += l.amount) }));
  };
  return { bids: cumulate('buy'), asks: cumulate('sell') };
}

/**
 * The two areas of a depth chart as SVG paths in a `width` x `height` box: price runs left to
 * right over both sides, depth bottom to top, each side stepping out from the spread.
 */
export function depthPaths(
  depth: { bids: DepthStep[]; asks: DepthStep[] },
  width: number,
  height: number,
): { bid: string; ask: string; low: number; high: number; most: number } | null {
  const prices = [...depth.bids, ...depth.asks].map((s) => s.price);
  if (prices.length === 0) return null;
  const low = Math.min(...prices);
  const high = Math.max(...prices);
  const most = Math.max(...depth.bids.map((s) => s.total), ...depth.asks.map((s) => s.total));
  const x = (p: number) => (high === low ? width / 2 : ((p - low) / (high - low)) * width);
  const y = (t: number) => height - (t / most) * height;
  const area = (steps: DepthStep[], edge: number) => {
    if (steps.length === 0) return '';
    let d = `M${x(steps[0]!.price).toFixed(1)},${height}`;
    let level = height;
    for (const s of steps) {
      d += ` L${x(s.price).toFixed(1)},${level.toFixed(1)} L${x(s.price).toFixed(1)},${y(s.total).toFixed(1)}`;
      level = y(s.total);
    }
    return `${d} L${edge},${level.toFixed(1)} L${edge},${height} Z`;
  };
  return { bid: area(depth.bids, 0), ask: area(depth.asks, width), low, high, most };
}
