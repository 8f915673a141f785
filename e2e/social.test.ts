import path from 'node:path';
import type { Page } from 'playwright-core';
import { DEMO_ACCOUNTS } from '../server/demo';
import { SCREENSHOTS, apiUser, signIn, startApp, toastText, type E2EApp } from './helpers/app';

jest.setTimeout(240_000);

let app: E2EApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app?.close());

/** Connects one account from Settings › Connected Accounts: the phrase, then the check. */
async function connect(page: Page, platform: string, handle: string) {
  const row = page.locator(`[data-testid="social-row"][data-platform="${platform}"]`);
  await row.getByRole('button', { name: 'Connect' }).click();
  await row.locator(`#connect-${platform}`).fill(handle);
  await row.getByRole('button', { name: 'Get phrase' }).click();
  await row
    .getByTestId('social-phrase')
    .getByText(/^repx-[0-9a-f]{10}$/)
    .waitFor();
  await row.getByRole('button', { name: 'Check' }).click();
  await row.getByTestId('social-connected').getByText(`@${handle}`).waitFor();
}

// The same two stories on different platforms at each width: a handle is connected to one account.
const PLATFORMS = {
  1280: { genuine: 'x', bought: 'instagram' },
  390: { genuine: 'youtube', bought: 'tiktok' },
} as const;

for (const width of [1280, 390] as const) {
  test(`a new user connects two accounts, sees the analysis and applies; the admin reviews its warnings and approves; the score shows it (${width} px)`, async () => {
    const person = { username: `social_${width}`, email: `social.${width}@example.com`, password: 'social-2026' };
    await apiUser(app, person);
    const page = await (await app.newContext({ width })).newPage();
    await signIn(page, app, person);
    await page.goto(`${app.url}/profile`);
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Connected accounts' }).click();
    const dialog = page.getByRole('dialog', { name: 'Connected Accounts' });
    await dialog.waitFor();
    const { genuine, bought } = PLATFORMS[width];
    await connect(page, genuine, 'genuine_creator');
    await connect(page, bought, 'bought_followers');
    await dialog.screenshot({ path: path.join(SCREENSHOTS, `social-connected-${width}.png`) });
    await dialog.getByRole('button', { name: 'Done' }).click();

    // The profile: the accounts' real figures and the analysis, with what looked wrong.
    await page.getByTestId('social-impact').getByText('898,200').waitFor();
    const analysis = page.getByTestId('social-analysis');
    await analysis.getByText('Automated', { exact: true }).waitFor();
    await analysis
      .getByTestId('social-warnings')
      .getByText(/followers grew 45% in one day/)
      .waitFor();
    await analysis.screenshot({ path: path.join(SCREENSHOTS, `social-analysis-${width}.png`) });
    // The followers' headline says how many count, by the analysis's authenticity.
    await expect(page.getByTestId('stat-Followers').locator('..').innerText()).resolves.toMatch(
      /898,200[\s\S]*About [\d,]+ count as genuine \(authenticity [\d.]+\/100\)/,
    );

    // The application lists the connected accounts.
    await page.getByRole('button', { name: 'Get your token' }).click();
    const form = page.getByRole('dialog', { name: 'Get your token' });
    await form
      .getByTestId('apply-accounts')
      .getByText(/@bought_followers · 850,000 followers/)
      .waitFor();
    await form.locator('#apply-name').fill(`Social ${width}`);
    await form.locator('#apply-category').selectOption('Designer');
    await form.getByRole('button', { name: 'Apply' }).click();
    await toastText(page, 'Application Sent');

    // The admin reviews the analysis and its warnings beside the applicant, and approves.
    const admin = await (await app.newContext({ width })).newPage();
    await admin.goto(`${app.url}/auth/nra`);
    await admin.fill('#admin-email', DEMO_ACCOUNTS.admin.email);
    await admin.fill('#admin-password', DEMO_ACCOUNTS.admin.password);
    await admin.getByRole('button', { name: 'Sign In' }).click();
    const row = admin.locator(`[data-testid="admin-user-row"][data-username="${person.username}"]`);
    await row.getByRole('button', { name: 'Approve' }).click();
    const approve = admin.getByRole('dialog', { name: 'Approve token application' });
    const review = approve.getByTestId('application-analysis');
    await review.getByText(`${bought}: follows 812,000 accounts, 95.5% of its followers`).waitFor();
    await review.getByText('Automated', { exact: true }).waitFor();
    await approve.screenshot({ path: path.join(SCREENSHOTS, `social-review-${width}.png`) });
    await approve.getByRole('button', { name: 'Approve and issue' }).click();
    await toastText(admin, 'Token Issued');
    await admin.context().close();

    // The token's trading screen: the score's breakdown has the social component.
    const [token] = await app.backend.db.query<{ id: string }>('select id from tokens where name = $1', [
      `Social ${width}`,
    ]);
    await page.goto(`${app.url}/trading/${token!.id}`);
    await page.getByText('How is the reputation score computed?').click();
    const social = page.getByRole('row').filter({ hasText: 'Social analysis (automated)' });
    await social.getByText(/of 100/).waitFor();
    await social.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SCREENSHOTS, `social-breakdown-${width}.png`) });
    await page.context().close();
  });
}
