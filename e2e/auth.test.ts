import path from 'node:path';
import type { Page, Request } from 'playwright-core';
import { DEMO_ACCOUNTS } from '../server/demo';
import { lastCodeFor } from '../integration/harness/mail';
import { SCREENSHOTS, mailedCode, signIn, signUp, startApp, toastText, type E2EApp } from './helpers/app';

jest.setTimeout(120_000);

let app: E2EApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app?.close());

async function freshPage(width = 1280): Promise<Page> {
  const context = await app.newContext({ width });
  return context.newPage();
}

test('a signed-out visitor on a protected route goes to /auth', async () => {
  const page = await freshPage();
  for (const route of ['/dashboard', '/market', '/profile', '/wallet', '/trading/anything']) {
    await page.goto(`${app.url}${route}`);
    await page.waitForURL('**/auth');
  }
  await page.screenshot({ path: path.join(SCREENSHOTS, 'auth-1280.png') });
  await page.context().close();
});

test('sign-up validates, mails a code that signs the new account in, and leads to / and on to the dashboard', async () => {
  const page = await freshPage(390);
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
  const early = await freshPage();
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
  const again = await freshPage();
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
  const bookmark = await freshPage();
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
  const page = await freshPage();
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
      '**/rest/v1/market_summary*',
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
  const laptop = await freshPage(1280);
  await signUp(laptop, app, user);
  const phone = await freshPage(390);
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

test('a forgotten password: a code by email, a new password, signed in; the old password and the code then fail; Settings asks for the current one', async () => {
  const user = { username: 'e2e_forgetful', email: 'forgetful@e2e.repx.dev', password: 'first-password' };
  const page = await freshPage(390);
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

  const other = await freshPage();
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
  const setup = await freshPage(390);
  await signUp(setup, app, user);
  await setup.context().close();

  const page = await freshPage(1280);
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

test('a new email: Settings sends a code to it, and only the code moves the account; a phone toast clears the sheet', async () => {
  const user = { username: 'e2e_mover', email: 'mover@e2e.repx.dev', password: 'mover-password' };
  const moved = 'moved@e2e.repx.dev';
  const page = await freshPage(390);
  await signUp(page, app, user);
  await page.goto(`${app.url}/profile`);
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByText(`Email: ${user.email}`).waitFor();
  await page.getByRole('button', { name: 'Change email' }).click();
  await page.fill('#email-new', moved);
  await page.fill('#email-password', 'not-my-password');
  await page.getByRole('button', { name: 'Send Code' }).click();
  await page.getByText('Your current password is not right.').waitFor();
  await page.fill('#email-password', user.password);
  await page.getByRole('button', { name: 'Send Code' }).click();
  await expect(toastText(page, 'Check Your Email')).resolves.toMatchObject({
    description: `A code is on its way to ${moved}.`,
  });
  await page.getByText(`Enter the code we sent to ${moved}.`).waitFor();
  // On a phone the dialog is a bottom sheet: the toast shows above it, not over its buttons.
  const toastBox = (await page.getByTestId('toast').boundingBox())!;
  const confirmBox = (await page.getByRole('button', { name: 'Confirm Email' }).boundingBox())!;
  expect(toastBox.y + toastBox.height).toBeLessThan(confirmBox.y);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'email-change-390.png') });

  // Not moved yet: the new address does not sign in.
  const early = await fetch(`${app.backend.url}/auth/v1/token?grant_type=password`, {
    method: 'POST',
    headers: { apikey: app.backend.anonKey, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: moved, password: user.password }),
  });
  expect(early.status).toBe(400);
  const code = (await lastCodeFor(app.backend.db, moved))!;
  await page.fill(
    '#email-code',
    code.replace(/\d$/, (d) => String((Number(d) + 1) % 10)),
  );
  await page.getByRole('button', { name: 'Confirm Email' }).click();
  await page.getByText('The code is wrong or has expired. Check it, or send a new one.').waitFor();
  await page.fill('#email-code', code);
  await page.getByRole('button', { name: 'Confirm Email' }).click();
  await expect(toastText(page, 'Email Changed')).resolves.toMatchObject({
    description: `You now sign in with ${moved}.`,
  });
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByText(`Email: ${moved}`).waitFor();
  await page.getByRole('button', { name: 'Cancel' }).click();

  await page.getByRole('button', { name: 'Open menu' }).click();
  await page.getByRole('button', { name: 'Sign Out' }).click();
  await page.waitForURL('**/auth');
  await page.fill('#signin-email', user.email);
  await page.fill('#signin-password', user.password);
  await page.click('form[aria-label="Sign In"] button[type=submit]');
  await expect(toastText(page, 'Sign in Failed')).resolves.toMatchObject({ description: 'Invalid login credentials' });
  await signIn(page, app, { email: moved, password: user.password });
  await page.context().close();
});

