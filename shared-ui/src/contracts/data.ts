import type { Database } from './typedDatabase';

/*
 * Rows of the read models the screens use, as the database's generated types have them
 * (npm run db:types; supabase/schemas). Numbers are JSON numbers.
 */
type Public = Database['public'];

/** A row of public.market_tokens: a token with its market figures. */
export type MarketToken = Omit<Public['Views']['market_tokens']['Row'], 'search_text'>;

/** A row of public.my_trades: one of the caller's trades, from their side. */
export type MyTrade = Public['Views']['my_trades']['Row'];

/** A row of public.profiles. */
export type Profile = Public['Tables']['profiles']['Row'];

export const MARKET_TOKEN_COLUMNS =
  'id, owner_id, name, username, category, reputation_score, avatar_url, verified, total_supply, price, change_24h, volume_24h, market_cap, holders, available_supply, halted, trading_phase, auction_until';

/** A point of public.my_pnl: the caller's profit & loss at a moment (the last one is now). */
export type PnlPoint = Public['Functions']['my_pnl']['Returns'][number];

/** A row of public.my_positions: a token the caller holds, its cost and its P&L. */
export type Position = Public['Functions']['my_positions']['Returns'][number];

/** A row of public.my_invest_plans: one of the caller's Auto-Invest plans, with its last run. */
export type InvestPlan = Public['Views']['my_invest_plans']['Row'];

/** A row of public.my_invest_runs: a run of one of the caller's plans, one row per token it bought or tried. */
export type InvestRunRow = Public['Views']['my_invest_runs']['Row'];

/** A day of public.my_portfolio_history: the caller's closing value, its flows and returns since the opening. */
export type PortfolioDay = Omit<
  Public['Functions']['my_portfolio_history']['Returns'][number],
  'index_return' | 'mwr'
> & {
  /** Null on days before the index started. */
  index_return: number | null;
  /** Null where the capital at work is not positive (more taken out than was in). */
  mwr: number | null;
};

/** A row of public.my_position_returns: a token's gain over a period. */
export type PositionReturn = Public['Functions']['my_position_returns']['Returns'][number];

/** A row of public.my_realized_lots: a piece of a purchase that a sale took, first in first out. */
export type RealizedLot = Public['Functions']['my_realized_lots']['Returns'][number];
