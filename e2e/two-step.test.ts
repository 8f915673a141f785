import path from 'node:path';
import type { Page } from 'playwright-core';
import { DEMO_ACCOUNTS } from '../server/demo';
import { totpCode } from '../server/auth/totp';
import { freshStep } from '../integration/harness/totp';
import { lastCodeFor } from '../integration/harness/mail';
import { SCREENSHOTS, apiUser, nodeClient, signUp, startApp, toastText, type E2EApp } from './helpers/app';

jest.setTimeout(120_000);

let app: E2EApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app?.close());

async function freshPage(width = 1280): Promise<Page> {
  return (await app.newContext({ width })).newPage();
}

async function signInWithPassword(page: Page, email: string, password: string) {
  await page.goto(`${app.url}/auth`);
  await page.fill('#signin-email', email);
  await page.fill('#signin-password', password);
  await page.click('form[aria-label="Sign In"] button[type=submit]');
}

test('two-step verification: Settings turns it on with the key, sign-in then asks for the code, Settings turns it off', async () => {
  const user = { username: 'e2e_twostep', email: 'twostep@e2e.repx.dev', password: 'twostep-password' };
  const page = await freshPage(390);
  await signUp(page, app, user);
  await page.goto(`${app.url}/profile`);
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByText('Two-step verification: off').waitFor();
  await page.getByRole('button', { name: 'Turn on' }).click();
  const dialog = page.getByRole('dialog', { name: 'Turn On Two-Step Verification' });
  await dialog.getByRole('img', { name: 'QR code to add RepX to an authenticator app' }).waitFor();
  const secret = (await dialog.getByLabel('Key for the authenticator app').innerText()).replace(/\s/g, '');
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'two-step-on-390.png') });
  const step = await freshStep(15_000);

  await page.fill('#two-step-code', totpCode(secret, step + 5));
  await dialog.getByRole('button', { name: 'Turn On' }).click();
  await dialog.getByText('The code is wrong. Enter the one your app shows now.').waitFor();
  await page.fill('#two-step-code', totpCode(secret, step - 1));
  await dialog.getByRole('button', { name: 'Turn On' }).click();
  await expect(toastText(page, 'Two-Step Verification On')).resolves.toMatchObject({
    description: 'Signing in now asks for a code from your authenticator app.',
  });
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByText('Two-step verification: on, with an authenticator app').waitFor();
  await page.screenshot({ path: path.join(SCREENSHOTS, 'settings-two-step-390.png') });
  await page.keyboard.press('Escape');

  // Another browser: the password leads to the code step, and every page waits behind it.
  const laptop = await freshPage(1280);
  await signInWithPassword(laptop, user.email, user.password);
  await laptop.waitForURL('**/auth/verify');
  await laptop.getByRole('heading', { name: 'Two-Step Verification' }).waitFor();
  await laptop.screenshot({ path: path.join(SCREENSHOTS, 'two-step-1280.png') });
  await laptop.goto(`${app.url}/wallet`);
  await laptop.waitForURL('**/auth/verify');
  // A wrong code (a code already used is refused too: the integration test checks it, as its
  // refusal depends on the code still being within the window when it arrives).
  await laptop.fill('#two-step-code', totpCode(secret, step + 5));
  await laptop.getByRole('button', { name: 'Verify' }).click();
  await expect(toastText(laptop, 'Verification Failed')).resolves.toMatchObject({
    description: 'The code is wrong. Enter the one your app shows now.',
  });
  await laptop.fill('#two-step-code', totpCode(secret, step));
  await laptop.getByRole('button', { name: 'Verify' }).click();
  await laptop.waitForURL('**/wallet');
  await expect(toastText(laptop, 'Signed In Successfully!')).resolves.toMatchObject({ description: 'Welcome back!' });
  await laptop.reload();
  await laptop.getByRole('heading', { name: 'Wallet' }).first().waitFor();
  expect(new URL(laptop.url()).pathname).toBe('/wallet');

  // Off again, with a code.
  await laptop.goto(`${app.url}/profile`);
  await laptop.getByRole('button', { name: 'Settings' }).click();
  await laptop.getByRole('button', { name: 'Manage' }).click();
  await laptop.getByRole('list', { name: 'Authenticator apps' }).getByRole('button', { name: 'Turn off' }).click();
  const off = laptop.getByRole('dialog', { name: 'Turn Off Two-Step Verification' });
  await laptop.fill('#two-step-code', totpCode(secret, step + 1));
  await laptop.screenshot({ path: path.join(SCREENSHOTS, 'two-step-off-1280.png') });
  await off.getByRole('button', { name: 'Turn Off' }).click();
  await expect(toastText(laptop, 'Two-Step Verification Off')).resolves.toMatchObject({
    description: 'Signing in now asks for your password only.',
  });
  const again = await freshPage(390);
  await signInWithPassword(again, user.email, user.password);
  await again.waitForURL('**/dashboard');
  for (const p of [page, laptop, again]) await p.context().close();
});

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

