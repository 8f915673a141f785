import { useState } from 'react';
import styled from 'styled-components';
import {
  Badge, Button, ErrorState, Muted, SkeletonRows, Table, TableScroll, VerifiedBadge, formatDate, formatInteger, toast, useAppStore,
  type QueryState,
} from '@repex/shared-ui';
import { ApproveDialog, RejectDialog, SuspendDialog } from './AccountDialogs';
import { rpc } from './rpc';
import type { AdminUser } from './types';

const Actions = styled.div`
  display: flex;
  gap: 6px;
  flex-wrap: wrap;
`;
const Badges = styled.div`
  display: flex;
  gap: 4px;
  flex-wrap: wrap;
`;

type Open = { kind: 'approve' | 'reject' | 'suspend'; user: AdminUser } | null;

/** User Management: each row's actions fit the account's state; none on the admin's own row. */
export function Users({ users, onChanged }: { users: QueryState<AdminUser[]>; onChanged: () => void }) {
  const me = useAppStore((s) => s.session?.user.id);
  const [open, setOpen] = useState<Open>(null);

  const act = async (title: string, description: string, fn: string, args: Record<string, unknown>) => {
    try {
      await rpc(fn, args);
      toast({ title, description });
      onChanged();
    } catch (error) {
      toast({ title: 'Action Failed', description: error instanceof Error ? error.message : String(error), variant: 'destructive' });
    }
  };

  if (users.error && !users.data) return <ErrorState title="Users could not be loaded." message={users.error.message} onRetry={users.reload} />;
  return (
    <>
      <TableScroll>
        <Table aria-label="Users">
          <thead>
            <tr>
              <th>User</th>
              <th>Status</th>
              <th>Joined</th>
              <th className="num">Trades (30d)</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {!users.data && <SkeletonRows rows={5} columns={5} />}
            {users.data?.map((u) => (
              <tr key={u.id} data-testid="admin-user-row" data-username={u.username}>
                <td>
                  <strong>{u.full_name}</strong> {u.verified && <VerifiedBadge />}
                  <br />
                  <Muted>@{u.username} · {u.email}</Muted>
                </td>
                <td>
                  <Badges>
                    <Badge $variant={u.status === 'active' ? 'up' : 'down'}>{u.status === 'active' ? 'Active' : 'Suspended'}</Badge>
                    {u.role === 'admin' && <Badge>Admin</Badge>}
                    {u.application_id !== null && <Badge $variant="secondary">Token application</Badge>}
                  </Badges>
                </td>
                <td>{formatDate(u.joined)}</td>
                <td className="num">{formatInteger(u.trades_30d)}</td>
                <td>
                  {u.id === me ? (
                    <Muted>Your account</Muted>
                  ) : (
                    <Actions>
                      {u.application_id !== null && (
                        <>
                          <Button $size="sm" onClick={() => setOpen({ kind: 'approve', user: u })}>Approve</Button>
                          <Button $size="sm" $variant="outline" onClick={() => setOpen({ kind: 'reject', user: u })}>Reject</Button>
                        </>
                      )}
                      {u.status === 'active' ? (
                        <Button $size="sm" $variant="destructive" onClick={() => setOpen({ kind: 'suspend', user: u })}>Suspend</Button>
                      ) : (
                        <Button $size="sm" $variant="outline"
                          onClick={() => void act('Account Reinstated', `@${u.username} can sign in again.`, 'admin_set_account_status', { p_user: u.id, p_status: 'active' })}>
                          Reinstate
                        </Button>
                      )}
                      <Button $size="sm" $variant="ghost"
                        onClick={() => void act(u.verified ? 'Badge Removed' : 'Account Verified', `@${u.username} is ${u.verified ? 'no longer' : 'now'} verified.`,
                          'admin_set_verified', { p_user: u.id, p_verified: !u.verified })}>
                        {u.verified ? 'Unverify' : 'Verify'}
                      </Button>
                    </Actions>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      </TableScroll>
      {open?.kind === 'approve' && <ApproveDialog user={open.user} onClose={() => setOpen(null)} onDone={onChanged} />}
      {open?.kind === 'reject' && <RejectDialog user={open.user} onClose={() => setOpen(null)} onDone={onChanged} />}
      {open?.kind === 'suspend' && <SuspendDialog user={open.user} onClose={() => setOpen(null)} onDone={onChanged} />}
    </>
  );
}
