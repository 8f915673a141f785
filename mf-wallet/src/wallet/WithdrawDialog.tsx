import { useMemo, useState } from 'react';
import { enterAppCode, signInAgain, toast, useQuery, type AuthenticatorApp } from '@repex/shared-ui/platform';
import {
  AppChoice,
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
import { accountName, isReady, waitFor } from './BankAccounts';
import type { Limits } from './types';
import { createWithdrawal, loadWithdrawalHold, myAuthenticatorApps, type Cash, type Destination } from './data';
import { NOT_AN_AMOUNT, typedAmount } from './typedAmount';

const NEW_ACCOUNT = 'new';

/**
 * Money out to a saved account (shown masked) that is past its wait; the amount is held at once and
 * paid out later. "Add a bank account..." hands over to the Add Bank Account dialog.
 */
export function WithdrawDialog({
  limits,
  cash,
  accounts,
  onAddAccount,
  onClose,
}: {
  limits: Limits | undefined;
  cash: Cash | undefined;
  accounts: Destination[] | undefined;
  onAddAccount: () => void;
  onClose: () => void;
}) {
  const ready = accounts?.filter(isReady) ?? [];
  const waiting = accounts?.filter((d) => !isReady(d)) ?? [];
  const [chosen, setChosen] = useState<string>();
  const [amount, setAmount] = useState('');
  const idempotencyKey = useMemo(() => crypto.randomUUID(), []);
  const destination = chosen ?? ready[0]?.id;
  // Asked for when the database wants a recent sign-in before money leaves: the password, or with
  // two-step verification on, a code from the app, which renews this session's proof (GoTrue's
  // amr) without a new sign-in.
  const [password, setPassword] = useState<string>();
  const [appCode, setAppCode] = useState<string>();
  const [apps, setApps] = useState<AuthenticatorApp[]>([]);
  const [app, setApp] = useState<string>();
  // Withdrawals wait a day after a password or email change: said before anything is typed.
  const heldUntil = useQuery(loadWithdrawalHold, []);

  const send = async () => {
    const value = typedAmount(amount);
    if (Number.isNaN(value)) return NOT_AN_AMOUNT;
    if (password !== undefined) {
      const refused = await signInAgain(password, 'withdraw');
      if (refused) return refused;
      setPassword(undefined);
    }
    if (appCode !== undefined) {
      if (!app) return 'Two-step verification is no longer on: close this and withdraw again.';
      const refused = await enterAppCode(app, appCode);
      if (refused) return refused;
      setAppCode(undefined);
    }
    const { data, error: refused } = await createWithdrawal(value, destination ?? null, idempotencyKey);
    if (refused) {
      if (refused.hint === 'reauthenticate') {
        const on = await myAuthenticatorApps();
        setApps(on);
        setApp(on[0]?.id);
        if (on.length) setAppCode('');
        else setPassword('');
      }
      return refused.message;
    }
    const payment = data;
    toast({
      title: 'Withdrawal Requested',
      description: `${formatPrice(payment.amount)} to ${payment.method} is held until it is paid out.`,
    });
    return null;
  };

  const hours = limits?.new_bank_account_hold_hours;
  const waitingNote = waiting.length > 0 && (
    <Muted as="div" role="status">
      {hours ? `For your security, a new account receives withdrawals ${waitFor(hours)} after it is added: ` : ''}
      {waiting.map((d, i) => (
        <span key={d.id}>
          {i > 0 && '; '}
          {accountName(d)} from {formatDate(d.usable_from)} at {formatTime(d.usable_from)}
        </span>
      ))}
      .
    </Muted>
  );
  if (heldUntil.data || (accounts && ready.length === 0)) {
    return (
      <Dialog title="Withdraw" onClose={onClose}>
        {heldUntil.data ? (
          <Muted role="status">
            For your security, withdrawals open again on {formatDate(heldUntil.data)} at {formatTime(heldUntil.data)},
            after the recent change of your password or email. Deposits and trading go on as usual.
          </Muted>
        ) : waiting.length ? (
          waitingNote
        ) : (
          <Muted role="status">Add the bank account to withdraw to first.</Muted>
        )}
        <DialogActions>
          <Button type="button" $variant="outline" onClick={onClose}>
            Close
          </Button>
          {!heldUntil.data && (
            <Button type="button" onClick={onAddAccount}>
              Add Bank Account
            </Button>
          )}
        </DialogActions>
      </Dialog>
    );
  }
  return (
    <FormDialog title="Withdraw" submitLabel="Withdraw" busyLabel="Requesting..." send={send} onClose={onClose}>
      <Field label="To account" htmlFor="withdraw-destination">
        <Select
          id="withdraw-destination"
          value={destination ?? ''}
          onChange={(e) => (e.target.value === NEW_ACCOUNT ? onAddAccount() : setChosen(e.target.value))}
        >
          {ready.map((d) => (
            <option key={d.id} value={d.id}>
              {accountName(d)}
            </option>
          ))}
          <option value={NEW_ACCOUNT}>Add a bank account...</option>
        </Select>
      </Field>
      {waitingNote}
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
      {appCode !== undefined && <AppChoice id="withdraw-app" apps={apps} value={app} onChange={setApp} />}
      {appCode !== undefined && (
        <TextField
          id="withdraw-app-code"
          label="Code from your authenticator app"
          inputMode="numeric"
          autoComplete="one-time-code"
          autoFocus
          value={appCode}
          onValue={setAppCode}
          required
        />
      )}
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
