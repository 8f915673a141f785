import { useState } from 'react';
import { useQuery } from '@repex/shared-ui/platform';
import { loadOwnToken } from '../data';
import { Button, Dialog, DialogActions, FormError, Muted } from '@repex/shared-ui/ui';
import { rpc } from '../rpc';
import { AccountDetailsBody } from './AccountDetailsBody';
import { RevokeKeyDialog } from './RevokeKeyDialog';
import type { ApiKey } from '@repex/shared-ui/contracts';
import type { AdminUser, OwnToken } from '../types';

/** Details: one account as the operator needs it, including the admin actions taken on it. */
export function DetailsDialog({
  user,
  onClose,
  onSignOut,
  onRemoveTwoStep,
  onHalt,
  onOfferUnsold,
}: {
  user: AdminUser;
  onClose: () => void;
  onSignOut: () => void;
  onRemoveTwoStep: () => void;
  onHalt: (token: OwnToken) => void;
  /** Offers again what the token's offering left unsold (admin_offer_unsold). */
  onOfferUnsold: (token: OwnToken) => void;
}) {
  // When the details were opened: what a bank account's wait is measured against.
  const [openedAt] = useState(Date.now);
  const [revoking, setRevoking] = useState<ApiKey>();
  const details = useQuery(() => rpc('admin_account_details', { p_user: user.id }), [user.id]);
  const token = useQuery(() => loadOwnToken(user.id), [user.id]);
  const d = details.data;
  const t = token.data;
  if (revoking)
    return (
      <RevokeKeyDialog
        apiKey={revoking}
        onClose={() => setRevoking(undefined)}
        onDone={() => {
          setRevoking(undefined);
          details.reload();
        }}
      />
    );
  return (
    <Dialog title={`@${user.username}`} onClose={onClose}>
      {!d && !details.error && <Muted>Loading...</Muted>}
      {details.error && <FormError>{details.error.message}</FormError>}
      {d && <AccountDetailsBody d={d} t={t} openedAt={openedAt} onRevokeKey={setRevoking} />}
      <DialogActions>
        {t && (
          <Button type="button" $variant={t.halt_reason === null ? 'destructive' : 'default'} onClick={() => onHalt(t)}>
            {t.halt_reason === null ? 'Halt Trading' : 'Resume Trading'}
          </Button>
        )}
        {t && t.halt_reason === null && (
          <Button type="button" $variant="outline" onClick={() => onOfferUnsold(t)}>
            Offer Unsold
          </Button>
        )}
        {d?.profile.two_step && (
          <Button type="button" $variant="destructive" onClick={onRemoveTwoStep}>
            Remove Authenticator App
          </Button>
        )}
        {d && d.sessions.length > 0 && (
          <Button type="button" $variant="destructive" onClick={onSignOut}>
            Sign Out Everywhere
          </Button>
        )}
        <Button type="button" $variant="outline" onClick={onClose} data-dialog-close>
          Close
        </Button>
      </DialogActions>
    </Dialog>
  );
}
