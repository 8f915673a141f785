import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import styled from 'styled-components';
import {
  toast,
  useAppStore,
  useExchangeSettings,
  useMarketEvents,
  useQuery,
  useTableChanges,
} from '@repex/shared-ui/platform';
import {
  Button,
  Card,
  ErrorState,
  Muted,
  Page,
  PageTitle,
  Skeleton,
  Tabs,
  TabsContent,
  TabsList,
  TabsTrigger,
  formatPrice,
  media,
} from '@repex/shared-ui/ui';
import { DepositDialog } from './wallet/DepositDialog';
import { History, type Kind } from './wallet/History';
import { ProfitLoss } from './wallet/ProfitLoss';
import { WithdrawDialog } from './wallet/WithdrawDialog';
import { AddBankAccountDialog, BankAccounts } from './wallet/BankAccounts';
import { cancelWithdrawal, loadBankAccounts, loadCash, loadHistory } from './wallet/data';

const Balance = styled(Card)`
  display: flex;
  align-items: center;
  justify-content: space-between;
  gap: 16px;
  flex-wrap: wrap;
  background: linear-gradient(135deg, rgba(124, 92, 255, 0.2), rgba(34, 211, 238, 0.1));
  strong {
    display: block;
    font-size: 40px;
    letter-spacing: -0.02em;
    min-height: 52px;
  }
  ${media.phone} {
    strong {
      font-size: 32px;
    }
  }
`;
const Held = styled.div`
  display: flex;
  flex-direction: column;
  gap: 2px;
  font-size: 14px;
`;

type Open = 'deposit' | 'withdraw' | 'add-account' | null;

/** Spec section 2, Wallet: the balance, money in and out, and every movement of cash. */
export default function Wallet() {
  const userId = useAppStore((s) => s.session?.user.id)!;
  const [params, setParams] = useSearchParams();
  const open = (params.get('action') as Open) ?? null;
  const setOpen = (action: Open) => setParams(action ? { action } : {}, { replace: true });
  const [kind, setKind] = useState<Kind>('all');

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
  useMarketEvents(null, reload, 500);
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

  const c = cash.data;
  return (
    <Page data-remote="wallet">
      <div>
        <PageTitle>Wallet</PageTitle>
        <Muted>Your cash on RepX.</Muted>
      </div>
      <Balance aria-label="Available Balance">
        <div>
          <Muted>Available Balance</Muted>
          {cash.error && !c ? (
            <ErrorState title="Your balance could not be loaded." onRetry={cash.reload} />
          ) : (
            <strong data-testid="available-balance">
              {cash.data !== undefined ? formatPrice(c?.available ?? 0) : <Skeleton $width="180px" $height="44px" />}
            </strong>
          )}
          <Held>
            {!!c?.reserved && <Muted>{formatPrice(c.reserved)} reserved for open orders</Muted>}
            {!!c?.pending_withdrawal && (
              <Muted data-testid="pending-withdrawal">{formatPrice(c.pending_withdrawal)} held for withdrawals</Muted>
            )}
          </Held>
        </div>
        <div style={{ display: 'flex', gap: 8 }}>
          <Button onClick={() => setOpen('deposit')}>Deposit</Button>
          <Button $variant="outline" onClick={() => setOpen('withdraw')}>
            Withdraw
          </Button>
        </div>
      </Balance>
      <BankAccounts accounts={accounts} onAdd={() => setOpen('add-account')} onChanged={accounts.reload} />
      <Card>
        <Tabs defaultValue="history">
          <TabsList>
            <TabsTrigger value="history">Transaction History</TabsTrigger>
            <TabsTrigger value="pnl">Profit &amp; Loss</TabsTrigger>
          </TabsList>
          <TabsContent value="history">
            <History history={history} kind={kind} onKind={setKind} onCancel={(id) => void cancel(id)} />
          </TabsContent>
          <TabsContent value="pnl">
            <ProfitLoss version={version} />
          </TabsContent>
        </Tabs>
      </Card>
      {open === 'deposit' && (
        <DepositDialog
          limits={limits.data}
          onClose={() => {
            setOpen(null);
            reload();
          }}
        />
      )}
      {open === 'withdraw' && (
        <WithdrawDialog
          limits={limits.data}
          cash={c ?? undefined}
          accounts={accounts.data}
          onAddAccount={() => setOpen('add-account')}
          onClose={() => {
            setOpen(null);
            reload();
          }}
        />
      )}
      {open === 'add-account' && (
        <AddBankAccountDialog limits={limits.data} onClose={() => setOpen(null)} onSaved={accounts.reload} />
      )}
    </Page>
  );
}
