import type { MyTrade } from '@repex/shared-ui/contracts';
import { supabase, unwrap } from '@repex/shared-ui/platform';

export const TRANSACTIONS_PAGE = 25;

export interface TransactionsPage {
  /** Which page these rows are (the one asked for may still be on its way). */
  page: number;
  rows: MyTrade[];
  /** Whether older trades follow this page. */
  more: boolean;
}

/**
 * One page of the user's trades, newest first, without their own token's (the profile shows those).
 * A page, not the history: an active trader's every trade would be read on every dashboard open.
 * One row past the page says whether an older page exists, without counting them all.
 */
export async function loadTransactions(page: number, ownTokenId: string | null): Promise<TransactionsPage> {
  const from = (page - 1) * TRANSACTIONS_PAGE;
  let q = supabase().from('my_trades').select('*');
  if (ownTokenId) q = q.neq('token_id', ownTokenId);
  const rows = unwrap(
    await q
      .order('created_at', { ascending: false })
      .order('id', { ascending: false })
      .range(from, from + TRANSACTIONS_PAGE),
  );
  return { page, rows: rows.slice(0, TRANSACTIONS_PAGE), more: rows.length > TRANSACTIONS_PAGE };
}
