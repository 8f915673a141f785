import path from 'node:path';
import type { Request } from 'playwright-core';
import { DEMO_ACCOUNTS } from '../server/demo';
import { SCREENSHOTS, mailedCode, signUp, startApp, toastText, type E2EApp } from './helpers/app';

jest.setTimeout(120_000);

let app: E2EApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app?.close());

test('a signed-out visitor on a protected route goes to /auth', async () => {
  const page = await app.newPage();
  for (const route of ['/dashboard', '/market', '/profile', '/wallet', '/trading/anything']) {
    await page.goto(`${app.url}${route}`);
    await page.waitForURL('**/auth');
  }
  await page.screenshot({ path: path.join(SCREENSHOTS, 'auth-1280.png') });
  await page.context().close();
});

test('sign-up validates, mails a code that signs the new account in, and leads to / and on to the dashboard', async () => {
  const page = await app.newPage(390);
  await page.goto(`${app.url}/auth`);
  await page.getByRole('tab', { name: 'Sign Up' }).click();
  await page.getByRole('button', { name: 'Create Account' }).click();
  for (const msg of ['Username is required.', 'Email is required.', 'Password is required.'])
    await page.getByText(msg).waitFor();
  await page.fill('#signup-username', 'e2e_newcomer');
  await page.fill('#signup-email', 'not-an-email');
  await page.fill('#signup-password', '12345');
  await page.getByRole('button', { name: 'Create Account' }).click();
  await page.getByText('Enter a valid email address.').waitFor();
  await page.getByText('Password must be at least 6 characters.').waitFor();
  await page.screenshot({ path: path.join(SCREENSHOTS, 'signup-errors-390.png') });

  const email = 'newcomer@e2e.repx.dev';
  await page.fill('#signup-email', email);
  await page.fill('#signup-password', 'newcomer-pass');
  await page.getByRole('button', { name: 'Create Account' }).click();
  await expect(toastText(page, 'Sign Up Successful!')).resolves.toEqual({
    title: 'Sign Up Successful!',
    description: 'Please check your email to verify your account.',
    variant: 'default',
  });
  await page.waitForURL('**/auth/confirm');
  await page.getByText(`Enter the code we emailed to ${email} to finish creating your account.`).waitFor();
  await page.screenshot({ path: path.join(SCREENSHOTS, 'signup-confirm-390.png') });
  const first = await mailedCode(app, email);

  // Elsewhere, the password alone does not sign in yet; the form says where the code goes.
  const early = await app.newPage();
  await early.goto(`${app.url}/auth`);
  await early.fill('#signin-email', email);
  await early.fill('#signin-password', 'newcomer-pass');
  await early.click('form[aria-label="Sign In"] button[type=submit]');
  await expect(toastText(early, 'Sign in Failed')).resolves.toEqual({
    title: 'Sign in Failed',
    description: 'Email not confirmed',
    variant: 'destructive',
  });
  await early.getByRole('link', { name: 'Enter the code we emailed you' }).click();
  await early.getByText(`Enter the code we emailed to ${email}`).waitFor();
  await early.screenshot({ path: path.join(SCREENSHOTS, 'signin-unconfirmed-1280.png') });
  await early.context().close();

  // A wrong code is refused in words; a new code replaces the first, which then fails too.
  await page.fill('#confirm-code', first === '12345678' ? '87654321' : '12345678');
  await page.getByRole('button', { name: 'Confirm Email' }).click();
  await expect(toastText(page, 'Confirmation Failed')).resolves.toEqual({
    title: 'Confirmation Failed',
    description: 'The code is wrong or has expired. Check it, or send a new one.',
    variant: 'destructive',
  });
  await page.getByRole('button', { name: 'Send a new code' }).click();
  await toastText(page, 'Check Your Email');
  const second = await mailedCode(app, email);
  const [{ count }] = await app.backend.db.query<{ count: number }>(
    `select count(*)::int as count from local_server.outbox where recipient = $1 and subject = 'Confirm your RepX account'`,
    [email],
  );
  expect(count).toBe(2);
  await page.fill('#confirm-code', second);
  await page.getByRole('button', { name: 'Confirm Email' }).click();
  await expect(toastText(page, 'Email Confirmed')).resolves.toEqual({
    title: 'Email Confirmed',
    description: 'Welcome to RepX! Your account is ready.',
    variant: 'default',
  });
  await page.waitForURL('**/dashboard');
  const [profile] = await app.backend.db.query<{ username: string }>(
    `select p.username from profiles p join auth.users u on u.id = p.id where u.email = $1`,
    [email],
  );
  expect(profile?.username).toBe('e2e_newcomer');

  // The same email again looks the same to whoever tries (no telling which addresses have accounts);
  // nothing changes, and the owner is told.
  const again = await app.newPage();
  await again.goto(`${app.url}/auth`);
  await again.getByRole('tab', { name: 'Sign Up' }).click();
  await again.fill('#signup-username', 'e2e_other');
  await again.fill('#signup-email', email);
  await again.fill('#signup-password', 'other-pass');
  await again.getByRole('button', { name: 'Create Account' }).click();
  await toastText(again, 'Sign Up Successful!');
  await again.waitForURL('**/auth/confirm');
  const [told] = await app.backend.db.query<{ subject: string }>(
    'select subject from local_server.outbox where recipient = $1 order by id desc limit 1',
    [email],
  );
  expect(told?.subject).toBe('Someone tried to sign up with your email');
  const [{ taken }] = await app.backend.db.query<{ taken: number }>(
    `select count(*)::int as taken from profiles where username = 'e2e_other'`,
  );
  expect(taken).toBe(0);

  // Reached without an address (a bookmark), the page asks for it; a confirmed account gets the
  // same answer to Send a new code as any address, and no mail.
  const bookmark = await app.newPage();
  await bookmark.goto(`${app.url}/auth/confirm`);
  await bookmark.getByRole('button', { name: 'Send a new code' }).click();
  await expect(toastText(bookmark, 'Could Not Send Code')).resolves.toEqual({
    title: 'Could Not Send Code',
    description: 'Email is required.',
    variant: 'destructive',
  });
  await bookmark.fill('#confirm-email', email);
  await bookmark.getByRole('button', { name: 'Send a new code' }).click();
  await toastText(bookmark, 'Check Your Email');
  const [{ codes }] = await app.backend.db.query<{ codes: number }>(
    `select count(*)::int as codes from local_server.outbox where recipient = $1 and subject = 'Confirm your RepX account'`,
    [email],
  );
  expect(codes).toBe(2);
  for (const p of [page, again, bookmark]) await p.context().close();
});

