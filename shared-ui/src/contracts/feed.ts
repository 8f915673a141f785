/**
 * What the database tells open screens (supabase/schemas/realtime.sql): the market's messages on
 * the private topic 'market', and each account's on 'account:<id>'. The database writes them; these
 * are their shapes.
 */

/** A level of a token's book now: the tokens resting at a price (0: the level emptied). */
export interface TickLevel {
  side: 'buy' | 'sell';
  price: number;
  amount: number;
}

/** A trade as the tape shows it (public.recent_trades): `type` is the taker's side. */
export interface TickTrade {
  id: number;
  price: number;
  amount: number;
  value: number;
  type: 'buy' | 'sell';
  created_at: string;
}

/** Why the market's message was sent (private.tell_market). */
export type TickKind = 'trade' | 'book' | 'halt' | 'offering' | 'auction' | 'listed' | 'stats';

/** One token's change ('token' on 'market'): its figures now, what moved, its touched levels and its trades. */
export interface MarketTick {
  token_id: string;
  kind: TickKind;
  price: number;
  change_24h: number;
  volume_24h: number;
  market_cap: number;
  holders: number;
  halted: boolean;
  /** How the token's market cap and 24h volume moved with this change: the market's totals follow them. */
  market_cap_change: number;
  volume_change: number;
  best_bid: number | null;
  best_ask: number | null;
  levels: TickLevel[];
  /** This change's trades, newest first. */
  trades: TickTrade[];
  /** In a volatility auction's call: what the book would uncross at now (null otherwise). */
  auction: TickAuction | null;
}

/** A volatility auction's indicative figures, as the market's message carries them. */
interface TickAuction {
  indicative_price: number | null;
  indicative_volume: number | null;
  demand: number | null;
  supply: number | null;
}

/**
 * What of an account changed ('account' on 'account:<id>'): its orders, its fills, its cash, an
 * alert, or its notices (a new one, or some read).
 */
export interface AccountNote {
  what: 'orders' | 'fills' | 'cash' | 'alert' | 'notice';
  token_id: string | null;
}

/** The last message of each token in a batch (a later one carries all an earlier one did, and more). */
export function lastTickOf(ticks: MarketTick[]): Map<string, MarketTick> {
  const out = new Map<string, MarketTick>();
  for (const t of ticks) out.set(t.token_id, t);
  return out;
}

/** A row of the market (public.market_tokens) as the token's message says it is now. */
export interface TickedRow {
  id: string;
  price: number;
  change_24h: number;
  volume_24h: number;
  market_cap: number;
  holders: number;
  halted: boolean;
}

/**
 * Each row the batch names, with its figures as they are now; the others as they were (the same
 * objects, so React redraws only what moved). Returns `rows` itself when nothing on it moved.
 */
export function withTicks<R extends TickedRow>(rows: R[], ticks: MarketTick[]): R[] {
  const last = lastTickOf(ticks);
  let moved = false;
  const out = rows.map((row) => {
    const t = last.get(row.id);
    if (!t) return row;
    moved = true;
    return {
      ...row,
      price: t.price,
      change_24h: t.change_24h,
      volume_24h: t.volume_24h,
      market_cap: t.market_cap,
      holders: t.holders,
      halted: t.halted,
    };
  });
  return moved ? out : rows;
}
