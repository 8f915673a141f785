/**
 * What an order would do now, walked by the engine's own rules, or a stop's figures at its trigger
 * (`quote_order`; supabase/schemas/quotes.sql says each field).
 */
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
  /** 'band': the next order lies beyond the volatility band; placed, the order starts a volatility auction. */
  stopped_by: 'filled' | 'cash' | 'limit' | 'band' | 'book' | 'stop';
  resting: number;
  rest_value: number;
  rest_fee: number;
  /** A stop's figures at its trigger, the cash it holds back and the most tokens it may be for. */
  at_trigger: {
    price: number;
    value: number;
    fee: number;
    total: number;
    proceeds: number;
    hold: number;
    max_amount: number;
  } | null;
  last_price: number;
  band_bps: number;
  band_edge: number;
  impact_bps: number | null;
  /** The price beyond the volatility band the order would meet, and the band's centre and width. */
  band_beyond: number | null;
  band_reference: number | null;
  volatility_band_bps: number;
  best_bid: number | null;
  best_ask: number | null;
  fee_bps: number;
  cash: number;
  held: number;
  blocked: string | null;
  /** The first of the order's terms the engine would refuse, and the term it is about. */
  term_refusal: { term: OrderTerm; message: string } | null;
  refusal: string | null;
}

/** The term of an order a refusal is about: the field the panel says it beside ('terms': none). */
export type OrderTerm = 'expires_at' | 'stop_price' | 'price' | 'take_profit' | 'terms';
