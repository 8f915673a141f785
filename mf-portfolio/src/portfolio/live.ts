import { lastTickOf, type MarketTick } from '@repex/shared-ui/contracts';
import type { DashboardData } from './data';

const cents = (n: number) => Math.round(n * 100) / 100;

/**
 * The dashboard as the market's messages move it: each held token at its new price, its value and
 * P&L (as public.my_positions computes them), the positions in value order again, the summary's
 * value and unrealized P&L by the same change, and which held tokens are halted. What the user
 * owns changes only with their own account's notes, which read the dashboard again.
 */
export function patchDashboard(d: DashboardData, ticks: MarketTick[]): DashboardData {
  const last = lastTickOf(ticks);
  let moved = 0;
  let changed = false;
  const positions = d.positions.map((p) => {
    const t = last.get(p.token_id);
    if (!t || t.price === p.price) return p;
    changed = true;
    const value = cents(p.tokens * t.price);
    moved += value - p.value;
    const pnl = cents(value - p.cost);
    return { ...p, price: t.price, value, pnl, pnl_percent: p.cost > 0 ? cents((pnl / p.cost) * 100) : 0 };
  });
  const halted = new Set(d.halted);
  for (const p of d.positions) {
    const t = last.get(p.token_id);
    if (t && t.halted !== halted.has(p.token_id)) {
      changed = true;
      if (t.halted) halted.add(p.token_id);
      else halted.delete(p.token_id);
    }
  }
  if (!changed) return d;
  positions.sort((a, b) => b.value - a.value || a.name.localeCompare(b.name));
  return {
    ...d,
    positions,
    halted,
    summary: { ...d.summary, value: cents(d.summary.value + moved), unrealized: cents(d.summary.unrealized + moved) },
  };
}
