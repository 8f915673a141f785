import { useMemo, useState } from 'react';
import { toast } from '@repex/shared-ui/platform';
import { FormDialog, TextField, formatPrice } from '@repex/shared-ui/ui';
import type { Limits } from './types';
import { createDeposit } from './data';
import { NOT_AN_AMOUNT, typedAmount } from './typedAmount';

/**
 * Money in by card. One idempotency key per opened dialog: a double click or a retry of the same
 * deposit is credited once. The provider confirms asynchronously; the history shows the outcome.
 */
export function DepositDialog({ limits, onClose }: { limits: Limits | undefined; onClose: () => void }) {
  const [amount, setAmount] = useState('');
  const [card, setCard] = useState('');
  const idempotencyKey = useMemo(() => crypto.randomUUID(), []);

  const send = async () => {
    const value = typedAmount(amount);
    if (Number.isNaN(value)) return NOT_AN_AMOUNT;
    const { data, error: refused } = await createDeposit(value, card, idempotencyKey);
    if (refused) return refused.message;
    const payment = data;
    toast({
      title: 'Deposit Pending',
      description: `${formatPrice(payment.amount)} from ${payment.method} is being confirmed.`,
    });
    return null;
  };

  return (
    <FormDialog title="Deposit Funds" submitLabel="Deposit" busyLabel="Depositing..." send={send} onClose={onClose}>
      <TextField
        id="deposit-amount"
        label="Amount (USD)"
        hint={
          limits && `Between ${formatPrice(limits.deposit_min)} and ${formatPrice(limits.deposit_max)} per deposit.`
        }
        inputMode="decimal"
        autoComplete="off"
        placeholder="1000.00"
        value={amount}
        onValue={setAmount}
        required
      />
      <TextField
        id="deposit-card"
        label="Card number"
        hint="Test mode: 4242 4242 4242 4242 succeeds; 4000 0000 0000 0002 is declined."
        inputMode="numeric"
        autoComplete="cc-number"
        placeholder="4242 4242 4242 4242"
        value={card}
        onValue={setCard}
        required
      />
    </FormDialog>
  );
}
