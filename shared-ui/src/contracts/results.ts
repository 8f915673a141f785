/**
 * What the database's jsonb results hold: the generator can only call them Json, so their shapes
 * are declared here, once, and laid over the generated types (typedDatabase.ts).
 */

/** What place_order and replace_order answer (supabase/schemas/trading.sql). */
export interface OrderResult {
  order_id: number;
  status: 'open' | 'filled' | 'cancelled';
  side: 'buy' | 'sell';
  type: 'market' | 'limit';
  amount: number;
  filled: number;
  resting: number;
  average_price: number | null;
  total: number;
  /** replace_order: the order it replaced. */
  replaced?: number;
}

/** What create_deposit and create_withdrawal answer (supabase/schemas/money.sql). */
export interface Payment {
  id: number;
  reference: string;
  status: string;
  amount: number;
  method: string;
  message: string | null;
}
