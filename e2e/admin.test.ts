import path from 'node:path';
import type { Page } from 'playwright-core';
import { feePercent, orderCost } from '../mf-trading/src/trading/order/orderMath';
import { formatPrice } from '@repex/shared-ui/ui';
import { DEMO_ACCOUNTS } from '../server/demo';
import { totpCode, totpStep } from '../server/auth/totp';
import { freshStep } from '../integration/harness/totp';
import {
  SCREENSHOTS,
  apiUser,
  eventually,
  nodeClient,
  placeOrder,
  placeholderWhole,
  signIn,
  signUp,
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
  admin = await (await app.newContext()).newPage();
  await admin.goto(`${app.url}/auth/nra`);
  await admin.fill('#admin-email', DEMO_ACCOUNTS.admin.email);
  await admin.fill('#admin-password', DEMO_ACCOUNTS.admin.password);
  await admin.getByRole('button', { name: 'Sign In' }).click();
  await admin.locator('[data-remote="admin"]').first().waitFor();
});
afterAll(() => app?.close());

const db = <T>(sql: string, params: unknown[] = []) => app.backend.db.query<T>(sql, params);

async function fundedUser(username: string, cash: number): Promise<Page> {
  const page = await (await app.newContext()).newPage();
  await signUp(page, app, { username, email: `${username}@e2e.repx.dev`, password: 'e2e-pass-1' });
  await db(`select private.record_deposit(id, $2) from auth.users where email = $1`, [
    `${username}@e2e.repx.dev`,
    cash,
  ]);
  return page;
}

