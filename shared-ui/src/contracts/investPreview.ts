/** `preview_invest_plan(amount, token)`: what a run of a plan would buy now (supabase/schemas/auto_invest.sql). */
export interface InvestPreview {
  items: { token_id: string; name: string; tokens: number; cost: number }[];
  /** What the items cost, fees included. */
  spent: number;
  /** What stays cash. */
  left: number;
  /** Tokens in the basket: 1 for a one-token plan. */
  members: number;
  /** Of them, how many the amount buys a token of. */
  bought: number;
  /** For the index: the amount at which each member's share buys at least one token. */
  basket_min: number | null;
}
