import type { PortfolioDay, Position, PositionReturn, RealizedLot } from '@repex/shared-ui/contracts';
import { supabase, unwrap } from '@repex/shared-ui/platform';

/** The periods the analysis offers, as the database names them (supabase/schemas/analysis.sql). */
export const PERIODS = [
  { id: '7d', label: '7D' },
  { id: '30d', label: '30D' },
  { id: '90d', label: '90D' },
  { id: '1y', label: '1Y' },
  { id: 'all', label: 'All' },
  { id: 'custom', label: 'Custom' },
] as const;
export type Period = (typeof PERIODS)[number]['id'];

/** A custom period's first and last UTC days (2026-11-01), as typed; the database judges them. */
export interface DayRange {
  from: string;
  to: string;
}

/** The day after `day` (2026-11-30 -> 2026-12-01), as an instant: the end of `day` in UTC. */
const endOfDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString();

export interface Analysis {
  /** From the opening (the close before the period's first day) to its last day: today, or a custom period's end. */
  days: PortfolioDay[];
  /** Each token held over the period, best gain first. */
  returns: PositionReturn[];
  /** The positions now, for the allocation. */
  positions: Position[];
  /** Lots sold within the period, oldest sale first. */
  lots: RealizedLot[];
}

/**
 * Everything the analysis shows for a period (a custom one from `range`), computed by the database
 * from the caller's ledger; a custom period's dates that make none are refused in its words.
 */
export async function loadAnalysis(period: Period, range?: DayRange): Promise<Analysis> {
  const db = supabase();
  const span =
    period === 'custom'
      ? { p_period: period, p_from: range?.from || undefined, p_to: range?.to || undefined }
      : { p_period: period };
  // The history and returns are read with GET: a replica may serve them (the positions are the
  // user's holdings now, from the primary).
  const [days, returns, positions] = await Promise.all([
    db.rpc('my_portfolio_history', span, { get: true }).then(unwrap),
    db.rpc('my_position_returns', span, { get: true }).then(unwrap),
    db.rpc('my_positions').then(unwrap),
  ]);
  // The period's sales: from the opening's close (the first day's 00:00 UTC) to its last day's end.
  const from = days.length ? endOfDay(days[0]!.day) : null;
  const to = period === 'custom' && days.length ? endOfDay(days.at(-1)!.day) : null;
  const lots = await db
    .rpc('my_realized_lots', { p_from: from ?? undefined, p_to: to ?? undefined }, { get: true })
    .then(unwrap);
  return { days: days as PortfolioDay[], returns, positions, lots };
}
