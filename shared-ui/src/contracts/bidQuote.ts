/** What a bid in an offering would cost and be refused for (`quote_offering_bid`, supabase/schemas/offerings.sql). */
export interface BidQuote {
  value: number;
  fee: number;
  total: number;
  /** The caller's available cash with their current bid's reservation, which a change releases. */
  usable: number;
  refusal: string | null;
}
