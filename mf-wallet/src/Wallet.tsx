import { lazy, Suspense, useState } from 'react';
import { useSearchParams } from 'react-router';
import styled from 'styled-components';
import { useAppStore } from '@repex/shared-ui/platform';
import {
  Button,
  Card,
  ErrorState,
  Muted,
  Page,
  PageHeader,
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
import { WithdrawDialog } from './wallet/WithdrawDialog';
import { AddBankAccountDialog, BankAccounts } from './wallet/BankAccounts';
import { StatementDialog } from './statement/StatementDialog';
import { useWallet } from './wallet/useWallet';

// The P&L tab's chart library is fetched when the tab is first opened, not with the wallet.
const ProfitLoss = lazy(() => import('./wallet/ProfitLoss').then((m) => ({ default: m.ProfitLoss })));

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

type Open = 'deposit' | 'withdraw' | 'add-account' | 'statement' | null;

/** Spec section 2, Wallet: the balance, money in and out, and every movement of cash. */
export default function Wallet() {
  const userId = useAppStore((s) => s.session?.user.id)!;
  const [params, setParams] = useSearchParams();
  const open = (params.get('action') as Open) ?? null;
  const setOpen = (action: Open) => setParams(action ? { action } : {}, { replace: true });
  const [kind, setKind] = useState<Kind>('all');

  const { cash, limits, accounts, history, version, reload, cancel } = useWallet(userId, kind);

  const c = cash.data;
  return (
    <Page data-remote="wallet">
      <PageHeader title="Wallet" subtitle="Your cash on RepX." />
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
        <div style={{ display: 'flex', gap: 8, flexWrap: 'wrap' }}>
          <Button onClick={() => setOpen('deposit')}>Deposit</Button>
          <Button $variant="outline" onClick={() => setOpen('withdraw')}>
            Withdraw
          </Button>
          <Button $variant="outline" onClick={() => setOpen('statement')}>
            Statement
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
            <Suspense fallback={<Skeleton $height="300px" />}>
              <ProfitLoss version={version} />
            </Suspense>
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
      {open === 'statement' && <StatementDialog onClose={() => setOpen(null)} />}
    </Page>
  );
}
