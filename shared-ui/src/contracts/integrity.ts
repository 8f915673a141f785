/** A token's integrity over 30 days (integrity.sql's token_integrity). */
export interface TokenIntegrity {
  token_id: string;
  since: string;
  /** The worst any figure reaches against the fixed thresholds. */
  level: 'good' | 'watch' | 'concern';
  /** One plain sentence a figure. */
  reading: string[];
  halted_now: boolean;
  halts: number;
  volume: number;
  flagged_volume: number;
  flagged_share: number;
  orders_cancelled: number;
  orders_traded: number;
  cancel_to_fill: number;
  top10_share: number;
  /** The token's person: their founder grant (null without one), vested now, and sold in 30 days. */
  founder: { granted: number | null; vested: number | null; sold_30d: number } | null;
}
