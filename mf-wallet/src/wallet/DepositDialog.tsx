import { useMemo, useState } from 'react';
import { toast } from '@repex/shared-ui/platform';
import { FormDialog, TextField, formatPrice } from '@repex/shared-ui/ui';
import type { Limits } from './types';
import { createDeposit, loadPaymentState } from './data';
import { NOT_AN_AMOUNT, typedAmount } from './typedAmount';

/** How long the dialog waits for the card's answer before it leaves the rest to the history. */
const ANSWER_WAIT_MS = 5_000;
const ANSWER_POLL_MS = 250;

/**
 * Money in by card. One idempotency key per attempt: a double click or a retry of the same deposit
 * is credited once. The provider answers asynchronously, usually at once: the dialog waits a few
 * seconds for it, so a declined card keeps the dialog open with the reason, to try another card; a
 * card still unanswered is left to the history, which shows the outcome.
 */
export function DepositDialog({ limits, onClose }: { limits: Limits | undefined; onClose: () => void }) {
  const [amount, setAmount] = useState('');
  const [card, setCard] = useState('');
  const [attempt, setAttempt] = useState(0);
  const idempotencyKey = useMemo(() => `${crypto.randomUUID()}-${attempt}`, [attempt]);

  const send = async () => {
    const value = typedAmount(amount);
    if (Number.isNaN(value)) return NOT_AN_AMOUNT;
    const { data: payment, error: refused } = await createDeposit(value, card, idempotencyKey);
    if (refused) return refused.message;
    const answer = await cardAnswer(payment.id);
    if (answer?.status === 'failed') {
      setAttempt((n) => n + 1); // another card is another deposit
      return `${answer.message ?? 'The card was declined.'} Nothing was charged; try another card.`;
    }
    // Completed: the account's notice says so (Deposit Completed). Still waiting: say it is on its way.
    if (answer?.status !== 'completed')
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

/** The provider's answer to a deposit, once it has one, or null after a few seconds without. */
async function cardAnswer(id: number) {
  for (let waited = 0; waited < ANSWER_WAIT_MS; waited += ANSWER_POLL_MS) {
    const state = await loadPaymentState(id).catch(() => null);
    if (state && state.status !== 'pending' && state.status !== 'processing') return state;
    await new Promise((r) => setTimeout(r, ANSWER_POLL_MS));
  }
  return null;
}
