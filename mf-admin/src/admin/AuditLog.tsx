import { useState } from 'react';
import styled from 'styled-components';
import { useQuery } from '@repex/shared-ui/platform';
import { DataTable, Button, Select, downloadCsv, toCsv, DateTime } from '@repex/shared-ui/ui';
import { rpc } from './rpc';

const ACTIONS = [
  ['', 'All actions'],
  ['application.approve', 'Applications approved'],
  ['application.reject', 'Applications rejected'],
  ['account.suspend', 'Suspensions'],
  ['account.reinstate', 'Reinstatements'],
  ['account.sign_out', 'Signed out everywhere'],
  ['account.two_step_off', 'Authenticator apps removed'],
  ['account.verify', 'Verifications'],
  ['account.unverify', 'Badges removed'],
  ['token.halt', 'Trading halts'],
  ['token.resume', 'Trading resumed'],
] as const;

const Toolbar = styled.div`
  display: flex;
  justify-content: space-between;
  gap: 8px;
  flex-wrap: wrap;
  margin-bottom: 12px;
  select {
    width: auto;
    min-width: 200px;
  }
`;
const Change = styled.code`
  font-size: 12px;
  white-space: pre-wrap;
  color: ${({ theme }) => theme.colors.muted};
`;

const describe = (v: Record<string, unknown> | null) =>
  v
    ? Object.entries(v)
        .map(([k, x]) => `${k}: ${String(x)}`)
        .join(', ')
    : '';

/** Every admin action, append-only in the database: who, when, what, before and after, and why. */
export function AuditLog({ version }: { version: number }) {
  const [action, setAction] = useState('');
  const log = useQuery(() => rpc('admin_audit_log', { p_action: action || null, p_limit: 500 }), [action, version]);
  const exportCsv = () =>
    downloadCsv(
      'repx-audit-log.csv',
      toCsv(
        ['When', 'Admin', 'Action', 'Account', 'Target', 'Before', 'After', 'Reason'],
        (log.data ?? []).map((e) => [
          e.created_at,
          e.actor,
          e.action,
          e.target_username,
          e.target,
          JSON.stringify(e.before),
          JSON.stringify(e.after),
          e.reason,
        ]),
      ),
    );

  return (
    <>
      <Toolbar>
        <Select aria-label="Filter by action" value={action} onChange={(e) => setAction(e.target.value)}>
          {ACTIONS.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </Select>
        <Button $variant="outline" onClick={exportCsv} disabled={!log.data?.length}>
          Export CSV
        </Button>
      </Toolbar>
      <DataTable
        label="Audit log"
        head={
          <>
            <th>When</th>
            <th>Admin</th>
            <th>Action</th>
            <th>Account</th>
            <th>Change</th>
            <th>Reason</th>
          </>
        }
        rows={log.data}
        error={log.error}
        errorTitle="The audit log could not be loaded."
        onRetry={log.reload}
        skeleton={[4, 6]}
        empty="No admin actions yet."
      >
        {(e) => (
          <tr key={e.id} data-testid="audit-row">
            <td>
              <DateTime iso={e.created_at} />
            </td>
            <td>@{e.actor}</td>
            <td>{e.action}</td>
            <td>{e.target_username ? `@${e.target_username}` : '—'}</td>
            <td className="full">
              <Change>
                {describe(e.before)} → {describe(e.after)}
              </Change>
            </td>
            <td className="full" data-label="Reason">
              {e.reason ?? '—'}
            </td>
          </tr>
        )}
      </DataTable>
    </>
  );
}
