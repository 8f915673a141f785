import path from 'node:path';
import { formatPrice } from '@repex/shared-ui/ui';
import { SCREENSHOTS, signUp, startApp, toastText, type E2EApp } from './helpers/app';

jest.setTimeout(240_000);

let app: E2EApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app?.close());

test('a withdrawal from a session signed in long ago asks for the password again; a wrong one moves nothing', async () => {
  const user = { username: 'e2e_stale', email: 'stale@e2e.repx.dev', password: 'stale-password' };
  const page = await (await app.newContext({ width: 390 })).newPage();
  await signUp(page, app, user);
  const db = <T>(sql: string, params: unknown[]) => app.backend.db.query<T>(sql, params);
  const [me] = await db<{ id: string }>('select id from auth.users where email = $1', [user.email]);
  await db('select private.record_deposit($1, 500)', [me!.id]);
  // A bank account saved a day ago.
  await db(
    `insert into payout_destinations (user_id, label, account_last4, created_at, usable_from)
     values ($1, 'Savings', '4321', now() - interval '1 day', now() - interval '1 second')`,
    [me!.id],
  );
  const available = async () =>
    Number(
      (await db<{ available: string }>('select available from cash_accounts where user_id = $1', [me!.id]))[0]!
        .available,
    );
  // The sign-in ages past the database's window, and the browser's next token (a refresh) carries its time.
  await db(`update auth.sessions set created_at = now() - interval '16 minutes' where user_id = $1`, [me!.id]);
  await page.evaluate(() => {
    for (const key of Object.keys(localStorage).filter((k) => k.endsWith('-auth-token'))) {
      const stored = JSON.parse(localStorage.getItem(key)!) as { expires_at: number };
      localStorage.setItem(key, JSON.stringify({ ...stored, expires_at: Math.floor(Date.now() / 1000) - 10 }));
    }
  });
  await page.goto(`${app.url}/wallet`);
  // The page's first requests refresh the token; the Withdraw button opens once the wallet has loaded
  // (on a loaded machine, later than two seconds).
  await page.getByRole('button', { name: 'Withdraw', exact: true }).click();
  const withdraw = page.getByRole('dialog', { name: 'Withdraw' });
  await withdraw.locator('#withdraw-amount').fill('100');
  await withdraw.getByRole('button', { name: 'Withdraw', exact: true }).click();
  await withdraw.getByText('For your security, confirm your password to withdraw.').waitFor();
  await withdraw.locator('#withdraw-password').fill('not-my-password');
  await withdraw.getByRole('button', { name: 'Withdraw', exact: true }).click();
  await withdraw.getByText('That password is not right.').waitFor();
  expect(await available()).toBe(500);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'withdraw-confirm-password-390.png') });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: path.join(SCREENSHOTS, 'withdraw-confirm-password-1280.png') });

  await withdraw.locator('#withdraw-password').fill(user.password);
  await withdraw.getByRole('button', { name: 'Withdraw', exact: true }).click();
  await expect(toastText(page, 'Withdrawal Requested')).resolves.toMatchObject({
    description: `${formatPrice(100)} to Savings •••• 4321 is held until it is paid out.`,
  });
  expect(await available()).toBe(400);
  // The fresh sign-in replaced the old session rather than adding one.
  const sessions = await db<{ n: number }>('select count(*)::int as n from auth.sessions where user_id = $1', [me!.id]);
  expect(sessions[0]!.n).toBe(1);
  // And this tab still holds it: when it ends elsewhere, the next request here signs the tab out.
  // (In the same page: a reload would hold the session afresh.)
  await db('delete from auth.sessions where user_id = $1', [me!.id]);
  // Whichever comes first signs the tab out: the next request (Withdraw), or the live socket, whose
  // private account channel the server ends with the session (the button may be gone by then).
  await page
    .getByRole('button', { name: 'Withdraw', exact: true })
    .click({ timeout: 3000 })
    .catch(() => undefined);
  await expect(toastText(page, 'Session Ended')).resolves.toMatchObject({
    description: 'Your session has ended. Please sign in again.',
  });
  await page.waitForURL('**/auth');
  await page.context().close();
});

