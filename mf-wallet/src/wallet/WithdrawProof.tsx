import { AppChoice, TextField } from '@repex/shared-ui/ui';
import type { Withdrawal } from './useWithdrawal';

/** The recent sign-in the database asked for: a code from an authenticator app, or the password. */
export function WithdrawProof({ w }: { w: Withdrawal }) {
  return (
    <>
      {w.appCode !== undefined && <AppChoice id="withdraw-app" apps={w.apps} value={w.app} onChange={w.setApp} />}
      {w.appCode !== undefined && (
        <TextField
          id="withdraw-app-code"
          label="Code from your authenticator app"
          inputMode="numeric"
          autoComplete="one-time-code"
          autoFocus
          value={w.appCode}
          onValue={w.setAppCode}
          required
        />
      )}
      {w.password !== undefined && (
        <TextField
          id="withdraw-password"
          label="Your password"
          type="password"
          autoComplete="current-password"
          autoFocus
          value={w.password}
          onValue={w.setPassword}
          required
        />
      )}
    </>
  );
}
