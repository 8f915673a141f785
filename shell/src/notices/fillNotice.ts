import { formatInteger, formatPrice, formatTokens } from '@repex/shared-ui/ui';

import type { FilledOrder } from './data';

/**
 * What to tell the user when someone traded against their resting orders. A resting order trades
 * at its own price, so the order's terms say it all; several at once get one toast.
 */
export function fillNotice(orders: FilledOrder[]): { title: string; description: string } | null {
  if (orders.length === 0) return null;
  if (orders.length > 1) {
    return {
      title: 'Orders Filled',
      description: `${formatInteger(orders.length)} of your limit orders traded. Your dashboard has the details.`,
    };
  }
  const o = orders[0]!;
  if (o.triggered_at !== null && o.stop_price !== null) return stopNotice(o);
  const terms = `Your limit order to ${o.side} ${formatTokens(o.amount, o.tokens?.name)} at ${formatPrice(Number(o.price))}`;
  if (o.status === 'filled') return { title: 'Order Filled', description: `${terms} has filled.` };
  const done = `${formatInteger(o.filled)} ${o.side === 'buy' ? 'bought' : 'sold'}`;
  // Cancelled by its owner between the fill and this notice: what traded is what counts.
  if (o.status === 'cancelled')
    return { title: 'Order Partly Filled', description: `${terms}: ${done} before it was cancelled.` };
  const left = o.amount - o.filled;
  return {
    title: 'Order Partly Filled',
    description: `${terms}: ${done} so far, ${formatInteger(left)} still on the book.`,
  };
}

/** A stop that someone else's trade triggered: the price it waited for, and what it did then. */
function stopNotice(o: FilledOrder): { title: string; description: string } {
  const reached = `The price reached ${formatPrice(Number(o.stop_price))}: your stop to ${o.side} ${formatTokens(o.amount, o.tokens?.name)}`;
  const average = o.filled > 0 ? formatPrice(Number(o.filled_value) / o.filled) : '';
  const done = `${formatInteger(o.filled)} ${o.side === 'buy' ? 'bought' : 'sold'} at an average ${average}`;
  if (o.status === 'filled')
    return { title: 'Stop Triggered', description: `${reached} triggered and filled: ${done}.` };
  if (o.status === 'open')
    return {
      title: 'Stop Triggered',
      description: `${reached} triggered: ${done}, ${formatInteger(o.amount - o.filled)} on the book at ${formatPrice(Number(o.price))}.`,
    };
  return {
    title: 'Stop Triggered',
    description: `${reached} triggered: ${done}; the rest could not fill and was cancelled.`,
  };
}
