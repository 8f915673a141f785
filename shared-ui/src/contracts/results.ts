import type { ApiKey } from './apiKey';
/**
 * What the database's jsonb results hold: the generator can only call them Json, so their shapes
 * are declared here, once, and laid over the generated types (typedDatabase.ts).
 */

/** What place_order and replace_order answer (supabase/schemas/orders.sql, order_changes.sql). */
export interface OrderResult {
  order_id: number;
  /** pending: a stop waiting off the book for its trigger. */
  status: 'open' | 'pending' | 'filled' | 'cancelled';
  side: 'buy' | 'sell';
  type: 'market' | 'limit';
  time_in_force: TimeInForce;
  /** A stop's trigger price. */
  stop_price?: number;
  amount: number;
  filled: number;
  resting: number;
  average_price: number | null;
  total: number;
  /** replace_order: the order it replaced. */
  replaced?: number;
  /** The order met the volatility band: the token's auction ends then (supabase/schemas/auctions.sql). */
  auction_until?: string;
}

/** How long an order lives: good til cancelled, immediate or cancel, fill or kill, good til date. */
export type TimeInForce = 'gtc' | 'ioc' | 'fok' | 'gtd';

/** What place_oco answers: its take-profit, and its stop unless the take-profit filled at once. */
export interface PairResult {
  take_profit: OrderResult;
  stop: OrderResult | null;
}

/** What create_deposit and create_withdrawal answer (supabase/schemas/money.sql). */
export interface Payment {
  id: number;
  reference: string;
  status: string;
  amount: number;
  method: string;
  message: string | null;
}

/* The admin's functions (supabase/schemas/admin.sql and fraud.sql). */

/** admin_dashboard_stats: the admin dashboard's figures. */
export interface DashboardStats {
  total_users: number;
  active_users: number;
  suspended_users: number;
  fraud_alerts: number;
  daily_volume: number;
  revenue_24h: number;
  trades_24h: number;
  pending_applications: number;
}

/** A row of admin_list_users: an account as User Management lists it. */
export interface AdminUserRow {
  id: string;
  username: string;
  full_name: string;
  email: string;
  role: 'user' | 'admin';
  status: 'active' | 'suspended';
  verified: boolean;
  joined: string;
  trades_30d: number;
  application_id: number | null;
  /** Whether the sign-up's mailed code was entered; an account waiting for it cannot sign in yet. */
  confirmed: boolean;
  /** How many accounts match the search and filter (the same on every row of a page). */
  total: number;
}

/** A row of admin_list_applications: a token application waiting for a decision. */
export interface TokenApplicationRow {
  id: number;
  user_id: string;
  username: string;
  email: string;
  display_name: string;
  category: string;
  bio: string;
  socials: { platform: string; handle: string; url: string; followers?: number | null }[];
  created_at: string;
  /** Tokens already on the market under the same name (letter case and spacing aside). */
  namesakes: { name: string; username: string; verified: boolean }[];
  /** The applicant's social analysis now, or null without a connected account. */
  analysis: SocialAnalysis | null;
}

/** One component of a social analysis: its value out of 100, its weight, its share of the score, and why. */
export interface SocialComponent {
  value: number;
  weight: number;
  share: number;
  /** Only to the person and to admins. */
  evidence?: string;
}

/**
 * public.social_analysis (supabase/schemas/social.sql): a person's automated analysis over their
 * connected accounts. Others read the score and the components' values, weights and shares only.
 */
export interface SocialAnalysis {
  score: number;
  analysed_at: string;
  components: Record<'reach' | 'engagement' | 'authenticity' | 'tone' | 'consistency', SocialComponent>;
  warnings?: string[];
  accounts?: {
    platform: string;
    handle: string;
    url: string;
    followers: number;
    following: number;
    engagement_rate: number;
    read_at: string;
  }[];
}

/** A row of admin_audit_log. */
export interface AuditEntry {
  id: number;
  created_at: string;
  actor: string | null;
  action: string;
  target_username: string | null;
  target: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  reason: string | null;
}

/** A row of admin_list_alerts: what a fraud rule found. */
export interface FraudAlert {
  id: number;
  rule: string;
  severity: 'low' | 'medium' | 'high';
  status: 'open' | 'reviewing' | 'dismissed' | 'confirmed';
  summary: string;
  accounts: { id: string; username: string }[];
  token_id: string | null;
  token_name: string | null;
  evidence: { trades?: number[]; orders?: number[] };
  note: string | null;
  updated_at: string;
}

