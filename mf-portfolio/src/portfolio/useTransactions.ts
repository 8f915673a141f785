import { useState } from 'react';
import { useAccountFeed, useQuery, useSoon } from '@repex/shared-ui/platform';
import { loadTransactions } from './transactions';

/**
 * The Transactions tab's page of trades, read when the tab opens and again when the account's
 * notes say something changed; `ownTokenId` is undefined until the dashboard knows it.
 */
export function useTransactions(ownTokenId: string | null | undefined) {
  const [page, setPage] = useState(1);
  const trades = useQuery(
    () => (ownTokenId === undefined ? Promise.resolve(undefined) : loadTransactions(page, ownTokenId)),
    [ownTokenId, page],
  );
  useAccountFeed(useSoon(trades.reload, 1_000, 300), trades.reload);
  return { trades, setPage };
}
