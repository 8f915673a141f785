import { MARKET_TOKEN_COLUMNS, type TimeInForce } from '@repex/shared-ui/contracts';
import { supabase, unwrap } from '@repex/shared-ui/platform';

/** The trading screen's reads and its one call, typed by the database (contracts/typedDatabase.ts). */

/** How many of the latest trades the tape shows. */
export const TAPE_LENGTH = 5;

/**
 * Everything the screen shows of the token and of the user there, in one request
 * (public.trading_screen): its first read. Each part is read on its own afterwards (below).
 */
export const loadTradingScreen = async (tokenId: string) =>
  unwrap(await supabase().rpc('trading_screen', { p_token: tokenId }, { get: true }));

export const loadToken = async (tokenId: string) =>
  unwrap(await supabase().from('market_tokens').select(MARKET_TOKEN_COLUMNS).eq('id', tokenId).maybeSingle());
export type TradedToken = NonNullable<Awaited<ReturnType<typeof loadToken>>>;

/** Hourly closes over the last 24 hours (public.price_history). */
export const loadPriceHistory = async (tokenId: string) =>
  unwrap(await supabase().rpc('price_history', { p_token: tokenId, p_hours: 24 }, { get: true }));
export type PricePoint = Awaited<ReturnType<typeof loadPriceHistory>>[number];

/** How far back the line reaches: the spec's 24 hours (hourly), a week or a month (hourly), a year or all (daily). */
export const LINE_RANGES = ['24h', '1w', '1m', '1y', 'all'] as const;
export type LineRange = (typeof LINE_RANGES)[number];

/**
 * The line beyond 24 hours: hourly closes over a week or a month (public.price_history), or the
 * daily candles' closes over a year or all time.
 */
export async function loadLine(tokenId: string, range: Exclude<LineRange, '24h'>): Promise<PricePoint[]> {
  if (range === '1w' || range === '1m') {
    const hours = range === '1w' ? 168 : 720;
    return unwrap(await supabase().rpc('price_history', { p_token: tokenId, p_hours: hours }, { get: true }));
  }
  const days = await loadCandles(tokenId, '1d', range === '1y' ? 365 : 1000);
  return days.map((d) => ({ bucket: d.bucket, price: d.close }));
}

/** The candle intervals the database keeps (public.candles). */
export const CANDLE_INTERVALS = ['1m', '5m', '15m', '1h', '4h', '1d'] as const;
export type CandleInterval = (typeof CANDLE_INTERVALS)[number];

/** The latest candles of an interval, oldest first. */
export const loadCandles = async (tokenId: string, interval: CandleInterval, limit = 300) =>
  unwrap(await supabase().rpc('candles', { p_token: tokenId, p_interval: interval, p_limit: limit }, { get: true }));
export type Candle = Awaited<ReturnType<typeof loadCandles>>[number];

/** The book: resting limit orders summed by side and price (public.order_book). */
export const loadBook = async (tokenId: string) =>
  unwrap(await supabase().from('order_book').select('side, price, amount').eq('token_id', tokenId));
export type BookLevel = Awaited<ReturnType<typeof loadBook>>[number];

/** The tape: the latest trades, newest first. */
export const loadTape = async (tokenId: string) =>
  unwrap(
    await supabase()
      .from('recent_trades')
      .select('id, price, amount, type, created_at')
      .eq('token_id', tokenId)
      .order('created_at', { ascending: false })
      .order('id', { ascending: false })
      .limit(TAPE_LENGTH),
  );
export type TapeTrade = Awaited<ReturnType<typeof loadTape>>[number];

/** What the user may spend and sell here: available cash, and available tokens of this one. */
export async function loadMine(userId: string, tokenId: string) {
  const [cash, holding] = await Promise.all([
    supabase().from('cash_accounts').select('available').eq('user_id', userId).maybeSingle(),
    supabase().from('holdings').select('available').eq('user_id', userId).eq('token_id', tokenId).maybeSingle(),
  ]);
  return { cash: unwrap(cash)?.available ?? 0, held: unwrap(holding)?.available ?? 0 };
}

/** The founder's vesting schedule of the token (public.token_vesting), or null for a token without one. */
export const loadVesting = async (tokenId: string) =>
  unwrap(
    await supabase()
      .from('token_vesting')
      .select('total, vested, cliff_at, ends_at')
      .eq('token_id', tokenId)
      .maybeSingle(),
  );
export type Vesting = NonNullable<Awaited<ReturnType<typeof loadVesting>>>;

/**
 * The token's latest offering (public.offering_book): while open, its window, the indicative
 * clearing price and the total demand (bids are sealed); once closed, its price and what it sold.
 */
export const loadOffering = async (tokenId: string) =>
  unwrap(
    await supabase()
      .from('offering_book')
      .select(
        'id, supply, reserve_price, account_cap, fee_bps, closes_at, closed_at, clearing_price, sold, indicative_price, indicative_volume, demand',
      )
      .eq('token_id', tokenId)
      .order('opens_at', { ascending: false })
      .limit(1)
      .maybeSingle(),
  );
export type Offering = NonNullable<Awaited<ReturnType<typeof loadOffering>>>;

/**
 * The token's volatility auction while it is open (public.volatility_auction_book): the band it
 * met, when its call ends, and the indicative price, volume, demand and supply of the book now.
 */
