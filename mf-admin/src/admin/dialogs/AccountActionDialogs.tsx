import { useState } from 'react';
import { TextField, Muted } from '@repex/shared-ui/ui';
import { rpc } from '../rpc';
import type { OwnToken } from '../types';
import { ActionDialog, ReasonField, type Props } from './ActionDialog';

export function SuspendDialog({ user, onClose, onDone }: Props) {
  const [reason, setReason] = useState('');
  return (
    <ActionDialog
      title={`Suspend @${user.username}`}
      submitLabel="Suspend"
      destructive
      onClose={onClose}
      onDone={onDone}
      run={() => rpc('admin_set_account_status', { p_user: user.id, p_status: 'suspended', p_reason: reason })}
      success={{
        title: 'Account Suspended',
        description: `@${user.username} is signed out everywhere; their open orders and offering bids are cancelled.`,
      }}
    >
      <Muted>
        Every session ends at once, open orders and offering bids are cancelled and sign-in is refused until you
        reinstate the account.
      </Muted>
      <ReasonField id="suspend-reason" label="Reason" value={reason} onChange={setReason} />
    </ActionDialog>
  );
}

/** Ends every session of the account, without suspending it (a user who reports someone else in their account). */
export function SignOutDialog({ user, onClose, onDone }: Props) {
  const [reason, setReason] = useState('');
  return (
    <ActionDialog
      title={`Sign Out @${user.username}`}
      submitLabel="Sign Out Everywhere"
      destructive
      onClose={onClose}
      onDone={onDone}
      run={() => rpc('admin_end_sessions', { p_user: user.id, p_reason: reason })}
      success={{
        title: 'Signed Out Everywhere',
        description: `@${user.username} must sign in again on every device.`,
      }}
    >
      <Muted>Every session of the account ends at once; its orders and its status stay as they are.</Muted>
      <ReasonField id="signout-reason" label="Reason" value={reason} onChange={setReason} />
    </ActionDialog>
  );
}

/**
 * Halts trading in a person's token, with a reason traders see, or resumes it. Resting orders stay
 * on the book and may be cancelled; new ones are refused (admin_set_token_halt).
 */
export function HaltDialog({ token, onClose, onDone }: { token: OwnToken; onClose: () => void; onDone: () => void }) {
  const [reason, setReason] = useState('');
  const halted = token.halt_reason !== null;
  return (
    <ActionDialog
      title={`${halted ? 'Resume' : 'Halt'} Trading in ${token.name}`}
      submitLabel={halted ? 'Resume Trading' : 'Halt Trading'}
      destructive={!halted}
      onClose={onClose}
      onDone={onDone}
      run={() => rpc('admin_set_token_halt', { p_token: token.id, p_halted: !halted, p_reason: reason })}
      success={
        halted
          ? { title: 'Trading Resumed', description: `${token.name} trades again.` }
          : { title: 'Trading Halted', description: `New orders on ${token.name} are refused until you resume it.` }
      }
    >
      {halted ? (
        <Muted>Orders on {token.name} are accepted again, and they match against the book as it stands.</Muted>
      ) : (
        <>
          <Muted>
            New orders on {token.name} are refused with your reason; its resting orders stay on the book and their
            owners may cancel them. The rest of the market trades on.
          </Muted>
          <TextField
            id="halt-reason"
            label="Reason (traders see it)"
            value={reason}
            onValue={setReason}
            maxLength={200}
            required
          />
        </>
      )}
    </ActionDialog>
  );
}

/** Removes the authenticator apps of someone who lost them (after support has checked who they are). */
export function RemoveTwoStepDialog({ user, onClose, onDone }: Props) {
  const [reason, setReason] = useState('');
  return (
    <ActionDialog
      title={`Remove the Authenticator App of @${user.username}`}
      submitLabel="Remove App"
      destructive
      onClose={onClose}
      onDone={onDone}
      run={() => rpc('admin_remove_two_step', { p_user: user.id, p_reason: reason })}
      success={{
        title: 'Two-Step Verification Removed',
        description: `@${user.username} is signed out everywhere and signs in with the password alone.`,
      }}
    >
      <Muted>
        Only after checking who is asking: whoever knows the password can then sign in. Every authenticator app of the
        account (a backup app too) is removed and every session ends; the person may turn two-step verification on again
        with a new phone.
      </Muted>
      <ReasonField id="two-step-reason" label="Reason" value={reason} onChange={setReason} />
    </ActionDialog>
  );
}
