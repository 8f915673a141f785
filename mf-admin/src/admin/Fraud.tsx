import { useState } from 'react';
import { Link } from 'react-router';
import styled from 'styled-components';
import { toast, useQuery } from '@repex/shared-ui/platform';
import { loadTokenHalts } from './data';
import {
  DataTable,
  Badge,
  Button,
  Field,
  HaltedBadge,
  Muted,
  Textarea,
  formatDate,
  formatTime,
  FormDialog,
  formatCount,
} from '@repex/shared-ui/ui';
import { HaltDialog } from './dialogs/AccountActionDialogs';
import { act, rpc } from './rpc';
import type { FraudAlert as Alert } from '@repex/shared-ui/contracts';
import type { OwnToken } from './types';

const RULES: Record<string, string> = {
  wash_trading: 'Wash trading',
  ring: 'Ring',
  spoofing: 'Spoofing',
  cancel_ratio: 'Cancel-to-fill ratio',
  concentration: 'Concentration',
  new_account: 'New account, big trades',
};
const SEVERITY = { high: 'down', medium: 'secondary', low: 'secondary' } as const;

const Toolbar = styled.div`
  display: flex;
  justify-content: space-between;
  align-items: center;
  gap: 8px;
  flex-wrap: wrap;
  margin-bottom: 12px;
`;
const Actions = styled.div`
  display: flex;
  gap: 6px;
  flex-wrap: wrap;
`;
const Evidence = styled.small`
  display: block;
  color: ${({ theme }) => theme.colors.muted};
  white-space: normal;
  max-width: 360px;
`;

const ids = (label: string, list?: number[]) =>
  list?.length
    ? `${label} #${list.slice(0, 12).join(', #')}${list.length > 12 ? ` and ${list.length - 12} more` : ''}`
    : '';

