/** Contracts: the shapes the database's read models and the remotes' manifests promise. No state. */
export {
  MARKET_TOKEN_COLUMNS,
  type InvestPlan,
  type InvestRunRow,
  type MarketToken,
  type MyTrade,
  type PnlPoint,
  type PortfolioDay,
  type PositionReturn,
  type RealizedLot,
  type Position,
  type Profile,
} from './data';
export {
  lastTickOf,
  withTicks,
  type AccountNote,
  type MarketTick,
  type TickKind,
  type TickLevel,
  type TickTrade,
  type TickedRow,
} from './feed';
export { parseRemoteManifest, type RemoteManifest, type RemoteRoute, type RouteAccess } from './remoteManifest';
export type { Database, FunctionArgs, FunctionName, FunctionResult } from './typedDatabase';
export type {
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
  SocialComponent,
  Statement,
  TimeInForce,
  TokenApplicationRow,
} from './results';
export type { OrderQuote, OrderTerm } from './orderQuote';
export type { BidQuote } from './bidQuote';
export type { InvestPreview } from './investPreview';
export type { FirstSteps } from './firstSteps';
export type { ApiKey, NewApiKey } from './apiKey';
export type { TokenIntegrity } from './integrity';
export { pageAfter, type WalletPlace } from './walletPage';
export type { DiscussionState, Post, PostOrder, ReactionKind, ReportedPost, Room } from './discussion';