test('Settings shows where the user is signed in, and signs one browser out by name', async () => {
  const user = { username: 'e2e_twoplaces', email: 'twoplaces@e2e.repx.dev', password: 'twoplaces-password' };
  const page = await freshPage(390);
  await signUp(page, app, user);
  const laptop = await (
    await app.browser.newContext({
      viewport: { width: 1280, height: 900 },
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0',
    })
  ).newPage();
  await signIn(laptop, app, user);

  await page.goto(`${app.url}/profile`);
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('button', { name: 'See where you are signed in' }).click();
  const dialog = page.getByRole('dialog', { name: "Where You're Signed In" });
  const rows = dialog.getByRole('list', { name: 'Sessions' }).getByRole('listitem');
  await rows.nth(1).waitFor();
  await expect(rows.count()).resolves.toBe(2);
  const here = rows.filter({ hasText: 'This browser' });
  await expect(here.getByRole('button', { name: 'Sign out' }).count()).resolves.toBe(0);
  await expect(here.innerText()).resolves.toMatch(/^Chrome \d+ on Linux/);
  const other = rows.filter({ hasText: 'Firefox 140 on Linux' });
  await expect(other.innerText()).resolves.toMatch(
    /127\.0\.0\.1 · signed in [A-Z][a-z]{2} \d+, \d{4}, \d\d:\d\d [AP]M/,
  );
  await page.screenshot({ path: path.join(SCREENSHOTS, 'sessions-390.png') });
  await other.getByRole('button', { name: 'Sign out' }).click();
  await expect(toastText(page, 'Session Signed Out')).resolves.toMatchObject({
    description: 'Firefox 140 on Linux is no longer signed in.',
  });
  await dialog.getByText('You are signed in nowhere else.').waitFor();
  await expect(rows.count()).resolves.toBe(1);
  expect(await dialog.getByRole('button', { name: 'Sign out all others' }).isDisabled()).toBe(true);

  // The laptop's next request meets the ended session and signs it out.
  await laptop.reload();
  await laptop.waitForURL('**/auth');
  await page.context().close();
  await laptop.context().close();
});

test('a browser back after a month away is signed out, and told why', async () => {
  const user = { username: 'e2e_away', email: 'away@e2e.repx.dev', password: 'away-password' };
  const page = await freshPage(390);
  await signUp(page, app, user);
  // The browser is closed (an open tab would refresh its token as it expires), its storage kept.
  const state = await page.context().storageState();
  await page.context().close();
  // A month and a day without a sign-in or a refresh; the stored token has expired meanwhile.
  await app.backend.db.query(
    `update auth.sessions set created_at = now() - interval '31 days', refreshed_at = null
      where user_id = (select id from auth.users where email = $1)`,
    [user.email],
  );
  for (const item of state.origins.flatMap((o) => o.localStorage).filter((i) => i.name.endsWith('-auth-token'))) {
    const stored = JSON.parse(item.value) as { expires_at: number };
    item.value = JSON.stringify({ ...stored, expires_at: Math.floor(Date.now() / 1000) - 10 });
  }
  const reopened = await (await app.newContext({ width: 390, storageState: state })).newPage();
  await reopened.goto(`${app.url}/dashboard`);
  await reopened.waitForURL('**/auth');
  await expect(toastText(reopened, 'Session Ended')).resolves.toEqual({
    title: 'Session Ended',
    description: 'You were signed out after a long time without using RepX. Please sign in again.',
    variant: 'destructive',
  });
  await reopened.context().close();
});