test('the admin changes the fee to 1.5%: the order panel shows it live and the next trade charges it; audited', async () => {
  const [sarah] = await db<{ id: string; price: string }>(
    `select id, price from market_tokens where username = 'sarahchen'`,
  );
  const trader = await fundedUser('fee_watcher', 5000);
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
  const user = await fundedUser('soon_suspended', 1000);
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
  const user = await fundedUser('signed_out_user', 1000);
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

test('the admin removes the authenticator app of someone who lost it: the password alone signs them in', async () => {
  const email = 'lost_phone@e2e.repx.dev';
  const api = await apiUser(app, { email, password: 'e2e-pass-1', username: 'lost_phone' });
  const { data } = await api.auth.mfa.enroll({ factorType: 'totp' });
  const { id: factorId, totp } = data as { id: string; totp: { secret: string } };
  expect(
    (await api.auth.mfa.challengeAndVerify({ factorId, code: totpCode(totp.secret, totpStep(Date.now())) })).error,
  ).toBeNull();

  await admin.reload();
  const row = admin.locator('[data-testid="admin-user-row"][data-username="lost_phone"]');
  await row.getByRole('button', { name: 'Details' }).click();
  await admin
    .getByTestId('account-details')
    .getByText(/two-step verification on$/)
    .waitFor();
  await admin.getByRole('button', { name: 'Remove Authenticator App' }).click();
  const dialog = admin.getByRole('dialog', { name: 'Remove the Authenticator App of @lost_phone' });
  await dialog.locator('#two-step-reason').fill('Phone lost; identity checked by video call.');
  for (const width of [1280, 390]) {
    await admin.setViewportSize({ width, height: 900 });
    await admin.screenshot({ path: path.join(SCREENSHOTS, `admin-remove-two-step-${width}.png`) });
  }
  await admin.setViewportSize({ width: 1280, height: 900 });
  await dialog.getByRole('button', { name: 'Remove App' }).click();
  await expect(toastText(admin, 'Two-Step Verification Removed')).resolves.toMatchObject({
    description: '@lost_phone is signed out everywhere and signs in with the password alone.',
  });
  const user = await (await app.newContext({ width: 390 })).newPage();
  await user.goto(`${app.url}/auth`);
  await user.fill('#signin-email', email);
  await user.fill('#signin-password', 'e2e-pass-1');
  await user.click('form[aria-label="Sign In"] button[type=submit]');
  await user.waitForURL('**/dashboard');
  const [entry] = await db<{ action: string; reason: string }>(
    `select l.action, l.reason from audit_log l join auth.users u on u.id = l.target_user
      where u.email = $1 order by l.id desc limit 1`,
    [email],
  );
  expect(entry).toEqual({ action: 'account.two_step_off', reason: 'Phone lost; identity checked by video call.' });
  await user.context().close();
});

test('an application under a listed name says so in the Approve dialog; rejected with a reason', async () => {
  const api = await apiUser(app, { username: 'sarah_too', email: 'sarah.too@e2e.repx.dev', password: 'e2e-pass-1' });
  const applied = await api.rpc('apply_for_token', { p_display_name: 'Sarah  Chen', p_category: 'Tech Influencer' });
  expect(applied.error).toBeNull();
  await admin.reload();
  const row = admin.locator('[data-testid="admin-user-row"][data-username="sarah_too"]');
  await row.getByRole('button', { name: 'Approve' }).click();
  const approve = admin.getByRole('dialog', { name: 'Approve token application' });
  await expect(approve.getByTestId('namesakes').innerText()).resolves.toBe(
    'Already on the market under this name: Sarah Chen (@sarahchen, verified). Check that the applicant is not passing for someone else.',
  );
  await admin.screenshot({ path: path.join(SCREENSHOTS, 'approve-namesake-1280.png') });
  // A price that does not read as a number is refused before anything is sent, not replaced by the default.
  await approve.locator('#approve-price').fill('12,50');
  await approve.getByRole('button', { name: 'Approve and issue' }).click();
  await approve
    .getByText('Write the total supply and the issue price as plain numbers, like 500000 and 12.50.')
    .waitFor();
  await expect(db(`select 1 from tokens where username = 'sarah_too'`)).resolves.toEqual([]);
  await approve.getByRole('button', { name: 'Cancel' }).click();
  await row.getByRole('button', { name: 'Reject' }).click();
  const reject = admin.getByRole('dialog', { name: 'Reject token application' });
  await reject.locator('textarea').fill('Sarah Chen is listed already; show us this is you.');
  await reject.getByRole('button', { name: 'Reject' }).click();
  await row.getByRole('button', { name: 'Approve' }).waitFor({ state: 'detached' });
});

test("the admin halts trading in one token from its owner's details: its screens say so at once, its person is told", async () => {
  // The demo user is Alex Rivera, whose token it is, and watches its trading screen on a phone.
  const [alex] = await db<{ id: string }>(`select id from tokens where username = 'alexrivera'`);
  const person = await (await app.newContext({ width: 390 })).newPage();
  await signIn(person, app, DEMO_ACCOUNTS.user);
  await person.goto(`${app.url}/trading/${alex!.id}`);
  await person.getByRole('button', { name: 'Place Buy Order' }).waitFor();

  await admin.reload();
  const row = admin.locator('[data-testid="admin-user-row"][data-username="alexrivera"]');
  const details = admin.getByRole('dialog', { name: '@alexrivera' });
  await row.getByRole('button', { name: 'Details' }).click();
  await details.getByTestId('own-token').filter({ hasText: 'Token Alex Rivera: trading open' }).waitFor();
  await details.getByRole('button', { name: 'Halt Trading' }).click();
  const halt = admin.getByRole('dialog', { name: 'Halt Trading in Alex Rivera' });
  await halt.locator('#halt-reason').fill('Under review: unusual trading.');
  await halt.getByRole('button', { name: 'Halt Trading' }).click();
  await toastText(admin, 'Trading Halted');

  // The trading screen follows without a reload: the reason instead of the order panel.
  const banner = person.getByTestId('trading-halted');
  await banner.getByText('Under review: unusual trading.').waitFor({ timeout: 5000 });
  await expect(person.getByRole('button', { name: 'Place Buy Order' }).count()).resolves.toBe(0);
  await expect(person.getByRole('button', { name: /^Buy at / }).count()).resolves.toBe(0); // the book's prices too
  await person.screenshot({ path: path.join(SCREENSHOTS, 'trading-halted-390.png'), fullPage: true });
  // The market says so too, before a trader opens the token; the person's profile and mail say why.
  await person.goto(`${app.url}/market`);
  await person.getByTestId('market-row').filter({ hasText: 'Alex Rivera' }).getByText('Halted').waitFor();
  await expect(person.getByTestId('market-row').getByText('Halted').count()).resolves.toBe(1);
  await person.goto(`${app.url}/profile`);
  await person.getByText('Trading halted by the exchange: we emailed you why.').waitFor();
  // Someone who holds and watches the token sees the badge on both dashboard rows.
  const holder = await fundedUser('halt_holder', 100);
  const holderId = `(select id from auth.users where email = 'halt_holder@e2e.repx.dev')`;
  await db(`select private.issue_tokens($1, ${holderId}, 5)`, [alex!.id]);
  await db(`insert into watchlist (user_id, token_id) values (${holderId}, $1)`, [alex!.id]);
  await holder.goto(`${app.url}/dashboard`);
  await holder.getByTestId('holding-row').filter({ hasText: 'Alex Rivera' }).getByText('Halted').waitFor();
  await holder.getByRole('tab', { name: 'Watchlist' }).click();
  await holder.getByTestId('watchlist-row').filter({ hasText: 'Alex Rivera' }).getByText('Halted').waitFor();
  await holder.context().close();
  // Relayed from the database's mail queue to the outbox (on its NOTIFY, or the next poll).
  const halted = () =>
    db<{ body: string }>(
      `select body from local_server.outbox where recipient = $1 and subject = 'Trading in your RepX token is halted'`,
      [DEMO_ACCOUNTS.user.email],
    );
  await eventually(async () => (await halted()).length, 1);
  expect((await halted())[0]!.body).toMatch(
    /^RepX halted trading in your token Alex Rivera on .+: Under review: unusual trading\.\n/,
  );
  await person.goto(`${app.url}/trading/${alex!.id}`);
  await banner.waitFor();

  await row.getByRole('button', { name: 'Details' }).click();
  await details.getByTestId('own-token').filter({ hasText: 'trading halted since' }).waitFor();
  await details.getByRole('button', { name: 'Resume Trading' }).click();
  const resume = admin.getByRole('dialog', { name: 'Resume Trading in Alex Rivera' });
  await resume.getByRole('button', { name: 'Resume Trading' }).click();
  await toastText(admin, 'Trading Resumed');
  await person.getByRole('button', { name: 'Place Buy Order' }).waitFor({ timeout: 5000 });
  await person.context().close();
});

test("the revenue report exports a CSV whose totals are the trade fees, the creators' share and the exchange's net, to the cent", async () => {
  await admin.getByRole('tab', { name: 'Revenue Reports' }).click();
  await admin.getByLabel('Period').selectOption('all');
  await admin.getByLabel('Group by').selectOption('token');
  await admin.getByTestId('revenue-row').first().waitFor();
  await admin.screenshot({ path: path.join(SCREENSHOTS, 'admin-revenue-1280.png'), fullPage: true });
  const [download] = await Promise.all([
    admin.waitForEvent('download'),
    admin.getByRole('button', { name: 'Export Report' }).click(),
  ]);
  const file = await download.path();
  const text = (await import('node:fs')).readFileSync(file!, 'utf8');
  expect(text.startsWith('\uFEFF')).toBe(true); // UTF-8 with a byte-order mark, as spreadsheets expect
  const lines = text.slice(1).trimEnd().split('\r\n');
  expect(lines[0]).toBe(
    "Token,Trades,Volume (USD),Fees (USD),Taker fees (USD),Maker fees (USD),Creators' share (USD),Fee revenue (USD)",
  );
  const total = lines[lines.length - 1]!.split(',');
  const [fees] = await db<{ s: string; t: string; c: string; n: string }>(
    `select sum(buyer_fee + seller_fee) as s, sum(case when taker_side = 'buy' then buyer_fee else seller_fee end) as t,
            sum(creator_share) as c, count(*) as n from trades`,
  );
  expect(total[0]).toBe('Total');
  expect(Number(total[1])).toBe(Number(fees!.n));
  expect(total[3]).toBe(Number(fees!.s).toFixed(2));
  expect(total[4]).toBe(Number(fees!.t).toFixed(2));
  expect(total[5]).toBe((Number(fees!.s) - Number(fees!.t)).toFixed(2));
  expect(total[6]).toBe(Number(fees!.c).toFixed(2));
  expect(total[7]).toBe((Number(fees!.s) - Number(fees!.c)).toFixed(2));
});

test('two accounts wash-trade a token; the admin finds the alert and confirms it, suspending both', async () => {
  const emails = ['washer_one@e2e.repx.dev', 'washer_two@e2e.repx.dev'];
  for (const [i, email] of emails.entries()) await fundedUser(email.split('@')[0]!, 2000 + i);
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
  for (const tab of ['User Management', 'Fraud Detection', 'Revenue Reports', 'System Settings', 'Audit Log']) {
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