test('after a password change, the Withdraw dialog says until when withdrawals wait; nothing moves', async () => {
  const user = { username: 'e2e_rekeyed', email: 'rekeyed@e2e.repx.dev', password: 'first-password' };
  const page = await (await app.newContext({ width: 390 })).newPage();
  await signUp(page, app, user);
  const db = <T>(sql: string, params: unknown[]) => app.backend.db.query<T>(sql, params);
  const [me] = await db<{ id: string }>('select id from auth.users where email = $1', [user.email]);
  await db('select private.record_deposit($1, 500)', [me!.id]);

  await page.goto(`${app.url}/profile`);
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.fill('#settings-current', user.password);
  await page.fill('#settings-password', 'second-password');
  await page.fill('#settings-confirm', 'second-password');
  await page.getByRole('button', { name: 'Change Password' }).click();
  await toastText(page, 'Password Changed');

  await page.goto(`${app.url}/wallet`);
  await page.getByRole('button', { name: 'Withdraw', exact: true }).click();
  const withdraw = page.getByRole('dialog', { name: 'Withdraw' });
  // Said at once, in the browser's time, with nothing to type: the database would refuse it.
  await withdraw
    .getByText(
      /^For your security, withdrawals open again on [A-Z][a-z]{2} \d{1,2}, \d{4} at \d\d:\d\d [AP]M, after the recent change of your password or email\. Deposits and trading go on as usual\.$/,
    )
    .waitFor();
  await expect(withdraw.locator('#withdraw-amount').count()).resolves.toBe(0);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'withdraw-held-after-password-change-390.png') });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: path.join(SCREENSHOTS, 'withdraw-held-after-password-change-1280.png') });
  await withdraw.getByRole('button', { name: 'Close' }).click();
  const [{ available }] = (await db<{ available: string }>('select available from cash_accounts where user_id = $1', [
    me!.id,
  ])) as [{ available: string }];
  expect(Number(available)).toBe(500);
  await page.context().close();
});

test('a saved bank account removed from the Wallet at phone width is no longer offered', async () => {
  const user = { username: 'e2e_banker', email: 'banker@e2e.repx.dev', password: 'banker-password' };
  const page = await (await app.newContext({ width: 390 })).newPage();
  await signUp(page, app, user);
  await page.goto(`${app.url}/wallet`);
  const card = page.getByRole('region', { name: 'Bank Accounts' });
  await card.getByText('No bank account saved yet. Add one to withdraw to it.').waitFor();
  await card.getByRole('button', { name: 'Add Bank Account' }).click();
  const adding = page.getByRole('dialog', { name: 'Add Bank Account' });
  // A bad number is refused in words and saves nothing.
  await adding.locator('#account-label').fill('Old bank');
  await adding.locator('#account-number').fill('12-34');
  await adding.getByRole('button', { name: 'Save Account' }).click();
  await adding.getByText('Enter an account number of 6 to 17 digits.').waitFor();
  await adding.locator('#account-number').fill('5550001111');
  await adding.getByRole('button', { name: 'Save Account' }).click();
  await toastText(page, 'Bank Account Saved');
  const account = card.getByTestId('bank-account').filter({ hasText: 'Old bank •••• 1111' });
  await account.waitFor();
  await page.screenshot({ path: path.join(SCREENSHOTS, 'bank-accounts-390.png') });

  await card.getByRole('button', { name: 'Remove Old bank •••• 1111' }).click();
  const removing = page.getByRole('dialog', { name: 'Remove Bank Account' });
  await removing.getByText('Old bank •••• 1111 will no longer receive withdrawals.', { exact: false }).waitFor();
  await page.screenshot({ path: path.join(SCREENSHOTS, 'bank-account-remove-390.png') });
  await removing.getByRole('button', { name: 'Remove' }).click();
  await expect(toastText(page, 'Bank Account Removed')).resolves.toMatchObject({
    description: 'Old bank •••• 1111 can no longer receive withdrawals.',
  });
  await card.getByText('No bank account saved yet. Add one to withdraw to it.').waitFor();
  const [kept] = await app.backend.db.query<{ removed: boolean }>(
    `select removed_at is not null as removed from payout_destinations d join auth.users u on u.id = d.user_id
     where u.email = $1`,
    [user.email],
  );
  expect(kept).toEqual({ removed: true });
  await page.context().close();
});
