/** What an order would do now, walked by the engine's own rules (`quote_order`; supabase/schemas/quotes.sql says each field). */
export interface OrderQuote {
  filled: number;
  value: number;
  fee: number;
  total: number;
  average_price: number | null;
  best_price: number | null;
  worst_price: number | null;
  levels: { price: number; amount: number }[];
  remaining: number;
  stopped_by: 'filled' | 'cash' | 'limit' | 'book';
  resting: number;
  rest_value: number;
  rest_fee: number;
  last_price: number;
  band_bps: number;
  band_edge: number;
  impact_bps: number | null;
  best_bid: number | null;
  best_ask: number | null;
  fee_bps: number;
  cash: number;
  held: number;
  blocked: string | null;
  refusal: string | null;
}
