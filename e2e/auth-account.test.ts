import path from 'node:path';
import { DEMO_ACCOUNTS } from '../server/demo';
import { lastCodeFor } from '../integration/harness/mail';
import { SCREENSHOTS, signIn, signUp, startApp, toastText, type E2EApp } from './helpers/app';

jest.setTimeout(120_000);

let app: E2EApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app?.close());

test('a new email: Settings sends a code to it, and only the code moves the account; a phone toast clears the sheet', async () => {
  const user = { username: 'e2e_mover', email: 'mover@e2e.repx.dev', password: 'mover-password' };
  const moved = 'moved@e2e.repx.dev';
  const page = await app.newPage(390);
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
  const page = await app.newPage(390);
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
  const page = await app.newPage(390);
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
  const page = await app.newPage();
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
  const page = await app.newPage();
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
  const page = await app.newPage();
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

  const bad = await app.newPage();
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
