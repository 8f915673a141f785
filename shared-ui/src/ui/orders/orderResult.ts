import type { OrderResult } from '../../contracts/results';
import { formatPrice, formatTime, formatTokens } from '../format';

/** The toast that tells the user what happened to their order. */
export function describeResult(
  r: OrderResult,
  tokenName: string,
  limitPrice?: number,
): { title: string; description: string } {
  const verb = r.side === 'buy' ? 'Bought' : 'Sold';
  const done =
    r.filled > 0
      ? `${verb} ${formatTokens(r.filled, tokenName)} at an average ${formatPrice(r.average_price ?? 0)}, ${r.side === 'buy' ? 'total' : 'proceeds'} ${formatPrice(r.total)}.`
      : '';
  if (r.auction_until) {
    const left = r.amount - r.filled;
    const rest =
      r.status === 'open'
        ? ` The remaining ${formatTokens(r.resting)} ${r.resting === 1 ? 'rests' : 'rest'} at ${formatPrice(limitPrice ?? 0)} and ${r.resting === 1 ? 'joins' : 'join'} the auction.`
        : left > 0
          ? ` The remaining ${formatTokens(left)} ${left === 1 ? 'was' : 'were'} cancelled: only limit orders join an auction.`
          : '';
    return {
      title: 'Volatility Auction',
      description: `${done}${done ? ' ' : ''}Trading further would have moved ${tokenName} beyond its volatility band, so it is paused for an auction until ${formatTime(r.auction_until)}.${rest}`,
    };
  }
  if (r.status === 'filled') return { title: 'Order Filled', description: done };
  if (r.status === 'open' && r.filled === 0) {
    return {
      title: 'Order Placed',
      description: `Your limit order to ${r.side} ${formatTokens(r.amount, tokenName)} at ${formatPrice(limitPrice ?? 0)} is on the book.`,
    };
  }
  if (r.status === 'open') {
    return {
      title: 'Order Partly Filled',
      description: `${done} The remaining ${formatTokens(r.resting)} ${r.resting === 1 ? 'rests' : 'rest'} on the book at ${formatPrice(limitPrice ?? 0)}.`,
    };
  }
  const left = r.amount - r.filled;
  return {
    title: 'Order Partly Filled',
    description: `${done} The remaining ${formatTokens(left)} could not be filled at the moment and ${left === 1 ? 'was' : 'were'} cancelled.`,
  };
}
