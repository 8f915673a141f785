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
  /** The instants between which the period's sales are its realized lots (LotsTable reads them a page at a time). */
  sales: SalesSpan;
}

/** From the opening's close (the first day's 00:00 UTC) to the last day's end; open-ended as null. */
export interface SalesSpan {
  from: string | null;
  to: string | null;
}

export const LOTS_PAGE = 25;

/**
 * One page of the lots sold within `sales`, newest sale first, and whether older ones follow. A
 * page, not all: an active trader sells thousands of lots a year, more than one answer may hold.
 */
export async function loadLots(sales: SalesSpan, page: number) {
  const first = (page - 1) * LOTS_PAGE;
  const rows = unwrap(
    await supabase()
      .rpc('my_realized_lots', { p_from: sales.from ?? undefined, p_to: sales.to ?? undefined }, { get: true })
      .order('sold_at', { ascending: false })
      .order('bought_at', { ascending: false })
      .range(first, first + LOTS_PAGE),
  );
  return { page, rows: rows.slice(0, LOTS_PAGE) as RealizedLot[], more: rows.length > LOTS_PAGE };
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
  const sales = {
    from: days.length ? endOfDay(days[0]!.day) : null,
    to: period === 'custom' && days.length ? endOfDay(days.at(-1)!.day) : null,
  };
  return { days: days as PortfolioDay[], returns, positions, sales };
}