test('sign-in: a wrong password stays on the page with the error; the right one signs in and survives a reload', async () => {
  const page = await app.newPage();
  await page.goto(`${app.url}/auth`);
  await page.fill('#signin-email', DEMO_ACCOUNTS.user.email);
  await page.fill('#signin-password', 'wrong-password');
  await page.click('form[aria-label="Sign In"] button[type=submit]');
  await expect(toastText(page, 'Sign in Failed')).resolves.toEqual({
    title: 'Sign in Failed',
    description: 'Invalid login credentials',
    variant: 'destructive',
  });
  expect(page.url()).toMatch(/\/auth$/);

  await page.fill('#signin-password', DEMO_ACCOUNTS.user.password);
  await page.click('form[aria-label="Sign In"] button[type=submit]');
  await page.waitForURL('**/dashboard');
  await toastText(page, 'Signed In Successfully!');
  await page.reload();
  await page.locator('[data-remote="portfolio"]').first().waitFor();
  // Signed in, / and /auth lead to the dashboard.
  for (const route of ['/', '/auth', '/auth/nra']) {
    await page.goto(`${app.url}${route}`);
    await page.waitForURL('**/dashboard');
  }

  // A read still in flight when the user signs out meets the ended session: it must not turn the
  // sign-out into a 'Session Ended' error. Hold the market's first read until after the sign-out
  // (its own: a read of the dashboard's still in flight would be aborted by leaving the page).
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const caught = new Promise<Request>((resolve) =>
    page.route(
      '**/rest/v1/rpc/market_screen*',
      async (route) => {
        resolve(route.request());
        await held;
        await route.continue();
      },
      { times: 1 },
    ),
  );
  await page.goto(`${app.url}/market`);
  const late = await caught;
  await page.getByRole('button', { name: 'Sign Out' }).click();
  await page.waitForURL('**/auth');
  const signedOut = {
    title: 'Signed Out',
    description: 'You have been successfully signed out.',
    variant: 'default',
  };
  await expect(toastText(page)).resolves.toEqual(signedOut);
  release();
  const refused = await (await late.response())?.json();
  expect(refused).toMatchObject({ details: 'session_not_found' });
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 300)));
  await expect(toastText(page)).resolves.toEqual(signedOut);
  await page.goto(`${app.url}/dashboard`);
  await page.waitForURL('**/auth');
  await page.context().close();
});

test('Sign Out signs this browser out only: the same user on a phone stays signed in', async () => {
  const user = { email: 'two-browsers@e2e.repx.dev', password: 'two-browsers-pass', username: 'e2e_two_browsers' };
  const laptop = await app.newPage(1280);
  await signUp(laptop, app, user);
  const phone = await app.newPage(390);
  await phone.goto(`${app.url}/auth`);
  await phone.fill('#signin-email', user.email);
  await phone.fill('#signin-password', user.password);
  await phone.click('form[aria-label="Sign In"] button[type=submit]');
  await phone.waitForURL('**/dashboard');
  await laptop.goto(`${app.url}/dashboard`);
  await laptop.getByRole('button', { name: 'Sign Out' }).click();
  await laptop.waitForURL('**/auth');
  await phone.reload();
  await phone.locator('[data-remote="portfolio"]').first().waitFor();
  await phone.goto(`${app.url}/wallet`);
  await phone.locator('[data-remote="wallet"]').first().waitFor();
  expect(phone.url()).toMatch(/\/wallet$/);
  await laptop.context().close();
  await phone.context().close();
});
