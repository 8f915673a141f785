import { formatPrice } from '../format';

/** An alert as the lists read it (public.my_price_alerts). */
export interface ListedAlert {
  id: number;
  token_id: string;
  name: string;
  kind: string;
  price: number | null;
  move_pct: number | null;
  fired_at: string | null;
  fired_price: number | null;
}

/** An alert's condition, short: 'At or above $46.00', 'Moves 5% in 24h'. */
export function alertCondition(a: Pick<ListedAlert, 'kind' | 'price' | 'move_pct'>): string {
  if (a.kind === 'above') return `At or above ${formatPrice(a.price ?? 0)}`;
  if (a.kind === 'below') return `At or below ${formatPrice(a.price ?? 0)}`;
  return `Moves ${a.move_pct}% in 24h`;
}

/** The value a form edits: a level's price, or a move's percentage. */
export const alertValue = (a: Pick<ListedAlert, 'kind' | 'price' | 'move_pct'>) =>
  a.kind === 'move' ? (a.move_pct ?? 0) : (a.price ?? 0);
