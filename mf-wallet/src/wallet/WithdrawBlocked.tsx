import type { ReactNode } from 'react';
import { Button, Dialog, DialogActions, Muted, formatDate, formatTime } from '@repex/shared-ui/ui';

/**
 * Withdraw, when there is nowhere to withdraw to yet: withdrawals held after a password or email
 * change, every account still in its wait (waitingNote), or no account at all.
 */
export function WithdrawBlocked({
  heldUntil,
  waitingNote,
  onAddAccount,
  onClose,
}: {
  heldUntil: string | null | undefined;
  waitingNote: ReactNode;
  onAddAccount: () => void;
  onClose: () => void;
}) {
  return (
    <Dialog title="Withdraw" onClose={onClose}>
      {heldUntil ? (
        <Muted role="status">
          For your security, withdrawals open again on {formatDate(heldUntil)} at {formatTime(heldUntil)}, after the
          recent change of your password or email. Deposits and trading go on as usual.
        </Muted>
      ) : (
        (waitingNote ?? <Muted role="status">Add the bank account to withdraw to first.</Muted>)
      )}
      <DialogActions>
        <Button type="button" $variant="outline" onClick={onClose}>
          Close
        </Button>
        {!heldUntil && (
          <Button type="button" onClick={onAddAccount}>
            Add Bank Account
          </Button>
        )}
      </DialogActions>
    </Dialog>
  );
}
