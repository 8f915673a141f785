import path from 'node:path';
import type { Page } from 'playwright-core';
import { DEMO_ACCOUNTS } from '../server/demo';
import { totpCode } from '../server/auth/totp';
import { freshStep } from '../integration/harness/totp';
import { adminPage, fundedUser } from './helpers/admin';
import {
  SCREENSHOTS,
  nodeClient,
  placeholderWhole,
  startApp,
  tabsInOneRow,
  tapTab,
  toastText,
  type E2EApp,
} from './helpers/app';

jest.setTimeout(240_000);

let app: E2EApp;
let admin: Page;
beforeAll(async () => {
  app = await startApp();
  admin = await adminPage(app);
});
afterAll(() => app?.close());

const db = <T>(sql: string, params: unknown[] = []) => app.backend.db.query<T>(sql, params);

test('two accounts wash-trade a token; the admin finds the alert and confirms it, suspending both', async () => {
  const emails = ['washer_one@e2e.repx.dev', 'washer_two@e2e.repx.dev'];
  for (const [i, email] of emails.entries()) await fundedUser(app, email.split('@')[0]!, 2000 + i);
  // A token of their own with an empty book, so they only meet each other.
  const [token] = await db<{
    id: string;
  }>(`insert into tokens (name, username, category, reputation_score, total_supply, issue_price)
    values ('Wash Co', 'washco', 'Business Leader', 50, 1000, 10) returning id`);
  await db(`select private.issue_tokens($1, id, 100) from auth.users where email = $2`, [token!.id, emails[0]]);
  // Orders placed as each account would place them (place_order reads the caller from the JWT claims).
  const as = (email: string, sql: string, params: unknown[]) =>
    app.backend.db.transaction(async (tx) => {
      await tx.query(
        `select set_config('request.jwt.claim.sub', (select id::text from auth.users where email = $1), true)`,
        [email],
      );
      return tx.query(sql, params);
    });
  const placeOrderAs = (email: string, side: string, type: string, amount: number, price: number | null) =>
    as(email, 'select public.place_order($1, $2, $3, $4, $5)', [token!.id, side, type, amount, price]);
  for (let i = 0; i < 2; i++) {
    for (const [from, to] of [
      [emails[0]!, emails[1]!],
      [emails[1]!, emails[0]!],
    ]) {
      await placeOrderAs(from, 'sell', 'limit', 5, 10);
      await placeOrderAs(to, 'buy', 'market', 5, null);
    }
  }

  await admin.getByRole('tab', { name: 'Fraud Detection' }).click();
  await admin.getByRole('button', { name: 'Scan now' }).click();
  await toastText(admin, 'Scan Complete');
  const alert = admin
    .locator('[data-testid="alert-row"][data-rule="wash_trading"]')
    .filter({ hasText: '@washer_one' })
    .filter({ hasText: '@washer_two' });
  await alert.waitFor();
  // Trading in the token is halted from the alert while it is reviewed.
  await alert.getByRole('button', { name: 'Halt Trading' }).click();
  const halt = admin.getByRole('dialog', { name: 'Halt Trading in Wash Co' });
  await halt.locator('#halt-reason').fill('Under review for wash trading.');
  await halt.getByRole('button', { name: 'Halt Trading' }).click();
  await toastText(admin, 'Trading Halted');
  await alert.getByText('Halted', { exact: true }).waitFor();
  await alert.getByRole('button', { name: 'Resume Trading' }).waitFor();
  expect((await placeOrderAs(emails[1]!, 'buy', 'limit', 1, 10).catch((e: Error) => e)) as Error).toMatchObject({
    message: 'Trading in Wash Co is halted: Under review for wash trading. Cancelling open orders still works.',
  });
  await admin.screenshot({ path: path.join(SCREENSHOTS, 'admin-fraud-1280.png'), fullPage: true });
  await alert.getByRole('button', { name: 'Confirm' }).click();
  const dialog = admin.getByRole('dialog', { name: 'Confirm wash trading alert' });
  await dialog.locator('#alert-note').fill('One person behind both accounts.');
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  await expect(toastText(admin, 'Alert Confirmed')).resolves.toMatchObject({
    title: 'Alert Confirmed',
    description: '2 accounts suspended.',
  });
  const statuses = await db<{ status: string }>(
    `select p.status from profiles p join auth.users u on u.id = p.id where u.email = any($1)`,
    [emails],
  );
  expect(statuses.map((s) => s.status)).toEqual(['suspended', 'suspended']);
  await admin.getByRole('tab', { name: 'Audit Log' }).click();
  await admin
    .getByTestId('audit-row')
    .filter({ hasText: 'alert.confirmed' })
    .filter({ hasText: 'One person behind both accounts.' })
    .waitFor();
});

