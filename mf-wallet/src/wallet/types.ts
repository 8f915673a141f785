import type { ExchangeSettings } from '@repex/shared-ui/platform';

/** The exchange's money limits the wallet's dialogs state (from useExchangeSettings). */
export type Limits = Pick<
  ExchangeSettings,
  'deposit_min' | 'deposit_max' | 'withdrawal_min' | 'withdrawal_daily_limit' | 'new_bank_account_hold_hours'
>;
