/** A movement as public.wallet_history_after returns it: its place in the history's order, and the balance after it. */
export interface WalletPlace {
  created_at: string;
  type: string;
  seq: number;
  id: string;
  balance: number;
}

/** wallet_history_after's arguments for the page after `last`, going on from its balance; the first page without one. */
export const pageAfter = (last?: WalletPlace) =>
  last
    ? {
        p_after_at: last.created_at,
        p_after_type: last.type,
        p_after_seq: last.seq,
        p_after_id: last.id,
        p_balance: last.balance,
      }
    : {};
