import path from 'node:path';
import { formatPrice } from '@repex/shared-ui/ui';
import { SCREENSHOTS, apiUser, signIn, startApp, toastText, type E2EApp } from './helpers/app';

jest.setTimeout(180_000);

let app: E2EApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app?.close());

const one = async <T>(sql: string, params: unknown[]) =>
  (await app.backend.db.query<T & Record<string, unknown>>(sql, params))[0]!;

test('a daily plan made on the Auto-Invest screen runs on the server, is told and listed, and pauses', async () => {
  for (const width of [1280, 390]) {
    const creds = { username: `investor${width}`, email: `investor${width}@example.com`, password: 'investor-2026' };
    const api = await apiUser(app, creds);
    const id = (await api.auth.getUser()).data.user!.id;
    await app.backend.db.query('select private.record_deposit($1, 1000)', [id]);
    const page = await (await app.newContext({ width })).newPage();
    await signIn(page, app, creds);
    await page.getByRole('link', { name: 'Auto-Invest' }).click();
    await page.waitForURL('**/auto-invest');
    await page.getByText('No plans yet.').waitFor();

    // A refusal is the database's, in the form, and makes nothing.
    await page.getByRole('button', { name: 'New Plan' }).click();
    const form = page.getByRole('form', { name: 'New Auto-Invest Plan' });
    await form.getByLabel('Amount each run ($)').fill('5');
    await form.getByLabel('Buy').selectOption({ label: 'Sarah Chen' });
    await form.getByRole('button', { name: 'Create Plan' }).click();
    await expect(form.getByRole('alert').innerText()).resolves.toBe(
      'A plan buys between $10.00 and $10,000.00 each time.',
    );
    await expect(
      one<{ n: number }>('select count(*)::int as n from invest_plans where user_id = $1', [id]),
    ).resolves.toEqual({
      n: 0,
    });
    if (width === 390) await page.screenshot({ path: path.join(SCREENSHOTS, `auto-invest-new-plan-${width}.png`) });

    // The form previews a run before it is saved: an index plan too small for its basket says so.
    await form.getByLabel('Buy').selectOption({ label: 'RepX Index basket' });
    await form.getByLabel('Amount each run ($)').fill('50');
    const preview = form.getByTestId('plan-preview');
    await preview.getByText(/^Too small for the whole basket: \$50\.00 buys \d of the index's \d tokens\./).waitFor();
    if (width === 1280) await page.screenshot({ path: path.join(SCREENSHOTS, `auto-invest-preview-${width}.png`) });
    // $100 of Sarah Chen, daily: the preview says what a run buys; the scheduler runs today's period within seconds.
    await form.getByLabel('Buy').selectOption({ label: 'Sarah Chen' });
    await form.getByLabel('Amount each run ($)').fill('100');
    await preview
      .getByText(/^A run at today's prices buys 2 Sarah Chen tokens \(\$[\d.,]+\); \$[\d.,]+ stays in your cash\.$/)
      .waitFor();
    if (width === 390) await page.screenshot({ path: path.join(SCREENSHOTS, `auto-invest-preview-${width}.png`) });
    await form.getByRole('button', { name: 'Create Plan' }).click();
    const plans = page.getByRole('list', { name: 'Your plans' });
    await plans.getByText('$100.00 of Sarah Chen').waitFor();
    const told = await toastText(page, 'Auto-Invest bought Sarah Chen');
    const run = await one<{ spent: string; tokens: string; average_price: string; fee: string }>(
      `select r.spent, b.tokens::text, b.average_price, b.fee from invest_runs r join invest_run_buys b on b.run_id = r.id
        where r.user_id = $1`,
      [id],
    );
    // The notice the bell keeps, and the mail, say the same (notifications.sql).
    expect(told.description).toMatch(
      new RegExp(
        `^Your \\$100\\.00 plan for Sarah Chen spent \\${formatPrice(Number(run.spent))} on \\d{4}-\\d{2}-\\d{2}, fees included\\.`,
      ),
    );
    const history = page.getByRole('table', { name: 'Auto-Invest runs' });
    const row = history.locator('tbody tr').first();
    await row.getByText(`${run.tokens} Sarah Chen token`).waitFor();
    await expect(row.innerText()).resolves.toContain(formatPrice(Number(run.average_price)));
    await expect(row.innerText()).resolves.toContain(formatPrice(Number(run.spent)));
    await plans.getByText(`spent ${formatPrice(Number(run.spent))}`).waitFor();
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(width);
    await page.screenshot({ path: path.join(SCREENSHOTS, `auto-invest-${width}.png`), fullPage: true });

    // Paused: the plan says so, and so does the database.
    await plans.getByRole('button', { name: 'Pause' }).click();
    await toastText(page, 'Plan Paused');
    await plans.getByText('Paused', { exact: true }).waitFor();
    await expect(one<{ paused: boolean }>('select paused from invest_plans where user_id = $1', [id])).resolves.toEqual(
      {
        paused: true,
      },
    );
    await page.context().close();
  }
});
