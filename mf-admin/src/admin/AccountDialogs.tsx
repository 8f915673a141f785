import { useState, type ReactNode } from 'react';
import styled from 'styled-components';
import { supabase, toast, unwrap, useExchangeSettings, useQuery } from '@repex/shared-ui/platform';
import {
  Button,
  Dialog,
  DialogActions,
  Field,
  FormError,
  TextField,
  Muted,
  deviceName,
  Textarea,
  formatInteger,
  formatPrice,
  FormDialog,
} from '@repex/shared-ui/ui';
import { rpc } from './rpc';
import type { AdminUser, Application, OwnToken } from './types';

/** One admin action in a dialog: the form, the server's refusal shown in place, a toast on success. */
function ActionDialog({
  title,
  submitLabel,
  destructive,
  onClose,
  onDone,
  run,
  success,
  children,
}: {
  title: string;
  submitLabel: string;
  destructive?: boolean;
  onClose: () => void;
  onDone: () => void;
  run: () => Promise<unknown>;
  success: { title: string; description: string };
  children: ReactNode;
}) {
  const send = async () => {
    await run();
    toast(success);
    onDone();
    return null;
  };
  return (
    <FormDialog title={title} submitLabel={submitLabel} destructive={destructive} send={send} onClose={onClose}>
      {children}
    </FormDialog>
  );
}

const Namesakes = styled.p`
  margin: 10px 0 0;
  padding: 10px 12px;
  border: 1px solid ${({ theme }) => theme.colors.warning};
  border-radius: ${({ theme }) => theme.radius.md};
  color: ${({ theme }) => theme.colors.warning};
  font-size: 14px;
`;

interface Props {
  user: AdminUser;
  onClose: () => void;
  onDone: () => void;
}

export function ApproveDialog({ user, onClose, onDone }: Props) {
  const application = useQuery(
    async () =>
      (await rpc<Application[]>('admin_list_applications', { p_status: 'pending' })).find(
        (a) => a.id === user.application_id,
      ),
    [user.application_id],
  );
  const defaults = useExchangeSettings();
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
      run={() => {
        // Left empty, a field takes the exchange's default; typed, it must read as a number (12,50
        // would have become no value, and the default price issued without a word).
        const [s, p] = [supply, price].map((text) => (text.trim() ? Number(text) : null));
        if (Number.isNaN(s) || Number.isNaN(p))
          throw new Error('Write the total supply and the issue price as plain numbers, like 500000 and 12.50.');
        return rpc('admin_approve_application', { p_id: user.application_id, p_total_supply: s, p_issue_price: p });
      }}
      success={{ title: 'Token Issued', description: `${a?.display_name ?? user.full_name} is on the market now.` }}
    >
      {a ? (
        <div>
          <strong>{a.display_name}</strong>{' '}
          <Muted>
            · {a.category} · @{a.username}
          </Muted>
          {a.bio && <p style={{ margin: '6px 0' }}>{a.bio}</p>}
          {a.socials.map((s) => (
            <div key={s.platform}>
              <a href={s.url} target="_blank" rel="noreferrer noopener">
                {s.url}
              </a>
            </div>
          ))}
          {a.namesakes.length > 0 && (
            <Namesakes role="note" data-testid="namesakes">
              Already on the market under this name:{' '}
              {a.namesakes.map((n) => `${n.name} (@${n.username}${n.verified ? ', verified' : ''})`).join('; ')}. Check
              that the applicant is not passing for someone else.
            </Namesakes>
          )}
        </div>
      ) : (
        <Muted>Loading the application...</Muted>
      )}
      <TextField
        id="approve-supply"
        label="Total supply"
        hint={
          d &&
          `Default ${formatInteger(d.token_supply)}; ${d.token_founder_bps / 100}% to the person, the rest offered on the market.`
        }
        inputMode="numeric"
        placeholder={d ? String(d.token_supply) : ''}
        value={supply}
        onValue={setSupply}
      />
      <TextField
        id="approve-price"
        label="Issue price (USD)"
        hint={d && `Default ${formatPrice(d.token_issue_price)}.`}
        inputMode="decimal"
        placeholder={d ? d.token_issue_price.toFixed(2) : ''}
        value={price}
        onValue={setPrice}
      />
    </ActionDialog>
  );
}

