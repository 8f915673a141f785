import { HaltDialog, RemoveTwoStepDialog, SignOutDialog, SuspendDialog } from './dialogs/AccountActionDialogs';
import { OfferUnsoldDialog } from './dialogs/OfferUnsoldDialog';
import { ApproveDialog, RejectDialog } from './dialogs/ApplicationDialogs';
import { DetailsDialog } from './dialogs/DetailsDialog';
import type { AdminUser, OwnToken } from './types';
import type { UserDialog } from './UserActions';

export type OpenDialog =
  | { kind: UserDialog | 'signout' | 'two-step'; user: AdminUser }
  | { kind: 'halt' | 'offer'; user: AdminUser; token: OwnToken }
  | null;

/** The one dialog of User Management that is open, if any; Details leads on to four others. */
export function UserDialogs({
  open,
  setOpen,
  onChanged,
}: {
  open: OpenDialog;
  setOpen: (open: OpenDialog) => void;
  onChanged: () => void;
}) {
  if (!open) return null;
  const close = () => setOpen(null);
  const done = { onClose: close, onDone: onChanged };
  switch (open.kind) {
    case 'details':
      return (
        <DetailsDialog
          user={open.user}
          onClose={close}
          onSignOut={() => setOpen({ kind: 'signout', user: open.user })}
          onRemoveTwoStep={() => setOpen({ kind: 'two-step', user: open.user })}
          onHalt={(token) => setOpen({ kind: 'halt', user: open.user, token })}
          onOfferUnsold={(token) => setOpen({ kind: 'offer', user: open.user, token })}
        />
      );
    case 'offer':
      return <OfferUnsoldDialog token={open.token} {...done} />;
    case 'halt':
      return <HaltDialog token={open.token} {...done} />;
    case 'two-step':
      return <RemoveTwoStepDialog user={open.user} {...done} />;
    case 'signout':
      return <SignOutDialog user={open.user} {...done} />;
    case 'approve':
      return <ApproveDialog user={open.user} {...done} />;
    case 'reject':
      return <RejectDialog user={open.user} {...done} />;
    case 'suspend':
      return <SuspendDialog user={open.user} {...done} />;
  }
}
