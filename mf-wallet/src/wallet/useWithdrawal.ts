import { useMemo, useState } from 'react';
import { enterAppCode, signInAgain, toast, type AuthenticatorApp } from '@repex/shared-ui/platform';
import { formatPrice } from '@repex/shared-ui/ui';
import { createWithdrawal, myAuthenticatorApps } from './data';
import { NOT_AN_AMOUNT, typedAmount } from './typedAmount';

/**
 * A withdrawal being asked for: its amount, and the proof the database may want of a recent sign-in
 * before money leaves. That proof is the password or, with two-step verification on, a code from
 * the app, which renews this session's proof (GoTrue's amr) without a new sign-in. One idempotency
 * key per dialog, so a retried request never pays out twice.
 */
export function useWithdrawal(destination: string | undefined) {
  const [amount, setAmount] = useState('');
  const idempotencyKey = useMemo(() => crypto.randomUUID(), []);
  const [password, setPassword] = useState<string>();
  const [appCode, setAppCode] = useState<string>();
  const [apps, setApps] = useState<AuthenticatorApp[]>([]);
  const [app, setApp] = useState<string>();

  /** The proof asked for, given first; then the withdrawal. Null when it was requested, else why not. */
  const send = async (): Promise<string | null> => {
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
    const { data: payment, error: refused } = await createWithdrawal(value, destination ?? null, idempotencyKey);
    if (refused) {
      if (refused.hint === 'reauthenticate') await askForProof();
      return refused.message;
    }
    toast({
      title: 'Withdrawal Requested',
      description: `${formatPrice(payment.amount)} to ${payment.method} is held until it is paid out.`,
    });
    return null;
  };

  const askForProof = async () => {
    const on = await myAuthenticatorApps();
    setApps(on);
    setApp(on[0]?.id);
    if (on.length) setAppCode('');
    else setPassword('');
  };

  return { amount, setAmount, password, setPassword, appCode, setAppCode, apps, app, setApp, send };
}

export type Withdrawal = ReturnType<typeof useWithdrawal>;
