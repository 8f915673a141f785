import type { TimeInForce } from '@repex/shared-ui/contracts';
import { formatDate, formatPrice, formatTime, formatTokens } from '@repex/shared-ui/ui';
import { fundsCheck, maxAmount, orderCost, type Side } from './orderMath';

/** What the panel offers: an order now at market or at a limit, or a stop that waits for a price. */
export type OrderKind = 'market' | 'limit' | 'stop';

/** The terms of an order as the panel holds them, before they are sent. */
export interface OrderTerms {
  side: Side;
  kind: OrderKind;
  amount: number;
  tokenName?: string;
  /** A limit order's price, or a stop-limit's once triggered. */
  limitPrice?: number;
  /** A stop's trigger. */
  stopPrice?: number;
  /** What a stop becomes when triggered. */
  stopType?: 'market' | 'limit';
  /** A sell stop's take-profit: the pair's limit above the market, one cancelling the other. */
  takeProfit?: number | null;
  tif: TimeInForce;
  expiresAt?: Date | null;
  postOnly?: boolean;
}

const until = (d: Date) => `${formatDate(d.toISOString())}, ${formatTime(d.toISOString())}`;

/** A limit's bound in words: a buy pays at most it, a sell accepts at least it. */
const atLimit = (side: Side, price: number) => `at ${formatPrice(price)} or ${side === 'buy' ? 'less' : 'more'}`;

/**
 * What the order will do, in one or two sentences, before it is placed: "If the price falls to
 * $38.00, sell 100 at market." The database decides; this says what it will decide.
 */
export function describePlan(t: OrderTerms): string {
  const verb = t.side === 'buy' ? 'buy' : 'sell';
  const Verb = t.side === 'buy' ? 'Buy' : 'Sell';
  const tokens = formatTokens(t.amount, t.tokenName);
  const expiry = t.tif === 'gtd' && t.expiresAt ? until(t.expiresAt) : null;

  if (!(t.amount >= 1)) return `Enter how many tokens to ${verb}.`;
  if (t.kind === 'market') return `${Verb} ${tokens} now at the best prices; what cannot fill at once is cancelled.`;

  if (t.kind === 'limit') {
    const price = t.limitPrice ?? 0;
    if (t.tif === 'fok') return `${Verb} all ${tokens} ${atLimit(t.side, price)} at once, or nothing at all.`;
    const rest =
      t.tif === 'ioc'
        ? 'What does not fill at once is cancelled.'
        : expiry
          ? `What does not fill now waits on the book until ${expiry}.`
          : 'What does not fill now waits on the book until you cancel it.';
    const postOnly = t.postOnly ? ' Post-only: if any of it would trade at once, the order is refused instead.' : '';
    return `${Verb} ${tokens} ${atLimit(t.side, price)}. ${rest}${postOnly}`;
  }

  const move = t.side === 'buy' ? 'rises' : 'falls';
  // Each price the sentence names is a real one: one not yet entered is asked for, never "$0.00".
  const trigger = t.stopPrice && t.stopPrice > 0 ? formatPrice(t.stopPrice) : 'the trigger price you set';
  const then =
    t.stopType === 'limit'
      ? t.limitPrice && t.limitPrice > 0
        ? `${verb} ${tokens} ${atLimit(t.side, t.limitPrice)}`
        : `${verb} ${tokens} at the limit you set`
      : `${verb} ${tokens} at market`;
  const lasts = expiry ? ` It expires ${expiry} if it has not filled by then.` : '';
  if (t.side === 'sell' && t.takeProfit) {
    return (
      `Sell ${tokens} ${atLimit('sell', t.takeProfit)} (take profit). ` +
      `If the price falls to ${trigger} first, ${then.replace(tokens, 'them')} instead (stop). ` +
      `Whichever happens first cancels the other.${lasts}`
    );
  }
  return `If the price ${move} to ${trigger}, ${then}.${lasts}`;
}

/** A market buy sized as a sum: what it spends, and once quoted, the tokens it buys now. */
export function describeSpend(spend: number, tokenName: string, quote: { filled: number; total: number } | null) {
  const now =
    quote && quote.filled > 0 ? ` (${formatTokens(quote.filled)} now, ${formatPrice(quote.total)} with the fee)` : '';
  return `Spend up to ${spend > 0 ? formatPrice(spend) : 'the sum you enter'} on ${tokenName} tokens at the best prices: the whole tokens it covers${now}. The rest stays cash.`;
}

/** The time-in-force choices, in the words the panel shows. */
export const TIME_IN_FORCE: { value: TimeInForce; label: string }[] = [
  { value: 'gtc', label: 'Good til cancelled' },
  { value: 'ioc', label: 'Immediate or cancel' },
  { value: 'fok', label: 'Fill or kill' },
  { value: 'gtd', label: 'Good til date' },
];

