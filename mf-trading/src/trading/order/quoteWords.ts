import { formatPrice, formatTokens } from '@repex/shared-ui/ui';
import type { OrderQuote } from '@repex/shared-ui/contracts';
import { feePercent, type Side } from './orderMath';

/**
 * What the panel says of the database's quote (quote_order), in words: an order that cannot trade
 * (an error, which holds the button), one that fills only in part (a note), a limit price far from
 * the market (a warning), and the fills' prices. Pure, so each sentence is tested on its own.
 */

const other = (side: Side) => (side === 'buy' ? 'sell' : 'buy');
const pct = (bps: number) => feePercent(Math.abs(bps));

/** The prices an order meets: "$45.38" or "$45.38 to $45.90". */
export function fillRange(q: OrderQuote): string {
  if (q.best_price === null || q.worst_price === null) return '';
  return q.best_price === q.worst_price
    ? formatPrice(q.best_price)
    : `${formatPrice(q.best_price)} to ${formatPrice(q.worst_price)}`;
}

/** Why a market order would not trade at all, or null. */
export function marketError(side: Side, q: OrderQuote, spending: boolean): string | null {
  if (q.filled > 0 || q.stopped_by === 'band') return null;
  if (q.stopped_by === 'cash')
    return spending
      ? `That sum buys no whole token at ${formatPrice(q.best_ask ?? q.last_price)} with the ${feePercent(q.fee_bps)} fee.`
      : `Not enough cash for one token at ${formatPrice(q.best_ask ?? q.last_price)} with the fee.`;
  if (q.stopped_by === 'limit')
    return `No ${other(side)} order is within ${pct(q.band_bps)} of the last price (${formatPrice(q.last_price)}): a market order trades no further from it. Place a limit order at the price you accept.`;
  return `There are no ${other(side)} orders right now. Place a limit order to wait for a ${side === 'buy' ? 'seller' : 'buyer'}.`;
}

/** What happens to the part of a market order that cannot fill at once, or null when it all fills. */
export function marketNote(side: Side, q: OrderQuote): string | null {
  if (q.filled === 0 || q.remaining === 0) return null;
  const verb = side === 'buy' ? 'buys' : 'sells';
  const what = `this order ${verb} ${formatTokens(q.filled)} for ${formatPrice(q.total)}`;
  if (q.stopped_by === 'cash') return `Your cash covers ${formatTokens(q.filled)}: ${what} and cancels the rest.`;
  if (q.stopped_by === 'limit')
    return `Only ${formatTokens(q.filled)} can trade within ${pct(q.band_bps)} of the last price: ${what} and cancels the rest.`;
  return `Only ${formatTokens(q.filled)} are ${side === 'buy' ? 'offered' : 'bid for'} right now: ${what} and cancels the rest.`;
}

/**
 * An order that would meet an order beyond the token's volatility band: what trades first, that
 * the token then pauses for a volatility auction, and what becomes of the rest (it rests and joins
 * the auction, or is cancelled). Null for any other order.
 */
export function bandNote(q: OrderQuote, tokenName: string, rests: boolean): string | null {
  if (q.stopped_by !== 'band' || q.band_beyond === null || q.band_reference === null) return null;
  const first =
    q.filled > 0 ? `It trades ${formatTokens(q.filled)} at ${fillRange(q)}; then` : 'Nothing trades at once:';
  const them = `${q.filled > 0 ? 'the other' : 'its'} ${formatTokens(q.remaining)}`;
  const rest = rests
    ? `${them} wait at your limit and join the auction.`
    : `${them} are cancelled: only limit orders join an auction.`;
  return `At ${formatPrice(q.band_beyond)} this order would move ${tokenName} more than ${pct(q.volatility_band_bps)} from its reference price of ${formatPrice(q.band_reference)}. ${first} ${tokenName} pauses for a volatility auction, and ${rest}`;
}

/**
 * A limit price far from the market, as Coinbase Advanced warns of it: beyond the market band from
 * the last price. Through the book, the order trades at once at the book's prices, not at its limit,
 * and what is left waits at the limit, where anyone may take it; away from it, it waits long.
 */
export function limitWarning(side: Side, limit: number, q: OrderQuote): string | null {
  const away = Math.round(((limit - q.last_price) / q.last_price) * 10_000);
  const through = side === 'buy' ? away > q.band_bps : away < -q.band_bps;
  const behind = side === 'buy' ? away < -q.band_bps : away > q.band_bps;
  const where = `${formatPrice(limit)} is ${pct(away)} ${away > 0 ? 'above' : 'below'} the last price (${formatPrice(q.last_price)})`;
  if (through) {
    const now =
      q.filled > 0
        ? ` It ${side === 'buy' ? 'buys' : 'sells'} ${formatTokens(q.filled)} at once at the book's prices (${fillRange(q)}), not at your limit.`
        : '';
    const rest =
      q.resting > 0
        ? ` The other ${formatTokens(q.resting)} wait at ${formatPrice(limit)}, where anyone may ${side === 'buy' ? 'sell' : 'buy'} them.`
        : '';
    return `Check your limit: ${where}.${now}${rest}`;
  }
  if (behind)
    return `Your limit of ${where}: it trades only if the price ${side === 'buy' ? 'falls' : 'rises'} that far.`;
  return null;
}

/**
 * The confirmation's account of an order at market or at a limit, from the quote: what fills at
 * once, at which prices, and what waits.
 */
export function fillSentence(q: OrderQuote, limit?: number): string {
  const parts: string[] = [];
  if (q.filled > 0)
    parts.push(
      `${formatTokens(q.filled)} fill at once at ${fillRange(q)}${q.best_price !== q.worst_price ? ` (average ${formatPrice(q.average_price ?? 0)})` : ''}`,
    );
  if (q.resting > 0 && limit !== undefined)
    parts.push(`${formatTokens(q.resting)} wait on the book at ${formatPrice(limit)}`);
  else if (q.remaining > 0) parts.push(`${q.filled > 0 ? 'the other ' : ''}${formatTokens(q.remaining)} are cancelled`);
  return parts.length ? `${parts.join('; ')}.` : '';
}
