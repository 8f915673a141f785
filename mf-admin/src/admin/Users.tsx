import { useEffect, useState } from 'react';
import { useAppStore, useQuery } from '@repex/shared-ui/platform';
import {
  DataTable,
  Badge,
  Button,
  Input,
  Muted,
  Select,
  VerifiedBadge,
  formatDate,
  formatInteger,
} from '@repex/shared-ui/ui';
import { HaltDialog, RemoveTwoStepDialog, SignOutDialog, SuspendDialog } from './dialogs/AccountActionDialogs';
import { ApproveDialog, RejectDialog } from './dialogs/ApplicationDialogs';
import { DetailsDialog } from './dialogs/DetailsDialog';
import { act, rpc } from './rpc';
import { Actions, Badges, Pager, Toolbar } from './Users.styles';
import type { AdminUser, OwnToken } from './types';

const PAGE = 25;
const FILTERS = [
  ['all', 'All accounts'],
  ['applications', 'Token applications'],
  ['active', 'Active'],
  ['suspended', 'Suspended'],
  ['verified', 'Verified'],
] as const;
const SORTS = [
  ['joined:desc', 'Newest first'],
  ['joined:asc', 'Oldest first'],
  ['username:asc', 'Username A-Z'],
  ['name:asc', 'Name A-Z'],
  ['last_sign_in:desc', 'Last sign-in'],
  ['status:desc', 'Suspended first'],
] as const;

type Open =
  | { kind: 'approve' | 'reject' | 'suspend' | 'details' | 'signout' | 'two-step'; user: AdminUser }
  | { kind: 'halt'; user: AdminUser; token: OwnToken }
  | null;

/**
 * User Management: accounts searched, filtered, sorted and paged by the database; each row's
 * actions fit the account's state; none on the admin's own row.
 */
export function Users({ version, onChanged }: { version: number; onChanged: () => void }) {
  const me = useAppStore((s) => s.session?.user.id);
  const [open, setOpen] = useState<Open>(null);
  const [typed, setTyped] = useState('');
  const [search, setSearch] = useState('');
  const [filter, setFilter] = useState<string>('all');
  const [sort, setSort] = useState<string>('joined:desc');
  const [page, setPage] = useState(0);
  useEffect(() => {
    const timer = setTimeout(() => {
      setSearch(typed.trim());
      setPage(0);
    }, 250);
    return () => clearTimeout(timer);
  }, [typed]);
  const [sortKey, direction] = sort.split(':');
  const users = useQuery(
    () =>
      rpc('admin_list_users', {
        p_search: search || null,
        p_filter: filter,
        p_sort: sortKey,
        p_desc: direction === 'desc',
        p_limit: PAGE,
        p_offset: page * PAGE,
      }),
    [search, filter, sort, page, version],
  );
  const total = users.data?.[0]?.total ?? 0;

  return (
    <>
      <Toolbar>
        <Input
          type="search"
          aria-label="Search accounts"
          placeholder="Search by username, name or email..."
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
        />
        <Select
          aria-label="Show"
          value={filter}
          onChange={(e) => {
            setFilter(e.target.value);
            setPage(0);
          }}
        >
          {FILTERS.map(([v, l]) => (
            <option key={v} value={v}>
              {l}
            </option>
          ))}
        </Select>
        <Select
          aria-label="Sort"
          value={sort}
          onChange={(e) => {
            setSort(e.target.value);
            setPage(0);
          }}
        >
          {SORTS.map(([v, l]) => (
            <option key={v} value={v}>
              {l}
            </option>
          ))}
        </Select>
      </Toolbar>
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
              {u.id === me ? (
                <Muted>Your account</Muted>
              ) : u.role === 'admin' ? (
                <Button $size="sm" $variant="ghost" onClick={() => setOpen({ kind: 'details', user: u })}>
                  Details
                </Button>
              ) : (
                <Actions>
                  {u.application_id !== null && (
                    <>
                      <Button $size="sm" onClick={() => setOpen({ kind: 'approve', user: u })}>
                        Approve
                      </Button>
                      <Button $size="sm" $variant="outline" onClick={() => setOpen({ kind: 'reject', user: u })}>
                        Reject
                      </Button>
                    </>
                  )}
                  {u.status === 'active' ? (
                    <Button $size="sm" $variant="destructive" onClick={() => setOpen({ kind: 'suspend', user: u })}>
                      Suspend
                    </Button>
                  ) : (
                    <Button
                      $size="sm"
                      $variant="outline"
                      onClick={() =>
                        void act(
                          'admin_set_account_status',
                          { p_user: u.id, p_status: 'active' },
                          () => ({ title: 'Account Reinstated', description: `@${u.username} can sign in again.` }),
                          onChanged,
                        )
                      }
                    >
                      Reinstate
                    </Button>
                  )}
                  <Button $size="sm" $variant="ghost" onClick={() => setOpen({ kind: 'details', user: u })}>
                    Details
                  </Button>
                  <Button
                    $size="sm"
                    $variant="ghost"
                    onClick={() =>
                      void act(
                        'admin_set_verified',
                        { p_user: u.id, p_verified: !u.verified },
                        () => ({
                          title: u.verified ? 'Badge Removed' : 'Account Verified',
                          description: `@${u.username} is ${u.verified ? 'no longer' : 'now'} verified.`,
                        }),
                        onChanged,
                      )
                    }
                  >
                    {u.verified ? 'Unverify' : 'Verify'}
                  </Button>
                </Actions>
              )}
            </td>
          </tr>
        )}
      </DataTable>
      {total > PAGE && (
        <Pager>
          <Muted>
            {formatInteger(page * PAGE + 1)}–{formatInteger(Math.min((page + 1) * PAGE, total))} of{' '}
            {formatInteger(total)}
          </Muted>
          <div style={{ display: 'flex', gap: 8 }}>
            <Button $size="sm" $variant="outline" disabled={page === 0} onClick={() => setPage(page - 1)}>
              Previous
            </Button>
            <Button
              $size="sm"
              $variant="outline"
              disabled={(page + 1) * PAGE >= total}
              onClick={() => setPage(page + 1)}
            >
              Next
            </Button>
          </div>
        </Pager>
      )}
      {open?.kind === 'details' && (
        <DetailsDialog
          user={open.user}
          onClose={() => setOpen(null)}
          onSignOut={() => setOpen({ kind: 'signout', user: open.user })}
          onRemoveTwoStep={() => setOpen({ kind: 'two-step', user: open.user })}
          onHalt={(token) => setOpen({ kind: 'halt', user: open.user, token })}
        />
      )}
      {open?.kind === 'halt' && <HaltDialog token={open.token} onClose={() => setOpen(null)} onDone={onChanged} />}
      {open?.kind === 'two-step' && (
        <RemoveTwoStepDialog user={open.user} onClose={() => setOpen(null)} onDone={onChanged} />
      )}
      {open?.kind === 'signout' && <SignOutDialog user={open.user} onClose={() => setOpen(null)} onDone={onChanged} />}
      {open?.kind === 'approve' && <ApproveDialog user={open.user} onClose={() => setOpen(null)} onDone={onChanged} />}
      {open?.kind === 'reject' && <RejectDialog user={open.user} onClose={() => setOpen(null)} onDone={onChanged} />}
      {open?.kind === 'suspend' && <SuspendDialog user={open.user} onClose={() => setOpen(null)} onDone={onChanged} />}
    </>
  );
}