function ReasonField({
  id,
  label,
  value,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (v: string) => void;
}) {
  return (
    <Field label={label} htmlFor={id} hint="3 to 500 characters.">
      <Textarea id={id} value={value} onChange={(e) => onChange(e.target.value)} maxLength={500} required />
    </Field>
  );
}

export function RejectDialog({ user, onClose, onDone }: Props) {
  const [reason, setReason] = useState('');
  return (
    <ActionDialog
      title="Reject token application"
      submitLabel="Reject"
      destructive
      onClose={onClose}
      onDone={onDone}
      run={() => rpc('admin_reject_application', { p_id: user.application_id, p_reason: reason })}
      success={{
        title: 'Application Rejected',
        description: `@${user.username} sees your reason and may apply again.`,
      }}
    >
      <Muted>@{user.username} will see this reason on their profile.</Muted>
      <ReasonField id="reject-reason" label="Reason" value={reason} onChange={setReason} />
    </ActionDialog>
  );
}

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
        description: `@${user.username} is signed out everywhere and their open orders are cancelled.`,
      }}
    >
      <Muted>
        Every session ends at once, open orders are cancelled and sign-in is refused until you reinstate the account.
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

interface Details {
  profile: {
    full_name: string;
    username: string;
    email: string;
    status: string;
    verified: boolean;
    created_at: string;
    last_sign_in_at: string | null;
    /** An authenticator app is on (two-step verification). */
    two_step: boolean;
  };
  cash: { available: number; reserved: number; pending_withdrawal: number };
  holdings: { token: string; amount: number; reserved: number }[];
  open_orders: { id: number; token: string; side: string; price: number; amount: number }[];
  trades: { id: number; token: string; side: string; price: number; amount: number; created_at: string }[];
  payments: { id: number; type: string; amount: number; status: string; method: string | null; created_at: string }[];
  bank_accounts: {
    id: string;
    label: string;
    account_last4: string;
    created_at: string;
    usable_from: string;
    removed_at: string | null;
  }[];
  sessions: {
    id: string;
    created_at: string;
    refreshed_at: string | null;
    user_agent: string | null;
    ip: string | null;
  }[];
  activity: { created_at: string; actor: string | null; action: string; reason: string | null }[];
}

const Section = ({ title, empty, children }: { title: string; empty: boolean; children: ReactNode }) => (
  <section>
    <h3 style={{ margin: '4px 0', fontSize: 14 }}>{title}</h3>
    {empty ? <Muted>None.</Muted> : <ul style={{ margin: 0, paddingLeft: 18, fontSize: 13 }}>{children}</ul>}
  </section>
);
const when = (iso: string) => new Date(iso).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' });

