import type { PortfolioDay, Position, PositionReturn, RealizedLot } from '@repex/shared-ui/contracts';
import { supabase, unwrap } from '@repex/shared-ui/platform';

/** The periods the analysis offers, as the database names them (supabase/schemas/analysis.sql). */
export const PERIODS = [
  { id: '7d', label: '7D' },
  { id: '30d', label: '30D' },
  { id: '90d', label: '90D' },
  { id: '1y', label: '1Y' },
  { id: 'all', label: 'All' },
] as const;
export type Period = (typeof PERIODS)[number]['id'];

export interface Analysis {
  /** From the opening (the close before the period's first day) to today. */
  days: PortfolioDay[];
  /** Each token held over the period, best gain first. */
  returns: PositionReturn[];
  /** The positions now, for the allocation. */
  positions: Position[];
  /** Lots sold within the period, oldest sale first. */
  lots: RealizedLot[];
}

/** Everything the analysis shows for a period, computed by the database from the caller's ledger. */
export async function loadAnalysis(period: Period): Promise<Analysis> {
  const db = supabase();
  const [days, returns, positions] = await Promise.all([
    db.rpc('my_portfolio_history', { p_period: period }).then(unwrap),
    db.rpc('my_position_returns', { p_period: period }).then(unwrap),
    db.rpc('my_positions').then(unwrap),
  ]);
  // The period's sales: from the opening's close (the first day's 00:00 UTC).
  const from = days.length ? new Date(Date.parse(`${days[0]!.day}T00:00:00Z`) + 86_400_000).toISOString() : null;
  const lots = await db.rpc('my_realized_lots', { p_from: from, p_to: null }).then(unwrap);
  return { days: days as PortfolioDay[], returns, positions, lots };
}
