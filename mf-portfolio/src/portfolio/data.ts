import { MARKET_TOKEN_COLUMNS, supabase, unwrap, type MarketToken, type MyTrade } from '@repex/shared-ui';
import { computePortfolio, type Portfolio } from './compute';

export interface DashboardData {
  portfolio: Portfolio;
  tokens: Record<string, MarketToken>;
  trades: MyTrade[];
  cash: number;
  ownTokenId: string | null;
}

/**
 * Everything the dashboard shows, read through row-level security: the user's own trades and
 * cash, and the market rows of the tokens involved. The user's own token is not an investment
 * (they received it), so it is left out of the portfolio; the profile shows it.
 */
export async function loadDashboard(userId: string): Promise<DashboardData> {
  const db = supabase();
  const [trades, cash, own] = await Promise.all([
    db.from('my_trades').select('*').order('created_at', { ascending: false }).then(unwrap),
    db.from('cash_accounts').select('available').eq('user_id', userId).maybeSingle().then(unwrap),
    db.from('tokens').select('id').eq('owner_id', userId).maybeSingle().then(unwrap),
  ]);
  const ownTokenId = (own as { id: string } | null)?.id ?? null;
  const mine = (trades as MyTrade[]).filter((t) => t.token_id !== ownTokenId);
  const ids = [...new Set(mine.map((t) => t.token_id))];
  const rows = ids.length
    ? ((await db.from('market_tokens').select(MARKET_TOKEN_COLUMNS).in('id', ids).then(unwrap)) as MarketToken[])
    : [];
  const tokens = Object.fromEntries(rows.map((r) => [r.id, r]));
  const prices = Object.fromEntries(rows.map((r) => [r.id, r.price]));
  return {
    portfolio: computePortfolio(mine, prices),
    tokens,
    trades: mine,
    cash: (cash as { available: number } | null)?.available ?? 0,
    ownTokenId,
  };
}

export async function loadWatchlist(): Promise<MarketToken[]> {
  const ids = ((await supabase().from('watchlist').select('token_id').then(unwrap)) as { token_id: string }[]).map((w) => w.token_id);
  if (!ids.length) return [];
  return (await supabase().from('market_tokens').select(MARKET_TOKEN_COLUMNS).in('id', ids).order('name').then(unwrap)) as MarketToken[];
}
