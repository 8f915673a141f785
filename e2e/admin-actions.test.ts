import path from 'node:path';
import type { Page } from 'playwright-core';
import { DEMO_ACCOUNTS } from '../server/demo';
import { totpCode, totpStep } from '../server/auth/totp';
import { adminPage, fundedUser } from './helpers/admin';
import { SCREENSHOTS, apiUser, eventually, signIn, startApp, toastText, type E2EApp } from './helpers/app';

jest.setTimeout(240_000);

let app: E2EApp;
let admin: Page;
beforeAll(async () => {
  app = await startApp();
  admin = await adminPage(app);
});
afterAll(() => app?.close());

const db = <T>(sql: string, params: unknown[] = []) => app.backend.db.query<T>(sql, params);

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
  const holder = await fundedUser(app, 'halt_holder', 100);
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
