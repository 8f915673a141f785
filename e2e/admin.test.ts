import path from 'node:path';
import type { Page } from 'playwright-core';
import { feePercent, orderCost } from '../mf-trading/src/trading/order/orderMath';
import { formatPrice } from '@repex/shared-ui/ui';
import { adminPage, fundedUser } from './helpers/admin';
import { SCREENSHOTS, eventually, placeOrder, startApp, toastText, type E2EApp } from './helpers/app';

jest.setTimeout(240_000);

let app: E2EApp;
let admin: Page;
beforeAll(async () => {
  app = await startApp();
  admin = await adminPage(app);
});
afterAll(() => app?.close());

const db = <T>(sql: string, params: unknown[] = []) => app.backend.db.query<T>(sql, params);

test('the admin changes the fee to 1.5%: the order panel shows it live and the next trade charges it; audited', async () => {
  const [sarah] = await db<{ id: string; price: string }>(
    `select id, price from market_tokens where username = 'sarahchen'`,
  );
  const trader = await fundedUser(app, 'fee_watcher', 5000);
  await trader.goto(`${app.url}/trading/${sarah!.id}`);
  await trader.getByText('Fee (2%)').waitFor();

  await admin.getByRole('tab', { name: 'System Settings' }).click();
  await admin.locator('#setting-fee_bps').fill('1.5');
  await admin.locator('#setting-reason').fill('Launch promotion.');
  await admin.screenshot({ path: path.join(SCREENSHOTS, 'admin-settings-1280.png'), fullPage: true });
  await admin.getByRole('button', { name: 'Save Settings' }).click();
  await toastText(admin, 'Settings Saved');

  // The open order panel follows the setting without a reload.
  await trader.getByText(`Fee (${feePercent(150)})`).waitFor();
  await trader.locator('#order-amount').fill('7');
  const [ask] = await db<{ price: string }>(
    `select min(price) as price from order_book where token_id = $1 and side = 'sell'`,
    [sarah!.id],
  );
  // Estimated at the asks the order meets, with the new fee.
  await eventually(
    () => trader.getByTestId('order-fee').innerText(),
    formatPrice(orderCost(Number(ask!.price), 7, 150).fee),
  );
  await placeOrder(trader, { side: 'Buy', type: 'Market', amount: 7 });
  await toastText(trader, 'Order Filled');
  const [trade] = await db<{ buyer_fee: string; fee_bps: number }>(
    `select t.buyer_fee, t.fee_bps from trades t join auth.users u on u.id = t.buyer_id where u.email = 'fee_watcher@e2e.repx.dev'`,
  );
  expect(trade).toEqual({ buyer_fee: String(orderCost(Number(ask!.price), 7, 150).fee.toFixed(2)), fee_bps: 150 });

  await admin.getByRole('tab', { name: 'Audit Log' }).click();
  await admin
    .getByTestId('audit-row')
    .filter({ hasText: 'settings.update' })
    .filter({ hasText: 'Launch promotion.' })
    .waitFor();
  await db('update exchange_settings set fee_bps = 200');
});

test('the exchange-wide halt has its own button and confirmation, apart from the settings form', async () => {
  await admin.getByRole('tab', { name: 'System Settings' }).click();
  const control = admin.getByRole('region', { name: 'Exchange-wide halt' });
  await control.getByRole('button', { name: 'Halt All Trading' }).click();
  const confirm = admin.getByRole('dialog', { name: 'Halt all trading?' });
  await confirm.locator('#halt-all-reason').fill('Exchange maintenance.');
  await admin.screenshot({ path: path.join(SCREENSHOTS, 'admin-halt-confirm-1280.png') });
  await admin.setViewportSize({ width: 390, height: 844 });
  await admin.screenshot({ path: path.join(SCREENSHOTS, 'admin-halt-confirm-390.png') });
  await admin.setViewportSize({ width: 1280, height: 900 });
  await confirm.getByRole('button', { name: 'Halt All Trading' }).click();
  await toastText(admin, 'Trading Halted');
  await control.getByText('New orders are refused: Exchange maintenance.').waitFor();
  await expect(db('select trading_halted, halt_reason from exchange_settings')).resolves.toEqual([
    { trading_halted: true, halt_reason: 'Exchange maintenance.' },
  ]);
  await control.getByRole('button', { name: 'Resume Trading' }).click();
  const resume = admin.getByRole('dialog', { name: 'Resume trading?' });
  await resume.locator('#halt-all-reason').fill('Maintenance done.');
  await resume.getByRole('button', { name: 'Resume Trading' }).click();
  await toastText(admin, 'Trading Resumed');
  await expect(db('select trading_halted, halt_reason from exchange_settings')).resolves.toEqual([
    { trading_halted: false, halt_reason: null },
  ]);
  // Suspend is a quiet button on each row; its dialog holds the destructive step.
  await admin.getByRole('tab', { name: 'User Management' }).click();
  const suspend = admin.getByRole('button', { name: 'Suspend' }).first();
  await suspend.waitFor();
  const bg = await suspend.evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(bg).not.toBe('rgb(220, 38, 38)');
});

