import { useState } from 'react';
import type { ApiKey } from '@repex/shared-ui/contracts';
import { rpc } from '../rpc';
import { ActionDialog, ReasonField } from './ActionDialog';

/** An admin revokes one of an account's API keys, with a reason mailed to its owner and audited. */
export function RevokeKeyDialog({
  apiKey,
  onClose,
  onDone,
}: {
  apiKey: ApiKey;
  onClose: () => void;
  onDone: () => void;
}) {
  const [reason, setReason] = useState('');
  return (
    <ActionDialog
      title="Revoke API Key"
      submitLabel="Revoke Key"
      destructive
      onClose={onClose}
      onDone={onDone}
      run={() => rpc('admin_revoke_api_key', { p_id: apiKey.id, p_reason: reason })}
      success={{ title: 'API Key Revoked', description: `"${apiKey.name}" (${apiKey.prefix}…) no longer works.` }}
    >
      <p style={{ margin: 0 }}>
        Revoke &ldquo;{apiKey.name}&rdquo; ({apiKey.prefix}…)? Programs using it are refused from their next request,
        and the owner is mailed your reason.
      </p>
      <ReasonField id="revoke-key-reason" label="Reason" value={reason} onChange={setReason} />
    </ActionDialog>
  );
}
