import type { Database as Generated } from './database';
import type {
  AccountDetails,
  AdminUserRow,
  AlertReview,
  AuditEntry,
  DashboardStats,
  FraudAlert,
  OrderResult,
  PairResult,
  Payment,
  ReputationComponents,
  ReputationBreakdown,
  RevenueRow,
  SocialAnalysis,
  Statement,
  TokenApplicationRow,
} from './results';
import type { OrderQuote } from './orderQuote';
import type { BidQuote } from './bidQuote';
import type { InvestPreview } from './investPreview';
import type { FirstSteps } from './firstSteps';
import type { ApiKey, NewApiKey } from './apiKey';
import type { MarketScreen, TradingScreen } from './screens';
import type { Post, ReportedPost } from './discussion';
import type { TokenIntegrity } from './integrity';

/*
 * The browser's Database type: the generated one (npm run db:types), with what the catalog cannot
 * say laid over it, as Supabase's guide does with its generated types:
 *  - a function's arguments may be null: a SQL function takes null for any argument and each of
 *    RepX's refuses a missing value in words, which the screens show as the database says it;
 *  - jsonb results have the shapes results.ts declares, and a table a function returns has the
 *    nulls it can return (the catalog calls each of its columns not null);
 *  - PostgreSQL calls every column of a view nullable; the ones that can be null are named below,
 *    and the others are not null, as the views' definitions (supabase/schemas) make them.
 */
type Public = Generated['public'];
type Functions = Public['Functions'];

/** The shape of each result the catalog cannot tell, by function. */
interface JsonResults {
  place_order: OrderResult;
  place_oco: PairResult;
  replace_order: OrderResult;
  create_deposit: Payment;
  create_withdrawal: Payment;
  reputation_components: ReputationComponents;
  /** A token not yet scored has none. */
  reputation_breakdown: ReputationBreakdown | null;
  quote_order: OrderQuote;
  quote_offering_bid: BidQuote;
  preview_invest_plan: InvestPreview;
  my_first_steps: FirstSteps;
  my_statement: Statement;
  trading_screen: TradingScreen;
  market_screen: MarketScreen;
  social_analysis: SocialAnalysis | null;
  /** An hour that ended before the token was listed has no price. */
  price_history: { bucket: string; price: number | null }[];
  admin_dashboard_stats: DashboardStats;
  admin_account_details: AccountDetails;
  admin_review_alert: AlertReview;
  list_api_keys: ApiKey[];
  create_api_key: NewApiKey;
  revoke_api_key: ApiKey;
  admin_revoke_api_key: ApiKey;
  // Tables whose columns can be null, or hold jsonb, where the catalog says neither.
  admin_list_users: AdminUserRow[];
  admin_list_applications: TokenApplicationRow[];
  admin_audit_log: AuditEntry[];
  admin_list_alerts: FraudAlert[];
  admin_revenue: RevenueRow[];
  /** wallet_history's rows, without their position from the first. */
  recent_wallet_history: Omit<ViewRow<'wallet_history'>, 'position'>[];
  /** The same, with each row's seq, by which the next page starts after it. */
  wallet_history_after: (Omit<ViewRow<'wallet_history'>, 'position'> & { seq: number })[];
  token_integrity: TokenIntegrity;
  create_post: Post;
  token_posts: Post[];
  admin_post_reports: ReportedPost[];
  open_holders_room: { token_id: string; min_tokens: number; opened_at: string };
  report_post: { reported: boolean; hidden: boolean };
  admin_hide_post: { id: number; hidden: boolean };
  admin_restore_post: { id: number; hidden: boolean };
  hide_room_reply: { id: number; hidden: boolean };
}

/** Each argument may be null; a function without arguments takes an empty object. */
type Nullable<A> = [A] extends [never] ? Record<string, never> : { [K in keyof A]: A[K] | null };

type Views = Public['Views'];

/** The columns of each view that can be null (a token without an owner or a picture, say). */
interface NullableViewColumns {
  index_basket: never;
  market_summary: never;
  market_tokens: 'owner_id' | 'avatar_url' | 'auction_until';
  my_notifications: 'link' | 'read_at';
  my_invest_plans:
    | 'token_id'
    | 'token_name'
    | 'token_username'
    | 'run_day'
    | 'last_period'
    | 'last_status'
    | 'last_spent'
    | 'last_reason';
  my_invest_runs:
    | 'run_reason'
    | 'token_id'
    | 'token_name'
    | 'budget'
    | 'order_id'
    | 'tokens'
    | 'value'
    | 'fee'
    | 'average_price'
    | 'reason';
  my_price_alerts: 'price' | 'move_pct' | 'fired_at' | 'fired_price' | 'message';
  my_trades: never;
  offering_book: 'closed_at' | 'clearing_price' | 'indicative_price' | 'indicative_volume' | 'demand';
  order_book: never;
  recent_trades: never;
  token_categories: never;
  token_vesting: never;
  volatility_auction_book:
    'uncrossed_at' | 'uncross_price' | 'indicative_price' | 'indicative_volume' | 'demand' | 'supply';
  wallet_history: 'message' | 'wallet_id' | 'trade_id';
}

type ViewRow<V extends keyof Views> = {
  [C in keyof Views[V]['Row']]: C extends NullableViewColumns[V] ? Views[V]['Row'][C] : NonNullable<Views[V]['Row'][C]>;
};

type TypedFunction<F extends keyof Functions> = {
  Args: Nullable<Functions[F]['Args']>;
  Returns: F extends keyof JsonResults ? JsonResults[F] : Functions[F]['Returns'];
};

export type Database = {
  public: Omit<Public, 'Functions' | 'Views'> & {
    Functions: { [F in keyof Functions]: TypedFunction<F> };
    Views: { [V in keyof Views]: { Row: ViewRow<V>; Relationships: Views[V]['Relationships'] } };
  };
};

/** A function the API exposes, its arguments and its result. */
export type FunctionName = keyof Functions;
export type FunctionArgs<F extends FunctionName> = Database['public']['Functions'][F]['Args'];
export type FunctionResult<F extends FunctionName> = Database['public']['Functions'][F]['Returns'];