test('the admin suspends an account: its open browser is signed out on its next request, its orders leave the book', async () => {
  const [sarah] = await db<{ id: string }>(`select id from tokens where username = 'sarahchen'`);
  const user = await fundedUser(app, 'soon_suspended', 1000);
  await user.goto(`${app.url}/trading/${sarah!.id}`);
  await user.getByText(`with your ${formatPrice(1000)}`).waitFor();
  await placeOrder(user, { side: 'Buy', type: 'Limit', amount: 3, price: '10.00' });
  await toastText(user, 'Order Placed');
  const bookHas = async () =>
    (
      await db<{ n: string }>(
        `select count(*) as n from orders o join auth.users u on u.id = o.user_id where u.email = 'soon_suspended@e2e.repx.dev' and o.status = 'open'`,
      )
    )[0]!.n;
  expect(Number(await bookHas())).toBe(1);

  await admin.reload(); // the new account signed up after the admin's list was loaded
  const row = admin.locator('[data-testid="admin-user-row"][data-username="soon_suspended"]');
  await row.getByRole('button', { name: 'Suspend' }).click();
  const dialog = admin.getByRole('dialog', { name: 'Suspend @soon_suspended' });
  await dialog.locator('#suspend-reason').fill('Spoofing the Sarah Chen book.');
  await admin.screenshot({ path: path.join(SCREENSHOTS, 'admin-suspend-1280.png'), fullPage: true });
  await dialog.getByRole('button', { name: 'Suspend' }).click();
  await toastText(admin, 'Account Suspended');
  await row.getByRole('button', { name: 'Reinstate' }).waitFor();
  expect(Number(await bookHas())).toBe(0);

  // The user's next request is refused, and the browser signs out.
  await user.goto(`${app.url}/wallet`);
  await user.waitForURL('**/auth');
  await user.getByTestId('toast').filter({ hasText: 'Session Ended' }).waitFor();
});

test('the admin signs an account out everywhere from its details: its browser must sign in again, its order stands', async () => {
  const [marcus] = await db<{ id: string }>(`select id from tokens where username = 'marcusj'`);
  const user = await fundedUser(app, 'signed_out_user', 1000);
  await user.goto(`${app.url}/trading/${marcus!.id}`);
  await user.getByText(`with your ${formatPrice(1000)}`).waitFor();
  await placeOrder(user, { side: 'Buy', type: 'Limit', amount: 2, price: '10.00' });
  await toastText(user, 'Order Placed');

  await admin.reload();
  const row = admin.locator('[data-testid="admin-user-row"][data-username="signed_out_user"]');
  await row.getByRole('button', { name: 'Details' }).click();
  const details = admin.getByTestId('account-details');
  // Where the account is signed in, as the user sees it in Settings.
  await details.getByText(/^Chrome \d+ on Linux, 127\.0\.0\.1, since /).waitFor();
  await admin.getByRole('button', { name: 'Sign Out Everywhere' }).click();
  const dialog = admin.getByRole('dialog', { name: 'Sign Out @signed_out_user' });
  await dialog.locator('#signout-reason').fill('Reported a stolen laptop.');
  await dialog.getByRole('button', { name: 'Sign Out Everywhere' }).click();
  await expect(toastText(admin, 'Signed Out Everywhere')).resolves.toMatchObject({
    description: '@signed_out_user must sign in again on every device.',
  });

  // The user's next request meets the ended session; not a suspension, so the order stands and
  // signing in again works.
  await user.goto(`${app.url}/wallet`);
  await user.waitForURL('**/auth');
  const [{ n }] = (await db<{ n: string }>(
    `select count(*) as n from orders o join auth.users u on u.id = o.user_id
      where u.email = 'signed_out_user@e2e.repx.dev' and o.status = 'open'`,
  )) as [{ n: string }];
  expect(Number(n)).toBe(1);
  await user.fill('#signin-email', 'signed_out_user@e2e.repx.dev');
  await user.fill('#signin-password', 'e2e-pass-1');
  await user.click('form[aria-label="Sign In"] button[type=submit]');
  await user.waitForURL('**/dashboard');
  const [entry] = await db<{ action: string; reason: string }>(
    `select l.action, l.reason from audit_log l join auth.users u on u.id = l.target_user
      where u.email = 'signed_out_user@e2e.repx.dev' order by l.id desc limit 1`,
  );
  expect(entry).toEqual({ action: 'account.sign_out', reason: 'Reported a stolen laptop.' });
  await user.close();
});
