/** Rows of the read models the screens use (see supabase/schemas). Numbers are JSON numbers. */
export interface MarketToken {
  id: string;
  owner_id: string | null;
  name: string;
  username: string;
  category: string;
  reputation_score: number;
  avatar_url: string | null;
  verified: boolean;
  total_supply: number;
  price: number;
  change_24h: number;
  volume_24h: number;
  market_cap: number;
  holders: number;
  available_supply: number;
  /** Trading in it is halted by the exchange (the reason is on the token). */
  halted: boolean;
}

export interface MyTrade {
  id: number;
  token_id: string;
  name: string;
  username: string;
  type: 'buy' | 'sell';
  amount: number;
  price: number;
  value: number;
  fee: number;
  total: number;
  created_at: string;
}

export interface Profile {
  id: string;
  username: string;
  full_name: string;
  bio: string;
  location: string;
  avatar_url: string | null;
  cover_url: string | null;
  role: 'user' | 'admin';
  status: 'active' | 'suspended';
  verified: boolean;
  followers: number;
  following: number;
  engagement_rate: number;
  created_at: string;
}

export const MARKET_TOKEN_COLUMNS =
  'id, owner_id, name, username, category, reputation_score, avatar_url, verified, total_supply, price, change_24h, volume_24h, market_cap, holders, available_supply, halted';

/** A point of public.my_pnl: the caller's profit & loss at a moment (the last one is now). */
export interface PnlPoint {
  at: string;
  realized: number;
  unrealized: number;
  invested: number;
  value: number;
}

/** A row of public.my_positions: a token the caller holds, its cost and its P&L. */
export interface Position {
  token_id: string;
  name: string;
  username: string;
  category: string;
  avatar_url: string | null;
  verified: boolean;
  tokens: number;
  avg_price: number;
  cost: number;
  price: number;
  value: number;
  pnl: number;
  pnl_percent: number;
}

/** `reputation_components(token)`: the reputation score's parts (points) and the facts behind them. */
export interface ReputationComponents {
  verified: number;
  holders: number;
  volume: number;
  stability: number;
  age: number;
  alerts: number;
  score: number;
  facts: {
    holders: number;
    volume_30d: number;
    price_variation_7d: number | null;
    account_age_days: number;
    open_alerts: number;
  };
}