test('a backup app: added from Settings, the lost first app removed with its code, whose sessions end', async () => {
  const email = 'backup-app@e2e.repx.dev';
  const password = 'backup-password';
  const api = await apiUser(app, { email, password, username: 'e2e_backup' });
  const { data } = await api.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Authenticator app', issuer: 'RepX' });
  const { id: factorId, totp } = data as { id: string; totp: { secret: string } };
  const step = await freshStep(40_000);
  expect((await api.auth.mfa.challengeAndVerify({ factorId, code: totpCode(totp.secret, step - 1) })).error).toBeNull();
  // The API client is whoever will hold the lost laptop, signed in with its code. A laptop signs in too.
  const laptop = await freshPage(1280);
  await signInWithPassword(laptop, email, password);
  await laptop.waitForURL('**/auth/verify');
  expect(await laptop.locator('#two-step-app').count()).toBe(0);
  await laptop.fill('#two-step-code', totpCode(totp.secret, step));
  await laptop.getByRole('button', { name: 'Verify' }).click();
  await laptop.waitForURL('**/dashboard');

  // Settings > Manage > Add Backup App: a code from the first app, then the new app's key and code.
  await laptop.goto(`${app.url}/profile`);
  await laptop.getByRole('button', { name: 'Settings' }).click();
  await laptop.getByRole('button', { name: 'Manage' }).click();
  const apps = laptop.getByRole('dialog', { name: 'Two-Step Verification' });
  await apps.getByRole('list', { name: 'Authenticator apps' }).getByText('Authenticator app').waitFor();
  await laptop.screenshot({ path: path.join(SCREENSHOTS, 'two-step-apps-1280.png') });
  await apps.getByRole('button', { name: 'Add Backup App' }).click();
  const add = laptop.getByRole('dialog', { name: 'Add a Backup App' });
  await laptop.fill('#two-step-code', totpCode(totp.secret, step + 1));
  await add.getByRole('button', { name: 'Continue' }).click();
  await add.getByRole('img', { name: 'QR code to add RepX to an authenticator app' }).waitFor();
  const backup = (await add.getByLabel('Key for the authenticator app').innerText()).replace(/\s/g, '');
  await laptop.fill('#two-step-code', totpCode(backup, step - 1));
  await add.getByRole('button', { name: 'Add App' }).click();
  await expect(toastText(laptop, 'Backup App Added')).resolves.toMatchObject({
    description: 'Signing in now accepts a code from either app.',
  });
  const listed = apps.getByRole('list', { name: 'Authenticator apps' }).getByRole('listitem');
  await expect(listed.allInnerTexts().then((t) => t.map((x) => x.split('\n')[0]))).resolves.toEqual([
    'Authenticator app',
    'Backup app',
  ]);
  await laptop.keyboard.press('Escape');

  // The laptop is lost: the owner signs in elsewhere with the backup app, chosen at the code step.
  const owner = await freshPage(390);
  await signInWithPassword(owner, email, password);
  await owner.waitForURL('**/auth/verify');
  await owner.selectOption('#two-step-app', { label: 'Backup app' });
  await owner.fill('#two-step-code', totpCode(backup, step));
  await owner.screenshot({ path: path.join(SCREENSHOTS, 'two-step-choose-app-390.png') });
  await owner.setViewportSize({ width: 1280, height: 800 });
  await owner.screenshot({ path: path.join(SCREENSHOTS, 'two-step-choose-app-1280.png') });
  await owner.setViewportSize({ width: 390, height: 800 });
  await owner.getByRole('button', { name: 'Verify' }).click();
  await owner.waitForURL('**/dashboard');
  await owner.goto(`${app.url}/profile`);
  await owner.getByRole('button', { name: 'Settings' }).click();
  await owner.getByText('Two-step verification: on, with two authenticator apps').waitFor();
  await owner.getByRole('button', { name: 'Manage' }).click();
  await owner
    .getByRole('listitem')
    .filter({ hasText: 'Authenticator app' })
    .getByRole('button', { name: 'Remove' })
    .click();
  const remove = owner.getByRole('dialog', { name: 'Remove an Authenticator App' });
  await remove
    .getByText('To remove “Authenticator app”, enter the code from “Backup app”, the app you keep.', { exact: false })
    .waitFor();
  await owner.fill('#two-step-code', totpCode(backup, step + 1));
  await owner.screenshot({ path: path.join(SCREENSHOTS, 'two-step-remove-app-390.png') });
  await remove.getByRole('button', { name: 'Remove' }).click();
  await expect(toastText(owner, 'Authenticator App Removed')).resolves.toMatchObject({
    description: 'Two-step verification stays on with “Backup app”.',
  });
  await owner
    .getByRole('dialog', { name: 'Two-Step Verification' })
    .getByText('Signing in asks for a code from this app.', { exact: false })
    .waitFor();
  // Whoever signed in with the lost phone's code is signed out; the owner is not, nor the laptop,
  // whose last code came from the backup app when it was added.
  expect((await api.from('cash_accounts').select('available')).status).toBe(401);
  for (const p of [owner, laptop]) {
    await p.goto(`${app.url}/wallet`);
    await p.getByRole('heading', { name: 'Wallet' }).first().waitFor();
  }
  for (const p of [laptop, owner]) await p.context().close();
});

test('a forgotten password with two-step verification on asks for the code from the app too', async () => {
  const email = 'forgot-twostep@e2e.repx.dev';
  // The phone is lost too: the backup app gives the code.
  const { backup, step } = await withTwoApps({ email, password: 'first-password', username: 'e2e_forgot2' }, 15_000);

  const page = await freshPage(390);
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

  const page = await freshPage(390);
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

  const page = await freshPage(390);
  await signInWithPassword(page, email, password);
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
    const page = await freshPage(width);
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
