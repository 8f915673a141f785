import { useState, type FormEvent, type ReactNode } from 'react';
import {
  Button, Dialog, DialogActions, Field, FormError, Input, Muted, Textarea, formatInteger, formatPrice, supabase, toast, unwrap, useQuery,
} from '@repex/shared-ui';
import { rpc } from './rpc';
import type { AdminUser, Application, Defaults } from './types';

/** One admin action in a dialog: the form, the server's refusal shown in place, a toast on success. */
function ActionDialog({ title, submitLabel, destructive, onClose, onDone, run, success, children }: {
  title: string;
  submitLabel: string;
  destructive?: boolean;
  onClose: () => void;
  onDone: () => void;
  run: () => Promise<unknown>;
  success: { title: string; description: string };
  children: ReactNode;
}) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await run();
      toast(success);
      onDone();
      onClose();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog title={title} onClose={onClose}>
      <form onSubmit={submit} aria-label={title} style={{ display: 'flex', flexDirection: 'column', gap: 14 }}>
        {children}
        {error && <FormError>{error}</FormError>}
        <DialogActions>
          <Button type="button" $variant="outline" onClick={onClose}>Cancel</Button>
          <Button type="submit" $variant={destructive ? 'destructive' : 'default'} disabled={busy}>{submitLabel}</Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}

interface Props {
  user: AdminUser;
  onClose: () => void;
  onDone: () => void;
}

export function ApproveDialog({ user, onClose, onDone }: Props) {
  const application = useQuery(async () => (await rpc<Application[]>('admin_list_applications', { p_status: 'pending' })).find((a) => a.id === user.application_id), [user.application_id]);
  const defaults = useQuery(async () => unwrap(await supabase().from('exchange_settings').select('token_supply, token_founder_bps, token_issue_price').single()) as Defaults, []);
  const [supply, setSupply] = useState('');
  const [price, setPrice] = useState('');
  const a = application.data;
  const d = defaults.data;
  return (
    <ActionDialog
      title="Approve token application"
      submitLabel="Approve and issue"
      onClose={onClose}
      onDone={onDone}
      run={() => rpc('admin_approve_application', {
        p_id: user.application_id,
        p_total_supply: supply.trim() ? Number(supply) : null,
        p_issue_price: price.trim() ? Number(price) : null,
      })}
      success={{ title: 'Token Issued', description: `${a?.display_name ?? user.full_name} is on the market now.` }}
    >
      {a ? (
        <div>
          <strong>{a.display_name}</strong> <Muted>· {a.category} · @{a.username}</Muted>
          {a.bio && <p style={{ margin: '6px 0' }}>{a.bio}</p>}
          {a.socials.map((s) => (
            <div key={s.platform}><a href={s.url} target="_blank" rel="noreferrer noopener">{s.url}</a></div>
          ))}
        </div>
      ) : (
        <Muted>Loading the application...</Muted>
      )}
      <Field label="Total supply" htmlFor="approve-supply" hint={d && `Default ${formatInteger(d.token_supply)}; ${d.token_founder_bps / 100}% to the person, the rest offered on the market.`}>
        <Input id="approve-supply" inputMode="numeric" placeholder={d ? String(d.token_supply) : ''} value={supply} onChange={(e) => setSupply(e.target.value)} />
      </Field>
      <Field label="Issue price (USD)" htmlFor="approve-price" hint={d && `Default ${formatPrice(d.token_issue_price)}.`}>
        <Input id="approve-price" inputMode="decimal" placeholder={d ? d.token_issue_price.toFixed(2) : ''} value={price} onChange={(e) => setPrice(e.target.value)} />
      </Field>
    </ActionDialog>
  );
}

function ReasonField({ id, label, value, onChange }: { id: string; label: string; value: string; onChange: (v: string) => void }) {
  return (
    <Field label={label} htmlFor={id} hint="3 to 500 characters.">
      <Textarea id={id} value={value} onChange={(e) => onChange(e.target.value)} maxLength={500} required />
    </Field>
  );
}

export function RejectDialog({ user, onClose, onDone }: Props) {
  const [reason, setReason] = useState('');
  return (
    <ActionDialog title="Reject token application" submitLabel="Reject" destructive onClose={onClose} onDone={onDone}
      run={() => rpc('admin_reject_application', { p_id: user.application_id, p_reason: reason })}
      success={{ title: 'Application Rejected', description: `@${user.username} sees your reason and may apply again.` }}>
      <Muted>@{user.username} will see this reason on their profile.</Muted>
      <ReasonField id="reject-reason" label="Reason" value={reason} onChange={setReason} />
    </ActionDialog>
  );
}

export function SuspendDialog({ user, onClose, onDone }: Props) {
  const [reason, setReason] = useState('');
  return (
    <ActionDialog title={`Suspend @${user.username}`} submitLabel="Suspend" destructive onClose={onClose} onDone={onDone}
      run={() => rpc('admin_set_account_status', { p_user: user.id, p_status: 'suspended', p_reason: reason })}
      success={{ title: 'Account Suspended', description: `@${user.username} is signed out everywhere and their open orders are cancelled.` }}>
      <Muted>Every session ends at once, open orders are cancelled and sign-in is refused until you reinstate the account.</Muted>
      <ReasonField id="suspend-reason" label="Reason" value={reason} onChange={setReason} />
    </ActionDialog>
  );
}
