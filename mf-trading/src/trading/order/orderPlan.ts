import type { TimeInForce } from '@repex/shared-ui/contracts';
import { formatDate, formatPrice, formatTime, formatTokens } from '@repex/shared-ui/ui';
import type { Side } from './orderMath';

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