test('toasts: one at a time, F8 focuses them, a swipe right dismisses, and they leave after 5 seconds', async () => {
  const page = await freshPage();
  await page.goto(`${app.url}/auth`);
  // Each attempt waits for its answer: a late answer's toast would replace the one being swiped.
  const fail = async () => {
    await page.fill('#signin-email', 'nobody@repx.dev');
    await page.fill('#signin-password', 'whatever');
    const answered = page.waitForResponse((r) => r.url().includes('/auth/v1/token'));
    await page.click('form[aria-label="Sign In"] button[type=submit]');
    await answered;
  };
  await fail();
  await fail();
  await page.getByTestId('toast').first().waitFor();
  expect(await page.getByTestId('toast').count()).toBe(1);

  await page.keyboard.press('F8');
  const focused = () => document.activeElement?.closest('[role=region]')?.getAttribute('aria-label') ?? null;
  await expect(page.evaluate(focused)).resolves.toMatch(/Notification/);

  // Swipe once the toast has slid in (its enter animation moves it from beyond the right edge).
  await page.waitForFunction(() => {
    const r = document.querySelector('[data-testid=toast]')?.getBoundingClientRect();
    return !!r && r.right <= window.innerWidth && r.left > 0;
  });
  await page.waitForTimeout(250);
  const box = (await page.getByTestId('toast').boundingBox())!;
  await page.mouse.move(box.x + 20, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + 60, box.y + box.height / 2, { steps: 4 });
  await page.mouse.move(box.x + 120, box.y + box.height / 2, { steps: 4 });
  await page.mouse.up();
  await page.getByTestId('toast').waitFor({ state: 'detached', timeout: 2000 });

  await page.mouse.move(0, 0);
  await fail();
  await page.getByTestId('toast').waitFor();
  const shown = Date.now();
  await page.getByTestId('toast').waitFor({ state: 'detached', timeout: 9000 });
  expect(Date.now() - shown).toBeGreaterThanOrEqual(4000);
  await page.context().close();
});

test('admin sign-in: an admin reaches the admin dashboard and signs out to the admin sign-in', async () => {
  const page = await freshPage();
  await page.goto(`${app.url}/nra/login`);
  await page.waitForURL('**/auth/nra');
  await page.getByText('Admin Panel').waitFor();
  await page.getByText('Secure Sign In').waitFor();
  await page.screenshot({ path: path.join(SCREENSHOTS, 'admin-signin-1280.png') });
  await page.fill('#admin-email', DEMO_ACCOUNTS.admin.email);
  await page.fill('#admin-password', DEMO_ACCOUNTS.admin.password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await page.waitForURL('**/nra/login/profile');
  await page.locator('[data-remote="admin"]').first().waitFor();
  await expect(toastText(page, 'Admin Sign In Successful!')).resolves.toEqual({
    title: 'Admin Sign In Successful!',
    description: 'Welcome to the Admin Dashboard.',
    variant: 'default',
  });
  await page.getByRole('button', { name: 'Sign Out' }).click();
  await page.waitForURL('**/auth/nra');
  await expect(toastText(page, 'Admin Signed Out')).resolves.toEqual({
    title: 'Admin Signed Out',
    description: 'You have been successfully signed out.',
    variant: 'default',
  });
  await page.context().close();
});

test('admin sign-in as a non-admin: Access Denied, signed out, and the admin code is never fetched', async () => {
  const page = await freshPage();
  const adminPort = String(app.ports.remotes.admin);
  const adminRequests: string[] = [];
  page.on('request', (r) => {
    // Its routes.json (data: the paths it serves) is read at start-up with every remote's; no code.
    if (new URL(r.url()).port === adminPort && !r.url().endsWith('/routes.json')) adminRequests.push(r.url());
  });
  await page.goto(`${app.url}/auth/nra`);
  await page.fill('#admin-email', DEMO_ACCOUNTS.user.email);
  await page.fill('#admin-password', DEMO_ACCOUNTS.user.password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(toastText(page, 'Access Denied')).resolves.toEqual({
    title: 'Access Denied',
    description: 'You do not have administrative privileges.',
    variant: 'destructive',
  });
  expect(page.url()).toMatch(/\/auth\/nra$/);
  await page.goto(`${app.url}/dashboard`);
  await page.waitForURL('**/auth'); // signed out

  // A non-admin session on the admin route is signed out and sent to /dashboard (then /auth).
  await signIn(page, app);
  await page.goto(`${app.url}/nra/login/profile`);
  await page.waitForURL('**/auth');
  expect(adminRequests).toEqual([]);

  // Signed out, the admin route sends to the admin sign-in.
  await page.goto(`${app.url}/nra/login/profile`);
  await page.waitForURL('**/auth/nra');

  const bad = await freshPage();
  await bad.goto(`${app.url}/auth/nra`);
  await bad.fill('#admin-email', DEMO_ACCOUNTS.admin.email);
  await bad.fill('#admin-password', 'wrong-password');
  await bad.getByRole('button', { name: 'Sign In' }).click();
  await expect(toastText(bad, 'Sign in Failed')).resolves.toEqual({
    title: 'Sign in Failed',
    description: 'Invalid login credentials',
    variant: 'destructive',
  });
  await page.context().close();
  await bad.context().close();
});
