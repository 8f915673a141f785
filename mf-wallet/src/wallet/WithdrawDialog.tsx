import { useMemo, useState } from 'react';
import { supabase, toast, unwrap, useQuery } from '@repex/shared-ui/platform';
import { Field, FormDialog, Muted, Select, TextField, formatPrice } from '@repex/shared-ui/ui';
import type { Cash, Destination, Limits, Payment } from './types';

const NEW_ACCOUNT = 'new';

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

  const send = async () => {
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
    if (refused) return refused.message;
    const payment = data as Payment;
    toast({
      title: 'Withdrawal Requested',
      description: `${formatPrice(payment.amount)} to ${payment.method} is held until it is paid out.`,
    });
    return null;
  };

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
    </FormDialog>
  );
}