export const loadAuction = async (tokenId: string) =>
  unwrap(
    await supabase()
      .from('volatility_auction_book')
      .select(
        'id, reference_price, band_bps, trigger_price, started_at, ends_at, indicative_price, indicative_volume, demand, supply',
      )
      .eq('token_id', tokenId)
      .is('uncrossed_at', null)
      .maybeSingle(),
  );
export type VolatilityAuction = NonNullable<Awaited<ReturnType<typeof loadAuction>>>;

/** The user's own bid in an offering, and once it has closed, what the bid received. */
export const loadMyBid = async (offeringId: number, userId: string) =>
  unwrap(
    await supabase()
      .from('offering_bids')
      .select('price, amount, reserved, placed_at, allocated')
      .eq('offering_id', offeringId)
      .eq('user_id', userId)
      .maybeSingle(),
  );
export type MyBid = NonNullable<Awaited<ReturnType<typeof loadMyBid>>>;

/** Places the user's bid in the token's open offering, or changes it (place_offering_bid). */
export const placeBid = (tokenId: string, price: number, amount: number) =>
  supabase().rpc('place_offering_bid', { p_token: tokenId, p_price: price, p_amount: amount });

/** What a bid would cost and what placing it would be refused for (quote_offering_bid): a GET. */
export const quoteBid = async (tokenId: string, price: number, amount: number) =>
  unwrap(
    await supabase().rpc('quote_offering_bid', { p_token: tokenId, p_price: price, p_amount: amount }, { get: true }),
  );

/** Cancels the user's bid, releasing what it held back (cancel_offering_bid). */
export const cancelBid = (tokenId: string) => supabase().rpc('cancel_offering_bid', { p_token: tokenId });

/** The user's resting orders and waiting stops on this token. */
export const loadOpenOrders = async (tokenId: string) =>
  unwrap(await supabase().rpc('list_open_orders', { p_token: tokenId }));
export type OpenOrder = Awaited<ReturnType<typeof loadOpenOrders>>[number];

/** A trading halt the exchange put on the token (admin_set_token_halt), if any. */
export const loadHalt = async (tokenId: string) =>
  unwrap(await supabase().from('tokens').select('halt_reason, halted_at').eq('id', tokenId).maybeSingle());

/** When an order stops: its time in force, and a good-til-date order's expiry. */
interface Lifetime {
  tif: TimeInForce;
  expiresAt?: string;
}

/**
 * What an order asks of the book: side, kind, tokens or a sum to spend, a limit's price and
 * lifetime; for a stop, its trigger (`type` is what it becomes) and a sell stop's take-profit.
 */
export interface QuoteRequest {
  tokenId: string;
  side: 'buy' | 'sell';
  type: 'market' | 'limit';
  amount?: number;
  price?: number;
  tif?: TimeInForce;
  expiresAt?: string;
  postOnly?: boolean;
  /** "Spend $50": the most a market buy pays, fee included. */
  maxTotal?: number;
  stopPrice?: number;
  takeProfit?: number;
}

/** A GET: it writes nothing, so any replica may answer it. */
export const quoteOrder = async (q: QuoteRequest) =>
  unwrap(
    await supabase().rpc(
      'quote_order',
      {
        p_token: q.tokenId,
        p_side: q.side,
        p_type: q.type,
        p_amount: q.amount,
        p_price: q.price,
        p_time_in_force: q.tif,
        p_max_total: q.maxTotal,
        p_post_only: q.postOnly,
        p_stop_price: q.stopPrice,
        p_expires_at: q.expiresAt,
        p_take_profit: q.takeProfit,
      },
      { get: true },
    ),
  );

export const placeOrder = (
  order: {
    tokenId: string;
    side: string;
    type: string;
    amount: number;
    price?: number;
    stopPrice?: number;
    postOnly?: boolean;
    maxTotal?: number;
  } & Lifetime,
) =>
  supabase().rpc('place_order', {
    p_token: order.tokenId,
    p_side: order.side,
    p_type: order.type,
    p_amount: order.amount,
    p_price: order.price ?? null,
    p_time_in_force: order.tif,
    p_expires_at: order.expiresAt ?? null,
    p_post_only: order.postOnly ?? false,
    p_stop_price: order.stopPrice ?? null,
    p_max_total: order.maxTotal ?? null,
  });

/** A take-profit and a stop on one holding, one cancelling the other (place_oco). */
export const placePair = (
  pair: { tokenId: string; amount: number; takeProfit: number; stopPrice: number; stopLimit?: number } & Lifetime,
) =>
  supabase().rpc('place_oco', {
    p_token: pair.tokenId,
    p_amount: pair.amount,
    p_take_profit: pair.takeProfit,
    p_stop_price: pair.stopPrice,
    p_stop_limit: pair.stopLimit ?? null,
    p_time_in_force: pair.tif,
    p_expires_at: pair.expiresAt ?? null,
  });

/** How the token's reputation score is made up: the database's formula, part by part. */
export const loadReputationBreakdown = async (tokenId: string) =>
  unwrap(await supabase().rpc('reputation_breakdown', { p_token: tokenId }, { get: true }));

/** The token's integrity over 30 days, with its plain reading (public.token_integrity). */
export const loadIntegrity = async (tokenId: string) =>
  unwrap(await supabase().rpc('token_integrity', { p_token: tokenId }, { get: true }));
