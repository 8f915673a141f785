import { pageAfter, type WalletPlace } from '@repex/shared-ui/contracts';
import { refusal, supabase, unwrap } from '@repex/shared-ui/platform';

/**
 * The wallet's reads and calls, typed by the database (contracts/typedDatabase.ts). A read throws
 * the database's message; a call answers the refusal's message, or null when it went through.
 */

export const loadCash = async (userId: string) =>
  unwrap(
    await supabase()
      .from('cash_accounts')
      .select('available, reserved, pending_withdrawal')
      .eq('user_id', userId)
      .maybeSingle(),
  );
export type Cash = NonNullable<Awaited<ReturnType<typeof loadCash>>>;

const DESTINATION = 'id, label, account_last4, usable_from';

/** The bank accounts withdrawals can go to, oldest first. */
export const loadBankAccounts = async () =>
  unwrap(await supabase().from('payout_destinations').select(DESTINATION).is('removed_at', null).order('created_at'));
export type Destination = Awaited<ReturnType<typeof loadBankAccounts>>[number];

export const loadBankAccount = async (id: string) =>
  unwrap(await supabase().from('payout_destinations').select(DESTINATION).eq('id', id).maybeSingle());

/** Saves a bank account; its id, or the database's refusal. */
export async function addBankAccount(
  label: string,
  accountNumber: string,
): Promise<{ refused: string } | { id: string }> {
  const { data, error } = await supabase().rpc('add_payout_destination', {
    p_label: label,
    p_account_number: accountNumber,
  });
  return error ? { refused: error.message } : { id: data };
}

export async function removeBankAccount(id: string): Promise<string | null> {
  return refusal(await supabase().rpc('remove_payout_destination', { p_id: id }));
}

/**
 * Every movement of cash of one kind (or all), newest first: the last 500, as the table shows them.
 * Read from the newest (recent_wallet_history), not from the history's start as wallet_history is.
 */
export async function loadHistory(kind: string) {
  // A GET sends each argument as text, null as "null": all kinds is the argument left out.
  const args = kind === 'all' ? { p_limit: 500 } : { p_kind: kind, p_limit: 500 };
  return unwrap(await supabase().rpc('recent_wallet_history', args, { get: true }));
}
export type HistoryEntry = Awaited<ReturnType<typeof loadHistory>>[number];

const historyAfter = async (last?: WalletPlace) =>
  unwrap(await supabase().rpc('wallet_history_after', pageAfter(last)));

/**
 * Every movement of one kind (or all), oldest first, with the balance after each, for the CSV
 * export: a page at a time, each after the last row of the one before and going on from its
 * balance, until one comes back empty. No answer holds more than the API's max_rows, and each
 * page reads only its own movements (wallet_history_after). The balance runs over every
 * movement, so a kind is picked from all of them.
 */
export async function loadWholeHistory(kind: string) {
  const all: Awaited<ReturnType<typeof historyAfter>> = [];
  for (;;) {
    const rows = await historyAfter(all.at(-1));
    if (!rows.length) return kind === 'all' ? all : all.filter((row) => row.type === kind);
    all.push(...rows);
  }
}

export async function cancelWithdrawal(id: number): Promise<string | null> {
  return refusal(await supabase().rpc('cancel_withdrawal', { p_id: id }));
}

/** Until when withdrawals wait after a password or email change, if they do. */
export const loadWithdrawalHold = async (): Promise<string | null> =>
  unwrap(await supabase().rpc('my_withdrawal_hold'));

/** The caller's profit and loss over the last `days` days, a point a day and now. */
export const loadPnl = async (days: number) => unwrap(await supabase().rpc('my_pnl', { p_days: days }));

export const createDeposit = (amount: number | null, card: string, idempotencyKey: string) =>
  supabase().rpc('create_deposit', { p_amount: amount, p_card: card, p_idempotency_key: idempotencyKey });

/** A payment's state as the provider has left it (the caller's own; row-level security). */
export const loadPaymentState = async (id: number) =>
  unwrap(await supabase().from('wallet_transactions').select('status, message').eq('id', id).maybeSingle());

export const createWithdrawal = (amount: number | null, destination: string | null, idempotencyKey: string) =>
  supabase().rpc('create_withdrawal', {
    p_amount: amount,
    p_destination: destination,
    p_idempotency_key: idempotencyKey,
  });
