import { useState } from 'react';
import { useAppStore } from '@repex/shared-ui/platform';
import { Badge, DataTable, Muted, Pager, VerifiedBadge, formatDate, formatInteger } from '@repex/shared-ui/ui';
import { UserActions } from './UserActions';
import { UserDialogs, type OpenDialog } from './UserDialogs';
import { Badges } from './Users.styles';
import { UsersToolbar } from './UsersToolbar';
import { USERS_PAGE, useUsers } from './useUsers';

/**
 * User Management: accounts searched, filtered, sorted and paged by the database; each row's
 * actions fit the account's state; none on the admin's own row.
 */
export function Users({ version, onChanged }: { version: number; onChanged: () => void }) {
  const me = useAppStore((s) => s.session?.user.id);
  const [open, setOpen] = useState<OpenDialog>(null);
  const q = useUsers(version);
  const { users } = q;

  return (
    <>
      <UsersToolbar q={q} />
      <DataTable
        label="Users"
        head={
          <>
            <th>User</th>
            <th>Status</th>
            <th>Joined</th>
            <th className="num">Trades (30d)</th>
            <th>Actions</th>
          </>
        }
        rows={users.data}
        error={users.error}
        errorTitle="Users could not be loaded."
        onRetry={users.reload}
        skeleton={[5, 5]}
        empty="No account matches."
      >
        {(u) => (
          <tr key={u.id} data-testid="admin-user-row" data-username={u.username}>
            <td className="full">
              <strong>{u.full_name}</strong> {u.verified && <VerifiedBadge />}
              <br />
              <Muted>
                @{u.username} · {u.email}
              </Muted>
            </td>
            <td>
              <Badges>
                <Badge $variant={u.status === 'active' ? 'up' : 'down'}>
                  {u.status === 'active' ? 'Active' : 'Suspended'}
                </Badge>
                {u.role === 'admin' && <Badge>Admin</Badge>}
                {!u.confirmed && <Badge $variant="secondary">Email not confirmed</Badge>}
                {u.application_id !== null && <Badge $variant="secondary">Token application</Badge>}
              </Badges>
            </td>
            <td data-label="Joined">{formatDate(u.joined)}</td>
            <td className="num" data-label="Trades (30d)">
              {formatInteger(u.trades_30d)}
            </td>
            <td className="full">
              <UserActions user={u} me={me} onOpen={(kind) => setOpen({ kind, user: u })} onChanged={onChanged} />
            </td>
          </tr>
        )}
      </DataTable>
      <Pager total={q.total} page={q.page} pageSize={USERS_PAGE} onPage={q.setPage} />
      <UserDialogs open={open} setOpen={setOpen} onChanged={onChanged} />
    </>
  );
}
