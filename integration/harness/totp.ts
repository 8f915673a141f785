import { TOTP, totpStep } from '../../server/auth/totp';

/**
 * The authenticator app's current step, with at least `marginMs` left in it (waiting for the next
 * step otherwise): codes of the step before, this one and the next are then all accepted while a
 * test that takes less than the margin runs.
 */
export async function freshStep(marginMs: number): Promise<number> {
  const stepMs = TOTP.stepSeconds * 1000;
  const left = stepMs - (Date.now() % stepMs);
  if (left < marginMs) await new Promise((r) => setTimeout(r, left + 50));
  return totpStep(Date.now());
}
