import { Button, Muted } from '@repex/shared-ui/ui';
import { act } from './rpc';
import { Actions } from './Users.styles';
import type { AdminUser } from './types';

export type UserDialog = 'approve' | 'reject' | 'suspend' | 'details';

/**
 * A row's actions, fitting the account's state: none on the admin's own row, only Details on
 * another admin's. Reinstate and Verify act at once; the others open a dialog.
 */
export function UserActions({
  user: u,
  me,
  onOpen,
  onChanged,
}: {
  user: AdminUser;
  me: string | undefined;
  onOpen: (kind: UserDialog) => void;
  onChanged: () => void;
}) {
  const details = (
    <Button $size="sm" $variant="ghost" onClick={() => onOpen('details')}>
      Details
    </Button>
  );
  if (u.id === me) return <Muted>Your account</Muted>;
  if (u.role === 'admin') return details;
  const reinstate = () =>
    void act(
      'admin_set_account_status',
      { p_user: u.id, p_status: 'active' },
      () => ({ title: 'Account Reinstated', description: `@${u.username} can sign in again.` }),
      onChanged,
    );
  const toggleVerified = () =>
    void act(
      'admin_set_verified',
      { p_user: u.id, p_verified: !u.verified },
      () => ({
        title: u.verified ? 'Badge Removed' : 'Account Verified',
        description: `@${u.username} is ${u.verified ? 'no longer' : 'now'} verified.`,
      }),
      onChanged,
    );
  return (
    <Actions>
      {u.application_id !== null && (
        <>
          <Button $size="sm" onClick={() => onOpen('approve')}>
            Approve
          </Button>
          <Button $size="sm" $variant="outline" onClick={() => onOpen('reject')}>
            Reject
          </Button>
        </>
      )}
      {u.status === 'active' ? (
        <Button $size="sm" $variant="outline" onClick={() => onOpen('suspend')}>
          Suspend
        </Button>
      ) : (
        <Button $size="sm" $variant="outline" onClick={reinstate}>
          Reinstate
        </Button>
      )}
      {details}
      <Button $size="sm" $variant="ghost" onClick={toggleVerified}>
        {u.verified ? 'Unverify' : 'Verify'}
      </Button>
    </Actions>
  );
}
