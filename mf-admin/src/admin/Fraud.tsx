import { useState } from 'react';
import { Link } from 'react-router';
import { useQuery } from '@repex/shared-ui/platform';
import { Badge, Button, DataTable, HaltedBadge, Muted, formatDate, formatTime } from '@repex/shared-ui/ui';
import type { FraudAlert as Alert } from '@repex/shared-ui/contracts';
import { AlertActions, scanNow } from './AlertActions';
import { RULES, SEVERITY, ids } from './alerts';
import { loadTokenHalts } from './data';
import { ConfirmAlertDialog } from './dialogs/ConfirmAlertDialog';
import { HaltDialog } from './dialogs/AccountActionDialogs';
import { Evidence, Toolbar } from './Fraud.styles';
import { rpc } from './rpc';
import type { OwnToken } from './types';

/** Fraud Detection: alerts raised by the database's rules, reviewed here; every decision audited. */
export function Fraud({ onChanged, version }: { onChanged: () => void; version: number }) {
  const alerts = useQuery(() => rpc('admin_list_alerts', {}), [version]);
  const [confirming, setConfirming] = useState<Alert | null>(null);
  // The alerted tokens' trading halts, so an admin can halt one while the alert is reviewed.
  const tokenIds = [...new Set((alerts.data ?? []).flatMap((a) => (a.token_id ? [a.token_id] : [])))];
  const tokens = useQuery(() => loadTokenHalts(tokenIds), [tokenIds.join()]);
  const tokenOf = (a: Alert) => tokens.data?.find((t) => t.id === a.token_id);
  const [halting, setHalting] = useState<OwnToken | null>(null);

  return (
    <>
      <Toolbar>
        <Muted>Rules run over the last 24 hours of orders and trades, every minute.</Muted>
        <Button $variant="outline" onClick={() => void scanNow(onChanged)}>
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
              <AlertActions
                alert={a}
                token={tokenOf(a)}
                onHalt={setHalting}
                onConfirm={() => setConfirming(a)}
                onChanged={onChanged}
              />
            </td>
          </tr>
        )}
      </DataTable>
      {confirming && <ConfirmAlertDialog alert={confirming} onClose={() => setConfirming(null)} onDone={onChanged} />}
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
