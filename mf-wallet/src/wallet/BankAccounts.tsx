import { useState } from 'react';
import styled from 'styled-components';
import { toast, type QueryState } from '@repex/shared-ui/platform';
import {
  Badge,
  Button,
  Card,
  CardTitle,
  ErrorState,
  FormDialog,
  Muted,
  Skeleton,
  TextField,
  formatDate,
  formatTime,
  RowList,
  formatCount,
} from '@repex/shared-ui/ui';
import type { Limits } from './types';
import { addBankAccount, loadBankAccount, removeBankAccount, type Destination } from './data';

export const accountName = (d: Pick<Destination, 'label' | 'account_last4'>) => `${d.label} •••• ${d.account_last4}`;
const from = (iso: string) => `${formatDate(iso)} at ${formatTime(iso)}`;
/** '1 hour', '24 hours': the exchange's wait for new accounts, as read from its settings. */
export const waitFor = (hours: number) => formatCount(hours, 'hour');
/** Whether the account may receive a withdrawal now (the database decides; this only shows it). */
export const isReady = (d: Destination) => Date.parse(d.usable_from) <= Date.now();

const Head = styled.div`
  display: flex;
  justify-content: space-between;
  align-items: center;
  gap: 12px;
  flex-wrap: wrap;
  margin-bottom: 4px;
  h2 {
    margin: 0;
  }
`;

/** The saved accounts withdrawals go to: each one's state, and Add and Remove. */
export function BankAccounts({
  accounts,
  onAdd,
  onChanged,
}: {
  accounts: QueryState<Destination[]>;
  onAdd: () => void;
  onChanged: () => void;
}) {
  const [removing, setRemoving] = useState<Destination>();
  return (
    <Card aria-labelledby="bank-accounts-title">
      <Head>
        <CardTitle id="bank-accounts-title">Bank Accounts</CardTitle>
        <Button $variant="outline" $size="sm" onClick={onAdd}>
          Add Bank Account
        </Button>
      </Head>
      {accounts.error && !accounts.data ? (
        <ErrorState title="Your bank accounts could not be loaded." onRetry={accounts.reload} />
      ) : !accounts.data ? (
        <Skeleton $width="220px" $height="40px" />
      ) : accounts.data.length === 0 ? (
        <Muted>No bank account saved yet. Add one to withdraw to it.</Muted>
      ) : (
        <RowList aria-label="Saved bank accounts">
          {accounts.data.map((d) => (
            <li key={d.id} data-testid="bank-account">
              <div>
                <strong>{accountName(d)}</strong>
                {isReady(d) ? (
                  <Badge $variant="up">Ready</Badge>
                ) : (
                  <small>Receives withdrawals from {from(d.usable_from)}</small>
                )}
              </div>
              <Button
                $variant="outline"
                $size="sm"
                aria-label={`Remove ${accountName(d)}`}
                onClick={() => setRemoving(d)}
              >
                Remove
              </Button>
            </li>
          ))}
        </RowList>
      )}
      {removing && (
        <RemoveDialog
          account={removing}
          onClose={() => setRemoving(undefined)}
          onRemoved={() => {
            setRemoving(undefined);
            onChanged();
          }}
        />
      )}
    </Card>
  );
}

function RemoveDialog({
  account,
  onClose,
  onRemoved,
}: {
  account: Destination;
  onClose: () => void;
  onRemoved: () => void;
}) {
  const send = async () => {
    const refused = await removeBankAccount(account.id);
    if (refused) return refused;
    toast({ title: 'Bank Account Removed', description: `${accountName(account)} can no longer receive withdrawals.` });
    onRemoved();
    return null;
  };
  return (
    <FormDialog
      title="Remove Bank Account"
      submitLabel="Remove"
      busyLabel="Removing..."
      destructive
      send={send}
      onClose={onClose}
    >
      <Muted>
        {accountName(account)} will no longer receive withdrawals. A withdrawal already on its way to it goes on; cancel
        it in your history while it is pending.
      </Muted>
    </FormDialog>
  );
}

/**
 * Saves a bank account. It receives withdrawals after the exchange's wait for new accounts (read
 * from the settings), and its owner is mailed at once.
 */
export function AddBankAccountDialog({
  limits,
  onClose,
  onSaved,
}: {
  limits: Limits | undefined;
  onClose: () => void;
  onSaved: () => void;
}) {
  const [label, setLabel] = useState('');
  const [account, setAccount] = useState('');
  const send = async () => {
    const saved = await addBankAccount(label, account);
    if ('refused' in saved) return saved.refused;
    // Said with its wait; were the read to fail, the account is saved all the same.
    const d = await loadBankAccount(saved.id).catch(() => null);
    toast({
      title: 'Bank Account Saved',
      description: !d
        ? 'It is listed in your Wallet.'
        : isReady(d)
          ? `${accountName(d)} is ready for withdrawals.`
          : `${accountName(d)} receives withdrawals from ${from(d.usable_from)}. We emailed you about it.`,
    });
    onSaved();
    return null;
  };
  const hours = limits?.new_bank_account_hold_hours;
  return (
    <FormDialog title="Add Bank Account" submitLabel="Save Account" busyLabel="Saving..." send={send} onClose={onClose}>
      <TextField
        id="account-label"
        label="Account name"
        placeholder="Checking"
        value={label}
        onValue={setLabel}
        required
      />
      <TextField
        id="account-number"
        label="Account number"
        hint="Only the last four digits are kept."
        inputMode="numeric"
        autoComplete="off"
        value={account}
        onValue={setAccount}
        required
      />
      {!!hours && (
        <Muted>
          For your security, a new account receives withdrawals {waitFor(hours)} after it is added, and we email you
          when one is added.
        </Muted>
      )}
    </FormDialog>
  );
}
