import { MARKET_TOKEN_COLUMNS, type MarketToken, type PnlPoint, type Position } from '@repex/shared-ui/contracts';
import { supabase, unwrap } from '@repex/shared-ui/platform';

export interface DashboardData {
  positions: Position[];
  /** Now: the dashboard's four figures (the last point of the P&L history, so both agree). */
  summary: PnlPoint;
  cash: number;
  ownTokenId: string | null;
  /** The held tokens in which the exchange halted trading. */
  halted: Set<string>;
}

/**
 * Everything the dashboard shows, computed by the database and read through row-level security:
 * positions, their halts and P&L (public.my_positions, public.my_pnl) and the user's cash, in one
 * round of reads. The trades are the Transactions tab's own read (transactions.ts), a page at a time. The user's own token is not an investment (they received it), so it is
 * left out; the profile shows it.
 */
export async function loadDashboard(userId: string): Promise<DashboardData> {
  const db = supabase();
  const [positions, pnl, cash, own] = await Promise.all([
    db.rpc('my_positions').then(unwrap),
    db.rpc('my_pnl', { p_days: 1 }).then(unwrap),
    db.from('cash_accounts').select('available').eq('user_id', userId).maybeSingle().then(unwrap),
    db.from('tokens').select('id').eq('owner_id', userId).maybeSingle().then(unwrap),
  ]);
  const ownTokenId = own?.id ?? null;
  return {
    halted: new Set(positions.filter((p) => p.halted).map((p) => p.token_id)),
    positions,
    summary: pnl[pnl.length - 1]!,
    cash: cash?.available ?? 0,
    ownTokenId,
  };
}

export async function loadWatchlist(): Promise<MarketToken[]> {
  const ids = (await supabase().from('watchlist').select('token_id').then(unwrap)).map((w) => w.token_id);
  if (!ids.length) return [];
  return supabase().from('market_tokens').select(MARKET_TOKEN_COLUMNS).in('id', ids).order('name').then(unwrap);
}

/** A new person's first steps: deposit, trade, connect accounts, apply for a token (public.my_first_steps). */
export const loadFirstSteps = async () => unwrap(await supabase().rpc('my_first_steps', undefined, { get: true }));
