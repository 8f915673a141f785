import path from 'node:path';
import { DEMO_ACCOUNTS } from '../server/demo';
import { totpCode } from '../server/auth/totp';
import { freshStep } from '../integration/harness/totp';
import { lastCodeFor } from '../integration/harness/mail';
import {
  SCREENSHOTS,
  apiUser,
  submitSignIn,
  nodeClient,
  signUp,
  startApp,
  toastText,
  type E2EApp,
} from './helpers/app';

jest.setTimeout(120_000);

let app: E2EApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app?.close());

/**
 * A confirmed account with two-step verification on, by its first app and a backup app, each
 * verified with the code of the step before `step` (a fresh step with `marginMs` left in it).
 */
async function withTwoApps(user: { email: string; password: string; username: string }, marginMs: number) {
  const api = await apiUser(app, user);
  const { data } = await api.auth.mfa.enroll({ factorType: 'totp', issuer: 'RepX' });
  const { id: factorId, totp } = data as { id: string; totp: { secret: string } };
  const step = await freshStep(marginMs);
  expect((await api.auth.mfa.challengeAndVerify({ factorId, code: totpCode(totp.secret, step - 1) })).error).toBeNull();
  const { data: added } = await api.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Backup app' });
  const backup = added as { id: string; totp: { secret: string } };
  const verified = await api.auth.mfa.challengeAndVerify({
    factorId: backup.id,
    code: totpCode(backup.totp.secret, step - 1),
  });
  expect(verified.error).toBeNull();
  return { api, totp, backup, step };
}

test('a forgotten password with two-step verification on asks for the code from the app too', async () => {
  const email = 'forgot-twostep@e2e.repx.dev';
  // The phone is lost too: the backup app gives the code.
  const { backup, step } = await withTwoApps({ email, password: 'first-password', username: 'e2e_forgot2' }, 15_000);

  const page = await app.newPage(390);
  await page.goto(`${app.url}/auth/reset`);
  await page.fill('#reset-email', email);
  await page.getByRole('button', { name: 'Send Code' }).click();
  // The code step, which stays, rather than the toast, which lives 5 s (auth.test reads its words):
  // one clean-clone run missed the toast here.
  await page.locator('#reset-code').waitFor();
  await page.fill('#reset-code', (await lastCodeFor(app.backend.db, email))!);
  await page.fill('#reset-password', 'second-password');
  await page.getByRole('button', { name: 'Reset Password' }).click();
  await expect(toastText(page, 'One More Code')).resolves.toMatchObject({
    description: 'Two-step verification is on: enter the code from your authenticator app too.',
  });
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('reset-app-code');
  await page.selectOption('#reset-app', { label: 'Backup app' });
  await page.fill('#reset-app-code', totpCode(backup.totp.secret, step));
  await page.screenshot({ path: path.join(SCREENSHOTS, 'reset-two-step-390.png') });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: path.join(SCREENSHOTS, 'reset-two-step-1280.png') });
  await page.getByRole('button', { name: 'Reset Password' }).click();
  await expect(toastText(page, 'Password Updated')).resolves.toMatchObject({
    description: 'You are signed in with your new password.',
  });
  await page.goto(`${app.url}/wallet`);
  await page.getByRole('heading', { name: 'Wallet' }).first().waitFor();
  expect((await nodeClient(app).auth.signInWithPassword({ email, password: 'second-password' })).error).toBeNull();
  await page.context().close();
});

test('an admin with two-step verification on gives the code before the admin dashboard', async () => {
  const admin = nodeClient(app);
  await admin.auth.signInWithPassword(DEMO_ACCOUNTS.admin);
  const { data } = await admin.auth.mfa.enroll({ factorType: 'totp', issuer: 'RepX' });
  const { id: factorId, totp } = data as { id: string; totp: { secret: string } };
  const step = await freshStep(15_000);
  expect(
    (await admin.auth.mfa.challengeAndVerify({ factorId, code: totpCode(totp.secret, step - 1) })).error,
  ).toBeNull();

  const page = await app.newPage(390);
  await page.goto(`${app.url}/auth/nra`);
  await page.fill('#admin-email', DEMO_ACCOUNTS.admin.email);
  await page.fill('#admin-password', DEMO_ACCOUNTS.admin.password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await page.waitForURL('**/auth/verify');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'two-step-390.png') });
  // Back at the admin sign-in before giving the code: the code step again, bound for the admin area.
  await page.goto(`${app.url}/auth/nra`);
  await page.waitForURL('**/auth/verify');
  await page.locator('#two-step-code').waitFor();
  await page.fill('#two-step-code', totpCode(totp.secret, step));
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.waitForURL('**/nra/login/profile');
  await page.locator('[data-remote="admin"]').first().waitFor();
  await expect(toastText(page, 'Admin Sign In Successful!')).resolves.toMatchObject({
    description: 'Welcome to the Admin Dashboard.',
  });
  expect(
    (await admin.auth.mfa.challengeAndVerify({ factorId, code: totpCode(totp.secret, step + 1) })).error,
  ).toBeNull();
  expect((await admin.auth.mfa.unenroll({ factorId })).error).toBeNull();
  await page.context().close();
});