/** Fraud Detection: alerts raised by the database's rules, reviewed here; every decision audited. */
export function Fraud({ onChanged, version }: { onChanged: () => void; version: number }) {
  const alerts = useQuery(() => rpc('admin_list_alerts', {}), [version]);
  const [confirming, setConfirming] = useState<Alert | null>(null);
  // The alerted tokens' trading halts, so an admin can halt one while the alert is reviewed.
  const tokenIds = [...new Set((alerts.data ?? []).flatMap((a) => (a.token_id ? [a.token_id] : [])))];
  const tokens = useQuery(() => loadTokenHalts(tokenIds), [tokenIds.join()]);
  const tokenOf = (a: Alert) => tokens.data?.find((t) => t.id === a.token_id);
  const [halting, setHalting] = useState<OwnToken | null>(null);

  const review = (a: Alert, status: 'reviewing' | 'dismissed') =>
    act(
      'admin_review_alert',
      { p_id: a.id, p_status: status },
      () => ({
        title: status === 'reviewing' ? 'Alert Under Review' : 'Alert Dismissed',
        description: `${RULES[a.rule]} alert #${a.id}.`,
      }),
      onChanged,
    );
  const scan = () =>
    act(
      'admin_run_fraud_scan',
      {},
      (seen) => ({
        title: 'Scan Complete',
        description: `${formatCount(seen, 'suspicious pattern')} in the last 24 hours.`,
      }),
      onChanged,
    );

  return (
    <>
      <Toolbar>
        <Muted>Rules run over the last 24 hours of orders and trades, every minute.</Muted>
        <Button $variant="outline" onClick={() => void scan()}>
          Scan now
        </Button>
      </Toolbar>
      <DataTable
        label="Fraud alerts"
        head={
          <>
            <th>Alert</th>
            <th>Accounts</th>
            <th>Evidence</th>
            <th>Status</th>
            <th>Actions</th>
          </>
        }
        rows={alerts.data}
        error={alerts.error}
        errorTitle="Alerts could not be loaded."
        onRetry={alerts.reload}
        skeleton={[3, 5]}
        empty="No suspicious activity in the last 24 hours."
      >
        {(a) => (
          <tr key={a.id} data-testid="alert-row" data-rule={a.rule}>
            <td className="full">
              <strong>{RULES[a.rule]}</strong> <Badge $variant={SEVERITY[a.severity]}>{a.severity}</Badge>
              <br />
              {a.token_id && <Link to={`/trading/${a.token_id}`}>{a.token_name}</Link>}
              {tokenOf(a)?.halt_reason && (
                <>
                  {' '}
                  <HaltedBadge />
                </>
              )}
              <Evidence>{a.summary}</Evidence>
              <Muted>
                {formatDate(a.updated_at)} {formatTime(a.updated_at)}
              </Muted>
            </td>
            <td>
              {a.accounts.map((x) => (
                <div key={x.id}>@{x.username}</div>
              ))}
            </td>
            <td className="full">
              <Evidence>
                {[ids('Trades', a.evidence.trades), ids('Orders', a.evidence.orders)].filter(Boolean).join('; ')}
              </Evidence>
            </td>
            <td>
              <Badge $variant={a.status === 'confirmed' ? 'down' : a.status === 'dismissed' ? 'secondary' : 'default'}>
                {a.status}
              </Badge>
              {a.note && <Evidence>{a.note}</Evidence>}
            </td>
            <td>
              <Actions>
                {tokenOf(a) && (
                  <Button $size="sm" $variant="outline" onClick={() => setHalting(tokenOf(a)!)}>
                    {tokenOf(a)!.halt_reason ? 'Resume Trading' : 'Halt Trading'}
                  </Button>
                )}
                {(a.status === 'open' || a.status === 'reviewing') && (
                  <>
                    {a.status === 'open' && (
                      <Button $size="sm" $variant="outline" onClick={() => void review(a, 'reviewing')}>
                        Review
                      </Button>
                    )}
                    <Button $size="sm" $variant="ghost" onClick={() => void review(a, 'dismissed')}>
                      Dismiss
                    </Button>
                    <Button $size="sm" $variant="destructive" onClick={() => setConfirming(a)}>
                      Confirm
                    </Button>
                  </>
                )}
              </Actions>
            </td>
          </tr>
        )}
      </DataTable>
      {confirming && <ConfirmDialog alert={confirming} onClose={() => setConfirming(null)} onDone={onChanged} />}
      {halting && (
        <HaltDialog
          token={halting}
          onClose={() => setHalting(null)}
          onDone={() => {
            tokens.reload();
            onChanged();
          }}
        />
      )}
    </>
  );
}

function ConfirmDialog({ alert, onClose, onDone }: { alert: Alert; onClose: () => void; onDone: () => void }) {
  const [note, setNote] = useState('');
  const [suspend, setSuspend] = useState(true);
  const send = async () => {
    const result = await rpc('admin_review_alert', {
      p_id: alert.id,
      p_status: 'confirmed',
      p_note: note,
      p_suspend: suspend,
    });
    toast({
      title: 'Alert Confirmed',
      description: result.suspended
        ? `${formatCount(result.suspended, 'account')} suspended.`
        : 'No account was suspended.',
    });
    onDone();
    return null;
  };
  return (
    <FormDialog
      title={`Confirm ${RULES[alert.rule]?.toLowerCase()} alert`}
      formLabel="Confirm alert"
      submitLabel="Confirm"
      destructive
      send={send}
      onClose={onClose}
    >
      <Muted>{alert.summary}</Muted>
      <Field label="Note (kept in the audit log)" htmlFor="alert-note">
        <Textarea id="alert-note" value={note} maxLength={500} onChange={(e) => setNote(e.target.value)} />
      </Field>
      <label style={{ display: 'flex', gap: 8, alignItems: 'center' }}>
        <input type="checkbox" checked={suspend} onChange={(e) => setSuspend(e.target.checked)} />
        Suspend {alert.accounts.map((a) => `@${a.username}`).join(', ')}
      </label>
    </FormDialog>
  );
}
