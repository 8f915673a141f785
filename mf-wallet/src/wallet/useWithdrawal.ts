import { useMemo, useState } from 'react';
import { toast, useRecentSignIn } from '@repex/shared-ui/platform';
import { formatPrice } from '@repex/shared-ui/ui';
import { createWithdrawal } from './data';
import { NOT_AN_AMOUNT, typedAmount } from './typedAmount';

/**
 * A withdrawal being asked for: its amount, and the proof the database may want of a recent sign-in
 * before money leaves (the platform's useRecentSignIn). One idempotency key per dialog, so a
 * retried request never pays out twice.
 */
export function useWithdrawal(destination: string | undefined) {
  const [amount, setAmount] = useState('');
  const idempotencyKey = useMemo(() => crypto.randomUUID(), []);
  const proof = useRecentSignIn('withdraw');

  /** The proof asked for, given first; then the withdrawal. Null when it was requested, else why not. */
  const send = async (): Promise<string | null> => {
    const value = typedAmount(amount);
    if (Number.isNaN(value)) return NOT_AN_AMOUNT;
    const unproved = await proof.prove();
    if (unproved) return unproved;
    const { data: payment, error: refused } = await createWithdrawal(value, destination ?? null, idempotencyKey);
    if (refused) {
      if (refused.hint === 'reauthenticate') await proof.ask();
      return refused.message;
    }
    toast({
      title: 'Withdrawal Requested',
      description: `${formatPrice(payment.amount)} to ${payment.method} is held until it is paid out.`,
    });
    return null;
  };

  return { amount, setAmount, proof, send };
}
