import { useEffect, useState } from 'react';
import {
  toast,
  useAccountFeed,
  useExchangeSettings,
  useQuery,
  useSoon,
  useTableChanges,
} from '@repex/shared-ui/platform';
import { formatPrice } from '@repex/shared-ui/ui';
import { cancelWithdrawal, loadBankAccounts, loadCash, loadHistory } from './data';

/**
 * The wallet's state: cash, the exchange's money limits, bank accounts (read again when one's wait
 * ends), the history of one kind of movement, all followed live; the payment provider's answers
 * said in toasts as they arrive; and cancelling a pending withdrawal.
 */
export function useWallet(userId: string, kind: string) {
  const cash = useQuery(() => loadCash(userId), [userId]);
  const limits = useExchangeSettings();
  const accounts = useQuery(loadBankAccounts, []);
  // An account's wait ends while the page is open: read the accounts again then.
  useEffect(() => {
    const now = Date.now();
    const nextReady = accounts.data
      ?.map((d) => Date.parse(d.usable_from))
      .filter((t) => t > now)
      .sort((a, b) => a - b)[0];
    if (nextReady === undefined) return;
    const timer = setTimeout(accounts.reload, Math.min(nextReady - now + 1000, 2 ** 31 - 1));
    return () => clearTimeout(timer);
  }, [accounts.data, accounts.reload]);
  const history = useQuery(() => loadHistory(kind), [kind]);

  const [version, setVersion] = useState(0);
  const reload = () => {
    cash.reload();
    history.reload();
    setVersion((v) => v + 1);
  };
  // A trade or a fee share moves the user's cash: their account's notes say so.
  useAccountFeed(useSoon(reload, 500, 200), reload);
  // The provider's answer arrives later: say it when it does.
  useTableChanges(
    'wallet_transactions',
    `user_id=eq.${userId}`,
    (row) => {
      reload();
      const amount = formatPrice(Number(row.amount));
      if (row.type === 'deposit' && row.status === 'completed')
        toast({ title: 'Deposit Completed', description: `${amount} is now available.` });
      if (row.status === 'failed') {
        toast({
          title: row.type === 'deposit' ? 'Deposit Failed' : 'Withdrawal Failed',
          description: String(row.message ?? ''),
          variant: 'destructive',
        });
      }
      if (row.type === 'withdrawal' && row.status === 'completed')
        toast({ title: 'Withdrawal Completed', description: `${amount} was paid out.` });
    },
    100,
  );

  const cancel = async (id: number) => {
    const refused = await cancelWithdrawal(id);
    if (refused) return toast({ title: 'Cancel Failed', description: refused, variant: 'destructive' });
    toast({ title: 'Withdrawal Cancelled', description: 'The funds are available again.' });
    reload();
  };

  return { cash, limits, accounts, history, version, reload, cancel };
}
