import { useState } from 'react';
import { toast } from '@repex/shared-ui/platform';
import { Field, FormDialog, Muted, Textarea, formatCount } from '@repex/shared-ui/ui';
import type { FraudAlert as Alert } from '@repex/shared-ui/contracts';
import { RULES } from '../alerts';
import { rpc } from '../rpc';

/** Confirming an alert: a note for the audit log, and whether its accounts are suspended with it. */
export function ConfirmAlertDialog({
  alert,
  onClose,
  onDone,
}: {
  alert: Alert;
  onClose: () => void;
  onDone: () => void;
}) {
  const [note, setNote] = useState('');
  const [suspend, setSuspend] = useState(true);
  const send = async () => {
    const result = await rpc('admin_review_alert', {
      p_id: alert.id,
      p_status: 'confirmed',
      p_note: note,
      p_suspend: suspend,
    });
    toast({
      title: 'Alert Confirmed',
      description: result.suspended
        ? `${formatCount(result.suspended, 'account')} suspended.`
        : 'No account was suspended.',
    });
    onDone();
    return null;
  };
  return (
    <FormDialog
      title={`Confirm ${RULES[alert.rule]?.toLowerCase()} alert`}
      formLabel="Confirm alert"
      submitLabel="Confirm"
      destructive
      send={send}
      onClose={onClose}
    >
      <Muted>{alert.summary}</Muted>
      <Field label="Note (kept in the audit log)" htmlFor="alert-note">
        <Textarea id="alert-note" value={note} maxLength={500} onChange={(e) => setNote(e.target.value)} />
      </Field>
      <label style={{ display: 'flex', gap: 8, alignItems: 'center' }}>
        <input type="checkbox" checked={suspend} onChange={(e) => setSuspend(e.target.checked)} />
        Suspend {alert.accounts.map((a) => `@${a.username}`).join(', ')}
      </label>
    </FormDialog>
  );
}