/**
 * Which times in force an order of `kind` may take: a market order is immediate or cancel by nature
 * (it keeps the default), a stop-market or a pair waits (gtc, gtd).
 */
export function timesInForce(kind: OrderKind, stopType: 'market' | 'limit', pair: boolean): TimeInForce[] {
  if (kind === 'market') return ['gtc'];
  if (kind === 'stop' && (stopType === 'market' || pair)) return ['gtc', 'gtd'];
  return ['gtc', 'ioc', 'fok', 'gtd'];
}

/**
 * A trigger price's problems, as the panel tells them: a price like a limit's, on the side of the
 * last price that a stop waits for (the database refuses a stop that would trigger at once).
 */
export function stopPriceError(stop: number, side: Side, lastPrice: number): string | null {
  if (side === 'buy' && stop <= lastPrice)
    return `A buy stop triggers when the price rises to it: set it above the last price, ${formatPrice(lastPrice)}.`;
  if (side === 'sell' && stop >= lastPrice)
    return `A sell stop triggers when the price falls to it: set it below the last price, ${formatPrice(lastPrice)}.`;
  return null;
}

/** A good-til-date expiry: at least a minute ahead and at most 90 days, as the database requires. */
export function expiryError(at: Date | null, now = new Date()): string | null {
  if (!at || Number.isNaN(at.getTime())) return 'Choose the date and time the order expires.';
  if (at.getTime() < now.getTime() + 60_000) return 'Choose a time at least one minute from now.';
  if (at.getTime() > now.getTime() + 90 * 86_400_000) return 'An order expires within 90 days.';
  return null;
}

/** A stop-limit's limit lies beyond its trigger, so that it can trade once the price is there. */
export function stopLimitPriceError(side: Side, limit: number, stop: number): string | null {
  if (side === 'buy' && limit < stop)
    return 'A buy stop-limit buys once the price has risen to the trigger: set the limit at or above it.';
  if (side === 'sell' && limit > stop)
    return 'A sell stop-limit sells once the price has fallen to the trigger: set the limit at or below it.';
  return null;
}

/**
 * The price an order is figured at (its limit, a stop-market's trigger, or the last price), and the
 * price its reservation is held at: a buy stop-market holds its cost at the band's edge from its
 * trigger, the most a market buy may pay there (private.hold_stop).
 */
export function figuredPrices(o: {
  price: number;
  limit?: number;
  stop?: number;
  buyStopMarket: boolean;
  bandBps?: number;
}): { effectivePrice: number; reservePrice: number } {
  const effectivePrice = o.limit ?? o.stop ?? o.price;
  const reservePrice =
    o.buyStopMarket && o.bandBps !== undefined
      ? Math.floor(effectivePrice * (1 + o.bandBps / 10_000) * 100) / 100
      : effectivePrice;
  return { effectivePrice, reservePrice };
}

/**
 * What the panel figures without the database: a stop's figures at its trigger (it trades later, on
 * a book not yet known) and the cash it holds back, with the funds check that holds its button; and
 * the most the user can buy or sell, which the shortcuts share out (a market buy's at the best ask).
 */
export function localFigures(o: {
  side: Side;
  type: OrderKind;
  amount: number;
  price: number;
  limit?: number;
  stop?: number;
  stopMarket: boolean;
  book?: { side: string; price: number }[];
  cash: number;
  held: number;
  feeBps?: number;
  bandBps?: number;
  /** A term is missing or wrong: no funds check yet. */
  incomplete: boolean;
}) {
  const bps = o.feeBps ?? 0;
  const { effectivePrice, reservePrice } = figuredPrices({
    price: o.price,
    limit: o.limit,
    stop: o.stop,
    buyStopMarket: o.stopMarket && o.side === 'buy',
    bandBps: o.bandBps,
  });
  const asks = (o.book ?? []).filter((l) => l.side === 'sell').map((l) => l.price);
  const maxAt = o.type === 'market' && asks.length ? Math.min(...asks) : reservePrice;
  const max = o.feeBps === undefined ? 0 : maxAmount(o.side, o.cash, maxAt, o.held, bps);
  const reserve = orderCost(reservePrice, o.amount, bps).total;
  const funds =
    o.type !== 'stop' || o.feeBps === undefined || o.amount < 1 || o.incomplete
      ? null
      : fundsCheck({
          side: o.side,
          type: o.stopMarket ? 'market' : 'limit',
          amount: o.amount,
          max,
          total: reserve,
          cash: o.cash,
          held: o.held,
        });
  return { max, reserve, funds, atTrigger: { price: effectivePrice, ...orderCost(effectivePrice, o.amount, bps) } };
}
