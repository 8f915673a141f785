/** Rows the wallet reads (see supabase/schemas/money.sql). */
export interface HistoryEntry {
  id: string;
  type: 'Deposit' | 'Withdrawal' | 'Buy' | 'Sell' | 'Trade Fee';
  description: string;
  amount: number;
  effect: number;
  balance: number;
  position: number;
  status: 'Pending' | 'Processing' | 'Completed' | 'Failed' | 'Cancelled';
  message: string | null;
  wallet_id: number | null;
  created_at: string;
}

export interface Limits {
  deposit_min: number;
  deposit_max: number;
  withdrawal_min: number;
  withdrawal_daily_limit: number;
  new_bank_account_hold_hours: number;
}

export interface Cash {
  available: number;
  reserved: number;
  pending_withdrawal: number;
}

export interface Destination {
  id: string;
  label: string;
  account_last4: string;
  /** When it may first receive a withdrawal. */
  usable_from: string;
}