test('with two-step verification on, a withdrawal long after the sign-in asks for a code from the app', async () => {
  const email = 'withdraw-twostep@e2e.repx.dev';
  const password = 'withdraw-password';
  // With a backup app, whose code the withdrawal is given.
  const { totp, backup, step } = await withTwoApps({ email, password, username: 'e2e_withdraw2' }, 25_000);
  const db = <T>(sql: string, params: unknown[]) => app.backend.db.query<T>(sql, params);
  const [me] = await db<{ id: string }>('select id from auth.users where email = $1', [email]);
  await db('select private.record_deposit($1, 500)', [me!.id]);
  await db(
    `insert into payout_destinations (user_id, label, account_last4, created_at, usable_from)
     values ($1, 'Savings', '4321', now() - interval '1 day', now() - interval '1 second')`,
    [me!.id],
  );

  const page = await app.newPage(390);
  await submitSignIn(page, app, { email: email, password: password });
  await page.waitForURL('**/auth/verify');
  await page.fill('#two-step-code', totpCode(totp.secret, step));
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.waitForURL('**/dashboard');
  // The sign-in and its code age past the database's window; the browser's next token carries their times.
  await db(
    `update auth.sessions set created_at = now() - interval '16 minutes', mfa_verified_at = now() - interval '16 minutes'
     where user_id = $1`,
    [me!.id],
  );
  await page.evaluate(() => {
    for (const key of Object.keys(localStorage).filter((k) => k.endsWith('-auth-token'))) {
      const stored = JSON.parse(localStorage.getItem(key)!) as { expires_at: number };
      localStorage.setItem(key, JSON.stringify({ ...stored, expires_at: Math.floor(Date.now() / 1000) - 10 }));
    }
  });
  const sessionCount = async () =>
    (await db<{ n: number }>('select count(*)::int as n from auth.sessions where user_id = $1', [me!.id]))[0]!.n;
  const before = await sessionCount(); // this browser's and the API client's
  await page.goto(`${app.url}/wallet`);
  await page.getByTestId('bank-account').filter({ hasText: 'Savings •••• 4321' }).waitFor();
  await page.getByRole('button', { name: 'Withdraw', exact: true }).click();
  const withdraw = page.getByRole('dialog', { name: 'Withdraw' });
  await withdraw.locator('#withdraw-amount').fill('100');
  await withdraw.getByRole('button', { name: 'Withdraw', exact: true }).click();
  await withdraw.getByText('For your security, enter a code from your authenticator app to withdraw.').waitFor();
  await withdraw.locator('#withdraw-app-code').fill(totpCode(totp.secret, step + 5));
  await withdraw.getByRole('button', { name: 'Withdraw', exact: true }).click();
  await withdraw.getByText('The code is wrong. Enter the one your app shows now.').waitFor();
  await withdraw.locator('#withdraw-app').selectOption({ label: 'Backup app' });
  await withdraw.locator('#withdraw-app-code').fill(totpCode(backup.totp.secret, step + 1));
  await page.screenshot({ path: path.join(SCREENSHOTS, 'withdraw-app-code-390.png') });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: path.join(SCREENSHOTS, 'withdraw-app-code-1280.png') });
  await withdraw.getByRole('button', { name: 'Withdraw', exact: true }).click();
  await expect(toastText(page, 'Withdrawal Requested')).resolves.toMatchObject({
    description: '$100.00 to Savings •••• 4321 is held until it is paid out.',
  });
  // Still this browser's session, no new sign-in: the code renewed it.
  expect(new URL(page.url()).pathname).toBe('/wallet');
  expect(await sessionCount()).toBe(before);
  await page.context().close();
});

test('turning two-step verification on long after the sign-in asks for the password first', async () => {
  for (const width of [390, 1280]) {
    const user = {
      email: `turn-on-late-${width}@e2e.repx.dev`,
      password: 'turn-on-password',
      username: `e2e_late_${width}`,
    };
    const page = await app.newPage(width);
    await signUp(page, app, user);
    // The sign-in ages past the 15 minutes; the browser's next token carries its time.
    await app.backend.db.query(
      `update auth.sessions set created_at = now() - interval '20 minutes'
        where user_id = (select id from auth.users where email = $1)`,
      [user.email],
    );
    await page.evaluate(() => {
      for (const key of Object.keys(localStorage).filter((k) => k.endsWith('-auth-token'))) {
        const stored = JSON.parse(localStorage.getItem(key)!) as { expires_at: number };
        localStorage.setItem(key, JSON.stringify({ ...stored, expires_at: Math.floor(Date.now() / 1000) - 10 }));
      }
    });
    await page.goto(`${app.url}/profile`);
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Turn on' }).click();
    const dialog = page.getByRole('dialog', { name: 'Turn On Two-Step Verification' });
    await dialog.getByText('For your security, enter your password to turn on two-step verification.').waitFor();
    await page.screenshot({ path: path.join(SCREENSHOTS, `two-step-password-first-${width}.png`) });
    await page.fill('#two-step-password', 'not-my-password');
    await dialog.getByRole('button', { name: 'Continue' }).click();
    await dialog.getByText('That password is not right.').waitFor();
    await page.fill('#two-step-password', user.password);
    await dialog.getByRole('button', { name: 'Continue' }).click();
    await dialog.getByRole('img', { name: 'QR code to add RepX to an authenticator app' }).waitFor();
    await page.context().close();
  }
});