test('the admin area has the logo and a way back, and fits a phone: its tabs keep one row, none scrolls the page sideways', async () => {
  const phone = await (await app.newContext({ width: 390 })).newPage();
  await phone.goto(`${app.url}/auth/nra`);
  await phone.fill('#admin-email', DEMO_ACCOUNTS.admin.email);
  await phone.fill('#admin-password', DEMO_ACCOUNTS.admin.password);
  await phone.getByRole('button', { name: 'Sign In' }).click();
  await phone.getByTestId('admin-user-row').first().waitFor();
  await phone.getByRole('link', { name: 'RepX', exact: true }).waitFor();
  await phone.getByRole('link', { name: 'Back to the market' }).waitFor();
  await placeholderWhole(phone, 'Search accounts', 'admin users');
  await tabsInOneRow(phone, 'admin');
  // Each next tab shows in part at the row's faded edge; tapped, it comes whole into view.
  for (const tab of [
    'User Management',
    'Fraud Detection',
    'Post Reports',
    'Revenue Reports',
    'System Settings',
    'Audit Log',
  ]) {
    await tapTab(phone, tab);
    await phone.waitForTimeout(300);
    const [scroll, width] = await phone.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
    expect({ tab, sideways: scroll > width }).toEqual({ tab, sideways: false });
    await phone.screenshot({
      path: path.join(SCREENSHOTS, `admin-${tab.toLowerCase().replace(/ /g, '-')}-390.png`),
      fullPage: true,
    });
  }
  // And back: the tab under the start's fade comes whole into view too.
  await tapTab(phone, 'Revenue Reports');
});

test('the exchange may ask admins for two-step verification: one without an app is shown where to turn it on, at 1280 and 390 px', async () => {
  // The demo admin has no app: asking it of admins would lock them out, so it is refused.
  await admin.getByRole('tab', { name: 'System Settings' }).click();
  const form = admin.getByRole('form', { name: 'System Settings' });
  await form.getByLabel('Admins must use two-step verification').check();
  await admin.locator('#setting-reason').fill('Admins use an app.');
  await admin.getByRole('button', { name: 'Save Settings' }).click();
  await form
    .getByText(
      'Turn on two-step verification for your own account first (Profile › Settings): asking it of admins would lock you out of the admin area.',
    )
    .waitFor();
  await admin.screenshot({ path: path.join(SCREENSHOTS, 'admin-two-step-refused-1280.png'), fullPage: true });
  const asked = async () =>
    (await db<{ on: boolean }>('select admins_need_two_step as on from exchange_settings'))[0]!.on;
  expect(await asked()).toBe(false);

  // Asked by another admin who has an app (here, in the database): this one signs in and is sent to
  // their profile, where Settings turns an app on; the admin area sends them there too.
  await db('update exchange_settings set admins_need_two_step = true');
  try {
    for (const width of [1280, 390]) {
      const page = await (await app.newContext({ width })).newPage();
      await page.goto(`${app.url}/auth/nra`);
      await page.fill('#admin-email', DEMO_ACCOUNTS.admin.email);
      await page.fill('#admin-password', DEMO_ACCOUNTS.admin.password);
      await page.getByRole('button', { name: 'Sign In' }).click();
      await expect(toastText(page, 'Two-Step Verification Required')).resolves.toMatchObject({
        description:
          'Administrators must use two-step verification: turn it on in Profile › Settings, then sign in at the admin page again.',
      });
      await page.waitForURL(`${app.url}/profile`);
      await page.getByRole('button', { name: 'Settings' }).waitFor();
      await page.screenshot({ path: path.join(SCREENSHOTS, `admin-two-step-required-${width}.png`) });
      await page.goto(`${app.url}/nra/login/profile`);
      await page.waitForURL(`${app.url}/profile`);
      await toastText(page, 'Two-Step Verification Required');
      await expect(page.locator('[data-remote="admin"]').count()).resolves.toBe(0);
      await page.context().close();
    }

    // With an app turned on, the code leads them into the admin area.
    const api = nodeClient(app);
    await api.auth.signInWithPassword(DEMO_ACCOUNTS.admin);
    const { data } = await api.auth.mfa.enroll({ factorType: 'totp', issuer: 'RepX' });
    const { id: factorId, totp } = data as { id: string; totp: { secret: string } };
    const step = await freshStep(15_000);
    expect(
      (await api.auth.mfa.challengeAndVerify({ factorId, code: totpCode(totp.secret, step - 1) })).error,
    ).toBeNull();
    const page = await (await app.newContext({ width: 390 })).newPage();
    await page.goto(`${app.url}/auth/nra`);
    await page.fill('#admin-email', DEMO_ACCOUNTS.admin.email);
    await page.fill('#admin-password', DEMO_ACCOUNTS.admin.password);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.waitForURL('**/auth/verify');
    await page.fill('#two-step-code', totpCode(totp.secret, step));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL('**/nra/login/profile');
    await page.locator('[data-remote="admin"]').first().waitFor();
    await page.getByRole('tab', { name: 'User Management' }).waitFor();
    await page.context().close();
    expect(
      (await api.auth.mfa.challengeAndVerify({ factorId, code: totpCode(totp.secret, step + 1) })).error,
    ).toBeNull();
    expect((await api.auth.mfa.unenroll({ factorId })).error).toBeNull();
  } finally {
    await db('update exchange_settings set admins_need_two_step = false');
    await db(`delete from auth.mfa_factors where user_id = (select id from auth.users where email = $1)`, [
      DEMO_ACCOUNTS.admin.email,
    ]);
  }
});