/** A row of admin_revenue: one period's trades, volume and fees. */
export interface RevenueRow {
  bucket: string;
  starts: string;
  trades: number;
  volume: number;
  /** Both sides' fees. */
  fees: number;
  /** The takers' part of them. */
  taker_fees: number;
  /** The makers' part: negative where rebates outweigh them. */
  maker_fees: number;
  /** What of them went to the tokens' people. */
  creator_share: number;
  /** The exchange's: fees less the creators' share. */
  revenue: number;
}

/** admin_account_details: everything about one account the admin's Details dialog shows. */
export interface AccountDetails {
  profile: {
    full_name: string;
    username: string;
    email: string;
    status: string;
    verified: boolean;
    created_at: string;
    last_sign_in_at: string | null;
    /** An authenticator app is on (two-step verification). */
    two_step: boolean;
  };
  cash: { available: number; reserved: number; pending_withdrawal: number };
  holdings: { token: string; amount: number; reserved: number }[];
  /** Resting orders and waiting stops: a stop-market has no price, a stop has its trigger. */
  open_orders: {
    id: number;
    token: string;
    side: string;
    price: number | null;
    stop_price: number | null;
    amount: number;
  }[];
  trades: { id: number; token: string; side: string; price: number; amount: number; created_at: string }[];
  payments: { id: number; type: string; amount: number; status: string; method: string | null; created_at: string }[];
  bank_accounts: {
    id: string;
    label: string;
    account_last4: string;
    created_at: string;
    usable_from: string;
    removed_at: string | null;
  }[];
  sessions: {
    id: string;
    created_at: string;
    refreshed_at: string | null;
    user_agent: string | null;
    ip: string | null;
  }[];
  api_keys: ApiKey[];
  activity: { created_at: string; actor: string | null; action: string; reason: string | null }[];
}

/** admin_review_alert: the decision, and how many accounts it suspended. */
export interface AlertReview {
  id: number;
  status: string;
  suspended: number;
}

/** `reputation_components(token)`: the reputation score's parts (points) and the facts behind them. */
export interface ReputationComponents {
  verified: number;
  holders: number;
  volume: number;
  stability: number;
  age: number;
  alerts: number;
  /** The person's social analysis, 20 x its score / 100 (social.sql). */
  social: number;
  score: number;
  /** Each part's most, by the database's formula. */
  max: Record<'verified' | 'holders' | 'volume' | 'stability' | 'age' | 'alerts' | 'social', number>;
  facts: {
    holders: number;
    /** Holders counted by their accounts' trust (reputation.sql). */
    holders_weighted: number;
    volume_30d: number;
    /** 30-day volume counted by the lesser trust of each trade's two sides. */
    volume_30d_weighted: number;
    /** Trades in 7 days: how much the stability figure is worth against its prior. */
    trades_7d: number;
    price_variation_7d: number | null;
    account_age_days: number;
    open_alerts: number;
    /** The social analysis's score out of 100, or null without a connected account. */
    social_score: number | null;
  };
}

/** `reputation_breakdown(token)`: the score as the screens show it, with the parts it was computed from and when. */
export type ReputationBreakdown = ReputationComponents & { scored_at: string };

/** my_statement: an account's period of UTC dates (supabase/schemas/statements.sql), amounts in dollars. */
export interface Statement {
  from: string;
  to: string;
  holder: { name: string; username: string };
  opening_cash: number;
  closing_cash: number;
  deposits: number;
  withdrawals: number;
  bought: number;
  sold: number;
  fees: number;
  /** The person's share of the fees on trades in their token. */
  fee_share: number;
  realized: number;
  /** The positions' value at the close: the sum of `positions`. */
  positions_value: number;
  /** Every cash movement, as the wallet's history lists it; effect is what it did to cash. */
  movements: { at: string; type: string; description: string; status: string; amount: number; effect: number }[];
  trades: {
    at: string;
    side: 'buy' | 'sell' | 'offering sale';
    token: string;
    tokens: number;
    price: number;
    value: number;
    fee: number;
    total: number;
    /** Which fee applied: the order traded at once (taker) or waited in the book (maker); none for an offering sale. */
    liquidity: 'maker' | 'taker' | null;
  }[];
  positions: { token: string; tokens: number; price: number; value: number }[];
  lots: {
    token: string;
    bought_at: string;
    sold_at: string;
    tokens: number;
    cost: number;
    proceeds: number;
    fees: number;
    gain: number;
  }[];
}
