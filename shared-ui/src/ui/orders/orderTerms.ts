import { formatDate, formatPrice } from '../format';

/** An open order or a waiting stop, as the lists read it (public.orders). */
export interface ListedOrder {
  price: number | null;
  status: string;
  stop_price?: number | null;
  oco_with?: number | null;
  time_in_force?: string;
  expires_at?: string | null;
}

/**
 * An order's price in a list, and what else a reader needs to know of it: a stop's trigger and what
 * it becomes, the take-profit and stop of a pair, a good-til-date's expiry.
 * '$10.00' | 'Stop $9.50' with 'then market' | 'Take profit $12.00' with 'pair: one cancels the other'.
 */
export function orderTerms(o: ListedOrder): { price: string; note: string | null } {
  const notes: string[] = [];
  let price = o.price === null ? 'Market' : formatPrice(o.price);
  if (o.status === 'pending' && o.stop_price != null) {
    price = `Stop ${formatPrice(o.stop_price)}`;
    notes.push(o.price === null ? 'then market' : `then ${formatPrice(o.price)}`);
  } else if (o.oco_with != null) {
    price = `Take profit ${formatPrice(o.price ?? 0)}`;
  }
  if (o.oco_with != null) notes.push('pair: one cancels the other');
  if (o.time_in_force === 'gtd' && o.expires_at) notes.push(`until ${formatDate(o.expires_at)}`);
  return { price, note: notes.length ? notes.join(' · ') : null };
}
