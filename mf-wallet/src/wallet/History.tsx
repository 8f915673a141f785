import { useState } from 'react';
import styled from 'styled-components';
import { toast, type QueryState } from '@repex/shared-ui/platform';
import {
  DataTable,
  Badge,
  Button,
  Muted,
  Select,
  downloadCsv,
  formatPrice,
  csvMoney,
  toCsv,
  DateTime,
} from '@repex/shared-ui/ui';
import { loadWholeHistory, type HistoryEntry } from './data';

const KINDS = [
  { value: 'all', label: 'All movements' },
  { value: 'Deposit', label: 'Deposits' },
  { value: 'Withdrawal', label: 'Withdrawals' },
  { value: 'Buy', label: 'Buys' },
  { value: 'Sell', label: 'Sells' },
  { value: 'Trade Fee', label: 'Fees' },
  { value: 'Fee Share', label: 'Fee shares' },
] as const;
export type Kind = (typeof KINDS)[number]['value'];

const Toolbar = styled.div`
  display: flex;
  gap: 8px;
  justify-content: space-between;
  flex-wrap: wrap;
  margin-bottom: 12px;
  select {
    width: auto;
    min-width: 170px;
  }
`;
const Signed = styled.td<{ $value: number; $void: boolean }>`
  color: ${({ $value, $void, theme }) => ($void ? theme.colors.muted : $value > 0 ? theme.colors.up : theme.colors.text)};
  text-decoration: ${({ $void }) => ($void ? 'line-through' : 'none')};
  font-weight: 600;
  white-space: nowrap;
`;
/** A movement's status as a badge; the ones not named here (pending, processing, cancelled) are plain. */
const STATUS_VARIANT: Record<string, 'up' | 'down'> = { Completed: 'up', Failed: 'down' };

const signed = (n: number) => `${n >= 0 ? '+' : '-'}${formatPrice(Math.abs(n))}`;

async function exportCsv(kind: Kind) {
  const data = await loadWholeHistory(kind).catch((error: Error) => {
    toast({ title: 'Export Failed', description: error.message, variant: 'destructive' });
  });
  if (!data) return;
  const rows = data.map((e) => [
    e.created_at,
    e.type,
    e.description,
    csvMoney(e.amount),
    csvMoney(e.balance),
    e.status,
    e.message,
  ]);
  downloadCsv(
    `repx-wallet-${kind === 'all' ? 'history' : kind.toLowerCase().replace(' ', '-')}.csv`,
    toCsv(['Date', 'Type', 'Description', 'Amount (USD)', 'Balance (USD)', 'Status', 'Note'], rows),
  );
}

/** Every movement of the account's cash, newest first, with the balance after each. */
export function History({
  history,
  kind,
  onKind,
  onCancel,
}: {
  history: QueryState<HistoryEntry[]>;
  kind: Kind;
  onKind: (k: Kind) => void;
  onCancel: (walletId: number) => void;
}) {
  const [exporting, setExporting] = useState(false);
  return (
    <>
      <Toolbar>
        <Select aria-label="Filter by kind" value={kind} onChange={(e) => onKind(e.target.value as Kind)}>
          {KINDS.map((k) => (
            <option key={k.value} value={k.value}>
              {k.label}
            </option>
          ))}
        </Select>
        <Button
          $variant="outline"
          disabled={exporting}
          onClick={() => {
            setExporting(true);
            void exportCsv(kind).finally(() => setExporting(false));
          }}
        >
          Export CSV
        </Button>
      </Toolbar>
      <DataTable
        label="Transaction History"
        head={
          <>
            <th>Type</th>
            <th className="num">Amount</th>
            <th>Date</th>
            <th>Status</th>
            <th className="num">Balance</th>
          </>
        }
        rows={history.data}
        error={history.error}
        errorTitle="Your transactions could not be loaded."
        onRetry={history.reload}
        skeleton={[4, 5]}
        empty="No transactions yet."
      >
        {(e) => (
          <tr key={e.id} data-testid="wallet-row">
            <td className="full">
              <strong>{e.type}</strong>
              <br />
              <Muted>{e.description}</Muted>
              {e.message && (
                <>
                  <br />
                  <Muted>{e.message}</Muted>
                </>
              )}
            </td>
            <Signed className="num" $value={e.amount} $void={e.effect === 0 && e.amount !== 0}>
              {signed(e.amount)}
            </Signed>
            <td>
              <DateTime iso={e.created_at} />
            </td>
            <td>
              <Badge $variant={STATUS_VARIANT[e.status] ?? 'secondary'}>{e.status}</Badge>
              {e.type === 'Withdrawal' && e.status === 'Pending' && e.wallet_id !== null && (
                <Button $size="sm" $variant="ghost" onClick={() => onCancel(e.wallet_id!)}>
                  Cancel
                </Button>
              )}
            </td>
            <td className="num" data-label="Balance after">
              {formatPrice(e.balance)}
            </td>
          </tr>
        )}
      </DataTable>
    </>
  );
}