/** Details: one account as the operator needs it, including the admin actions taken on it. */
export function DetailsDialog({
  user,
  onClose,
  onSignOut,
  onRemoveTwoStep,
  onHalt,
}: {
  user: AdminUser;
  onClose: () => void;
  onSignOut: () => void;
  onRemoveTwoStep: () => void;
  onHalt: (token: OwnToken) => void;
}) {
  // When the details were opened: what a bank account's wait is measured against.
  const [openedAt] = useState(Date.now);
  const details = useQuery(() => rpc<Details>('admin_account_details', { p_user: user.id }), [user.id]);
  const token = useQuery(
    async () =>
      unwrap(
        await supabase()
          .from('tokens')
          .select('id, name, halt_reason, halted_at')
          .eq('owner_id', user.id)
          .maybeSingle(),
      ) as OwnToken | null,
    [user.id],
  );
  const d = details.data;
  const t = token.data;
  return (
    <Dialog title={`@${user.username}`} onClose={onClose}>
      {!d && !details.error && <Muted>Loading...</Muted>}
      {details.error && <FormError>{details.error.message}</FormError>}
      {d && (
        <div data-testid="account-details" style={{ display: 'flex', flexDirection: 'column', gap: 10 }}>
          <div>
            <strong>{d.profile.full_name}</strong> · {d.profile.email} · {d.profile.status}
            {d.profile.verified ? ' · verified' : ''}
            <br />
            <Muted>
              Joined {when(d.profile.created_at)}; last sign-in{' '}
              {d.profile.last_sign_in_at ? when(d.profile.last_sign_in_at) : 'never'}; two-step verification{' '}
              {d.profile.two_step ? 'on' : 'off'}
            </Muted>
          </div>
          {t && (
            <div data-testid="own-token">
              Token {t.name}:{' '}
              {t.halt_reason === null ? 'trading open' : `trading halted since ${when(t.halted_at!)}: ${t.halt_reason}`}
            </div>
          )}
          <div>
            Cash {formatPrice(d.cash.available)} available, {formatPrice(d.cash.reserved)} reserved,{' '}
            {formatPrice(d.cash.pending_withdrawal)} held for withdrawals
          </div>
          <Section title="Holdings" empty={!d.holdings.length}>
            {d.holdings.map((h) => (
              <li key={h.token}>
                {formatInteger(h.amount)} {h.token}
                {h.reserved ? ` (${formatInteger(h.reserved)} in orders)` : ''}
              </li>
            ))}
          </Section>
          <Section title="Open orders" empty={!d.open_orders.length}>
            {d.open_orders.map((o) => (
              <li key={o.id}>
                #{o.id} {o.side} {formatInteger(o.amount)} {o.token} at {formatPrice(o.price)}
              </li>
            ))}
          </Section>
          <Section title="Latest trades" empty={!d.trades.length}>
            {d.trades.map((t) => (
              <li key={t.id}>
                #{t.id} {t.side} {formatInteger(t.amount)} {t.token} at {formatPrice(t.price)}, {when(t.created_at)}
              </li>
            ))}
          </Section>
          <Section title="Deposits and withdrawals" empty={!d.payments.length}>
            {d.payments.map((p) => (
              <li key={p.id}>
                {p.type} {formatPrice(p.amount)} {p.status}
                {p.method ? `, ${p.method}` : ''}, {when(p.created_at)}
              </li>
            ))}
          </Section>
          <Section title="Bank accounts" empty={!d.bank_accounts.length}>
            {d.bank_accounts.map((b) => (
              <li key={b.id}>
                {b.label} •••• {b.account_last4}, added {when(b.created_at)}
                {b.removed_at
                  ? `, removed ${when(b.removed_at)}`
                  : Date.parse(b.usable_from) > openedAt
                    ? `, receives withdrawals from ${when(b.usable_from)}`
                    : ''}
              </li>
            ))}
          </Section>
          <Section title="Sessions" empty={!d.sessions.length}>
            {d.sessions.map((s) => (
              <li key={s.id}>
                {deviceName(s.user_agent)}, {s.ip ?? 'unknown address'}, since {when(s.created_at)}
                {s.refreshed_at ? `, refreshed ${when(s.refreshed_at)}` : ''}
              </li>
            ))}
          </Section>
          <Section title="Admin actions on this account" empty={!d.activity.length}>
            {d.activity.map((a) => (
              <li key={a.created_at + a.action}>
                {when(a.created_at)}: {a.action} by @{a.actor}
                {a.reason ? `: ${a.reason}` : ''}
              </li>
            ))}
          </Section>
        </div>
      )}
      <DialogActions>
        {t && (
          <Button type="button" $variant={t.halt_reason === null ? 'destructive' : 'default'} onClick={() => onHalt(t)}>
            {t.halt_reason === null ? 'Halt Trading' : 'Resume Trading'}
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
