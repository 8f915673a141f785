import { useState } from 'react';
import { useQuery } from '@repex/shared-ui/platform';
import {
  Field,
  FormDialog,
  Muted,
  RecentSignInFields,
  Select,
  TextField,
  formatDate,
  formatPrice,
  formatTime,
} from '@repex/shared-ui/ui';
import { accountName, isReady, waitFor } from './BankAccounts';
import type { Limits } from './types';
import { loadWithdrawalHold, type Cash, type Destination } from './data';
import { useWithdrawal } from './useWithdrawal';
import { WithdrawBlocked } from './WithdrawBlocked';

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
  const destination = chosen ?? ready[0]?.id;
  const w = useWithdrawal(destination);
  // Withdrawals wait a day after a password or email change: said before anything is typed.
  const heldUntil = useQuery(loadWithdrawalHold, []);

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
      <WithdrawBlocked
        heldUntil={heldUntil.data}
        waitingNote={waitingNote || null}
        onAddAccount={onAddAccount}
        onClose={onClose}
      />
    );
  }
  return (
    <FormDialog title="Withdraw" submitLabel="Withdraw" busyLabel="Requesting..." send={w.send} onClose={onClose}>
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
        value={w.amount}
        onValue={w.setAmount}
        required
      />
      {cash && <Muted>{formatPrice(cash.available)} available to withdraw.</Muted>}
      <RecentSignInFields id="withdraw" proof={w.proof} />
    </FormDialog>
  );
}
