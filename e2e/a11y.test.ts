import fs from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { DEMO_ACCOUNTS } from '../server/demo';
import { totpCode, totpStep } from '../server/auth/totp';
import { SCREENSHOTS, apiUser, signIn, startApp, type E2EApp } from './helpers/app';

jest.setTimeout(240_000);

const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

let app: E2EApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app?.close());

/** axe-core's serious and critical violations on the page as it is now. */
async function violations(page: Page): Promise<string[]> {
  await page.waitForTimeout(600); // let data arrive and animations settle
  await page.evaluate(AXE); // as the debugger does: the page's Content-Security-Policy allows no inline script
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            ctx: Document,
            o: object,
          ) => Promise<{ violations: { id: string; impact: string; nodes: { html: string }[] }[] }>;
        };
      }
    ).axe;
    const { violations: found } = await axe.run(document, { resultTypes: ['violations'] });
    return found
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes[0]?.html.slice(0, 120)}`);
  });
}

for (const width of [1280, 390]) {
  test(`no serious or critical accessibility violation on any screen at ${width} px`, async () => {
    const page = await (await app.newContext({ width })).newPage();
    const found: Record<string, string[]> = {};
    const check = async (name: string) => {
      const v = await violations(page);
      if (v.length) found[name] = v;
    };
    for (const path of ['/', '/auth', '/auth/nra', '/auth/reset', '/auth/confirm', '/no-such-page']) {
      await page.goto(`${app.url}${path}`);
      await check(path);
    }
    // The reset page's second step (an address without an account gets the same answer, and no mail).
    await page.goto(`${app.url}/auth/reset`);
    await page.fill('#reset-email', 'nobody@e2e.repx.dev');
    await page.getByRole('button', { name: 'Send Code' }).click();
    await page.getByRole('form', { name: 'Reset Password' }).waitFor();
    await check('reset code step');
    // The sign-up's confirmation step, naming the address its code was mailed to.
    await page.goto(`${app.url}/auth`);
    await page.getByRole('tab', { name: 'Sign Up' }).click();
    await page.fill('#signup-username', `a11y_new_${width}`);
    await page.fill('#signup-email', `a11y-new-${width}@e2e.repx.dev`);
    await page.fill('#signup-password', 'a11y-password');
    await page.getByRole('button', { name: 'Create Account' }).click();
    await page.getByRole('form', { name: 'Confirm Email' }).getByText(`a11y-new-${width}@e2e.repx.dev`).waitFor();
    await check('sign-up confirmation step');
    await signIn(page, app, DEMO_ACCOUNTS.user);
    const [sarah] = await app.backend.db.query<{ id: string }>(`select id from tokens where username = 'sarahchen'`);
    for (const path of [
      '/dashboard',
      '/market',
      '/profile',
      '/wallet',
      '/auto-invest',
      '/portfolio-analysis',
      `/trading/${sarah!.id}`,
    ]) {
      await page.goto(`${app.url}${path}`);
      await page.locator('[data-remote]').first().waitFor();
      await check(path);
    }
    // A token in its offering's batch auction: the offering panel in place of the order form.
    const [offered] = await app.backend.db.query<{ id: string }>(
      `insert into tokens (name, username, category, reputation_score, total_supply, issue_price)
       values ($1, $1, 'Designer', 50, 2000, 10) returning id`,
      [`a11yauction${width}`],
    );
    await app.backend.db.query('select private.open_offering($1, 1000, 10)', [offered!.id]);
    await page.goto(`${app.url}/trading/${offered!.id}`);
    await page.getByTestId('offering-panel').waitFor();
    await check('offering panel');
    await page.goto(`${app.url}/auto-invest`);
    await page.getByRole('button', { name: 'New Plan' }).click();
    await page.getByRole('form', { name: 'New Auto-Invest Plan' }).waitFor();
    await check('new Auto-Invest plan dialog');
    await page.keyboard.press('Escape');
    await page.goto(`${app.url}/dashboard`);
    await page.getByRole('tab', { name: 'Orders', exact: true }).click();
    await page
      .getByText(/^(You have no open orders\.|\d+ orders? on the book\.)/)
      .first()
      .waitFor();
    await check('open orders');
    await page.getByRole('button', { name: 'History', exact: true }).click();
    await page.getByRole('table', { name: 'Order History' }).waitFor({ state: 'attached' });
    await check('order history');
    await page.goto(`${app.url}/profile`);
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByText(`Email: ${DEMO_ACCOUNTS.user.email}`).waitFor();
    await check('settings dialog');
    await page.getByRole('button', { name: 'Connected accounts' }).click();
    await page.getByRole('dialog', { name: 'Connected Accounts' }).waitFor();
    await check('connected accounts dialog');
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Change email' }).click();
    await page.getByRole('dialog', { name: 'Change Email' }).waitFor();
    await check('change email dialog');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'See where you are signed in' }).click();
    await page.getByRole('list', { name: 'Sessions' }).waitFor();
    await check('sessions dialog');
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByRole('img', { name: 'QR code to add RepX to an authenticator app' }).waitFor();
    await check('turn on two-step verification dialog');
    await page.screenshot({ path: join(SCREENSHOTS, `two-step-on-${width}.png`) });
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.goto(`${app.url}/wallet?action=deposit`);
    await page.getByRole('dialog', { name: 'Deposit Funds' }).waitFor();
    await check('deposit dialog');
    await page.goto(`${app.url}/wallet?action=add-account`);
    await page.getByRole('dialog', { name: 'Add Bank Account' }).waitFor();
    await check('add bank account dialog');
    await page.goto(`${app.url}/wallet?action=statement`);
    await page.getByRole('dialog', { name: 'Download Statement' }).waitFor();
    await check('statement dialog');
    await page.goto(`${app.url}/wallet`);
    await page.getByRole('tab', { name: 'Profit & Loss' }).click();
    await check('profit & loss');

    // The code step of signing in, for an account with two-step verification on.
    const email = `a11y-twostep-${width}@e2e.repx.dev`;
    const api = await apiUser(app, { email, password: 'a11y-password', username: `a11y_two_${width}` });
    const { data } = await api.auth.mfa.enroll({ factorType: 'totp' });
    const { id: factorId, totp } = data as { id: string; totp: { secret: string } };
    await api.auth.mfa.challengeAndVerify({ factorId, code: totpCode(totp.secret, totpStep(Date.now())) });
    // And a backup app, so the code step offers the choice of app.
    const { data: backup } = await api.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Backup app' });
    const { id: backupId, totp: backupTotp } = backup as { id: string; totp: { secret: string } };
    await api.auth.mfa.challengeAndVerify({
      factorId: backupId,
      code: totpCode(backupTotp.secret, totpStep(Date.now())),
    });
    const second = await (await app.newContext({ width })).newPage();
    await second.goto(`${app.url}/auth`);
    await second.fill('#signin-email', email);
    await second.fill('#signin-password', 'a11y-password');
    await second.click('form[aria-label="Sign In"] button[type=submit]');
    await second.waitForURL('**/auth/verify');
    await second.locator('#two-step-app').waitFor();
    const v = await violations(second);
    if (v.length) found['two-step verification'] = v;

    const admin = await (await app.newContext({ width })).newPage();
    await admin.goto(`${app.url}/auth/nra`);
    await admin.fill('#admin-email', DEMO_ACCOUNTS.admin.email);
    await admin.fill('#admin-password', DEMO_ACCOUNTS.admin.password);
    await admin.getByRole('button', { name: 'Sign In' }).click();
    await admin.getByTestId('admin-user-row').first().waitFor();
    for (const tab of ['User Management', 'Fraud Detection', 'Revenue Reports', 'System Settings', 'Audit Log']) {
      await admin.getByRole('tab', { name: tab }).click();
      const v = await violations(admin);
      if (v.length) found[`admin: ${tab}`] = v;
    }
    expect(found).toEqual({});
  });
}
