import path from 'node:path';
import { lastCodeFor } from '../integration/harness/mail';
import { SCREENSHOTS, mailedCode, signIn, signUp, startApp, toastText, type E2EApp } from './helpers/app';

jest.setTimeout(120_000);

let app: E2EApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app?.close());

test('a forgotten password: a code by email, a new password, signed in; the old password and the code then fail; Settings asks for the current one', async () => {
  const user = { username: 'e2e_forgetful', email: 'forgetful@e2e.repx.dev', password: 'first-password' };
  const page = await app.newPage(390);
  await signUp(page, app, user);
  await page.getByRole('button', { name: 'Open menu' }).click();
  await page.getByRole('button', { name: 'Sign Out' }).click();
  await page.waitForURL('**/auth');

  // The link carries the email typed so far.
  await page.fill('#signin-email', user.email);
  await page.getByRole('link', { name: 'Forgot password?' }).click();
  await page.waitForURL('**/auth/reset');
  expect(await page.inputValue('#reset-email')).toBe(user.email);
  await page.getByRole('button', { name: 'Send Code' }).click();
  await expect(toastText(page, 'Check Your Email')).resolves.toEqual({
    title: 'Check Your Email',
    description: `If ${user.email} has an account, a code is on its way.`,
    variant: 'default',
  });
  // The code's field takes the focus from the button the step replaced.
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('reset-code');
  // The local server catches its mail in the outbox, where the user's inbox would be.
  const code = (await lastCodeFor(app.backend.db, user.email))!;

  await page.getByRole('button', { name: 'Reset Password' }).click();
  await page.getByText('Enter the code from the email.').waitFor();
  await page.getByText('Password is required.').waitFor();
  await page.fill(
    '#reset-code',
    code.replace(/\d$/, (d) => String((Number(d) + 1) % 10)),
  );
  await page.fill('#reset-password', 'second-password');
  await page.getByRole('button', { name: 'Reset Password' }).click();
  await expect(toastText(page, 'Reset Failed')).resolves.toEqual({
    title: 'Reset Failed',
    description: 'The code is wrong or has expired. Check it, or send a new one.',
    variant: 'destructive',
  });
  await page.screenshot({ path: path.join(SCREENSHOTS, 'reset-password-390.png') });
  await page.fill('#reset-code', code);
  await page.getByRole('button', { name: 'Reset Password' }).click();
  await page.waitForURL('**/dashboard');
  await expect(toastText(page, 'Password Updated')).resolves.toEqual({
    title: 'Password Updated',
    description: 'You are signed in with your new password.',
    variant: 'default',
  });

  const other = await app.newPage();
  await other.goto(`${app.url}/auth`);
  await other.fill('#signin-email', user.email);
  await other.fill('#signin-password', user.password);
  await other.click('form[aria-label="Sign In"] button[type=submit]');
  await expect(toastText(other, 'Sign in Failed')).resolves.toMatchObject({ description: 'Invalid login credentials' });
  await signIn(other, app, { email: user.email, password: 'second-password' });
  // The code was spent by its one use.
  const spent = await fetch(`${app.backend.url}/auth/v1/verify`, {
    method: 'POST',
    headers: { apikey: app.backend.anonKey, 'Content-Type': 'application/json' },
    body: JSON.stringify({ type: 'recovery', email: user.email, token: code }),
  });
  expect(spent.status).toBe(403);

  // Signed in as usual, a change of password in Settings asks for the current one.
  await other.goto(`${app.url}/profile`);
  await other.getByRole('button', { name: 'Settings' }).click();
  await other.fill('#settings-current', 'first-password');
  await other.fill('#settings-password', 'third-password');
  await other.fill('#settings-confirm', 'third-password');
  await other.getByRole('button', { name: 'Change Password' }).click();
  await other.getByText('Your current password is not right.').waitFor();
  await other.fill('#settings-current', 'second-password');
  await other.getByRole('button', { name: 'Change Password' }).click();
  await expect(toastText(other, 'Password Changed')).resolves.toMatchObject({
    description: 'Your other sessions have been signed out.',
  });
  await page.context().close();
  await other.context().close();
});

test('sign-in with a mailed code: the way in without the password, when strangers have locked the account', async () => {
  const user = { username: 'e2e_coded', email: 'coded@e2e.repx.dev', password: 'coded-password' };
  const setup = await app.newPage(390);
  await signUp(setup, app, user);
  await setup.context().close();

  const page = await app.newPage(1280);
  await page.goto(`${app.url}/auth/code`);
  await page.getByRole('heading', { name: 'Sign In With a Code' }).waitFor();
  await page.fill('#code-email', user.email);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'signin-code-1280.png') });
  await page.getByRole('button', { name: 'Send Code' }).click();
  await expect(toastText(page, 'Check Your Email')).resolves.toMatchObject({
    description: `If ${user.email} has an account, a code is on its way.`,
  });
  const mail = (
    await app.backend.db.query<{ subject: string }>(
      'select subject from local_server.outbox where recipient = $1 order by id desc limit 1',
      [user.email],
    )
  )[0];
  expect(mail!.subject).toBe('Your RepX sign-in code');
  await page.setViewportSize({ width: 390, height: 900 });
  await page.fill('#signin-code', '000000');
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await expect(toastText(page, 'Sign in Failed')).resolves.toMatchObject({
    description: 'The code is wrong or has expired. Check it, or send a new one.',
  });
  await page.screenshot({ path: path.join(SCREENSHOTS, 'signin-code-390.png') });
  await page.fill('#signin-code', await mailedCode(app, user.email));
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await toastText(page, 'Signed In Successfully!');
  await page.waitForURL((url) => url.pathname === '/' || url.pathname === '/dashboard');
  await page.context().close();
});
