import { useMemo, useState } from 'react';
import { supabase, toast, unwrap, useQuery } from '@repex/shared-ui/platform';
import {
  Button,
  Dialog,
  DialogActions,
  Field,
  FormDialog,
  Muted,
  Select,
  TextField,
  formatDate,
  formatPrice,
  formatTime,
} from '@repex/shared-ui/ui';
import type { Cash, Destination, Limits, Payment } from './types';

const NEW_ACCOUNT = 'new';

/**
 * Signs the user in again, the proof the database asks for before money leaves when the session's
 * sign-in is not recent. The new session replaces this browser's; the old one is ended.
 */
async function signInAgain(password: string): Promise<string | null> {
  const auth = supabase().auth;
  const old = (await auth.getSession()).data.session;
  if (!old?.user.email) return 'Sign in again to withdraw.';
  const { error } = await auth.signInWithPassword({ email: old.user.email, password });
  if (error) return error.message === 'Invalid login credentials' ? 'That password is not right.' : error.message;
  // The user's own token ends its own session (GoTrue's logout; the admin API needs no admin key for it).
  await auth.admin.signOut(old.access_token, 'local');
  return null;
}

/** Money out to a saved account (shown masked). The amount is held at once and paid out later. */
export function WithdrawDialog({
  limits,
  cash,
  onClose,
}: {
  limits: Limits | undefined;
  cash: Cash | undefined;
  onClose: () => void;
}) {
  const destinations = useQuery(
    async () =>
      unwrap(
        await supabase().from('payout_destinations').select('id, label, account_last4').order('created_at'),
      ) as Destination[],
    [],
  );
  const [chosen, setChosen] = useState<string>();
  const [label, setLabel] = useState('');
  const [account, setAccount] = useState('');
  const [amount, setAmount] = useState('');
  const idempotencyKey = useMemo(() => crypto.randomUUID(), []);
  const destination = chosen ?? destinations.data?.[0]?.id ?? NEW_ACCOUNT;
  // Asked for when the database wants a recent sign-in before money leaves.
  const [password, setPassword] = useState<string>();
  // Withdrawals wait a day after a password or email change: said before anything is typed.
  const heldUntil = useQuery(async () => unwrap(await supabase().rpc('my_withdrawal_hold')) as string | null, []);

  const send = async () => {
    if (password !== undefined) {
      const refused = await signInAgain(password);
      if (refused) return refused;
      setPassword(undefined);
    }
    let target = destination;
    if (target === NEW_ACCOUNT) {
      const added = await supabase().rpc('add_payout_destination', { p_label: label, p_account_number: account });
      if (added.error) return added.error.message;
      target = added.data as string;
      setChosen(target);
      destinations.reload();
    }
    const { data, error: refused } = await supabase().rpc('create_withdrawal', {
      p_amount: amount.trim() === '' ? null : Number(amount),
      p_destination: target,
      p_idempotency_key: idempotencyKey,
    });
    if (refused) {
      if (refused.hint === 'reauthenticate') setPassword('');
      return refused.message;
    }
    const payment = data as Payment;
    toast({
      title: 'Withdrawal Requested',
      description: `${formatPrice(payment.amount)} to ${payment.method} is held until it is paid out.`,
    });
    return null;
  };

  if (heldUntil.data) {
    return (
      <Dialog title="Withdraw" onClose={onClose}>
        <Muted role="status">
          For your security, withdrawals open again on {formatDate(heldUntil.data)} at {formatTime(heldUntil.data)},
          after the recent change of your password or email. Deposits and trading go on as usual.
        </Muted>
        <DialogActions>
          <Button type="button" onClick={onClose}>
            Close
          </Button>
        </DialogActions>
      </Dialog>
    );
  }
  return (
    <FormDialog title="Withdraw" submitLabel="Withdraw" busyLabel="Requesting..." send={send} onClose={onClose}>
      <Field label="To account" htmlFor="withdraw-destination">
        <Select id="withdraw-destination" value={destination} onChange={(e) => setChosen(e.target.value)}>
          {destinations.data?.map((d) => (
            <option key={d.id} value={d.id}>{`${d.label} •••• ${d.account_last4}`}</option>
          ))}
          <option value={NEW_ACCOUNT}>Add a bank account...</option>
        </Select>
      </Field>
      {destination === NEW_ACCOUNT && (
        <>
          <TextField
            id="withdraw-label"
            label="Account name"
            placeholder="Checking"
            value={label}
            onValue={setLabel}
            required
          />
          <TextField
            id="withdraw-account"
            label="Account number"
            hint="Only the last four digits are kept."
            inputMode="numeric"
            autoComplete="off"
            value={account}
            onValue={setAccount}
            required
          />
        </>
      )}
      <TextField
        id="withdraw-amount"
        label="Amount (USD)"
        hint={limits && `Up to ${formatPrice(limits.withdrawal_daily_limit)} a day.`}
        inputMode="decimal"
        autoComplete="off"
        placeholder="100.00"
        value={amount}
        onValue={setAmount}
        required
      />
      {cash && <Muted>{formatPrice(cash.available)} available to withdraw.</Muted>}
      {password !== undefined && (
        <TextField
          id="withdraw-password"
          label="Your password"
          type="password"
          autoComplete="current-password"
          autoFocus
          value={password}
          onValue={setPassword}
          required
        />
      )}
    </FormDialog>
  );
}
