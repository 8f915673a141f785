import type { Page } from 'playwright-core';
import { readProjectConfig } from '../server/projectConfig';
import { openScreen, shootBoth, signIn, startApp, type E2EApp } from './helpers/app';

jest.setTimeout(180_000);

/** The API's max_rows (config.toml): past it, a filtered market's count is the planner's estimate. */
const MAX_ROWS = readProjectConfig().maxRows!;
/** Listed tokens beyond the seed's six, all Designers, so one category filter matches more than max_rows. */
const LISTED = MAX_ROWS + 200;

let app: E2EApp;
let page: Page;
beforeAll(async () => {
  app = await startApp();
  await app.backend.db.exec(`
    insert into tokens (name, username, category, reputation_score, total_supply, issue_price)
    select 'Listed Person ' || g, 'listed' || g, 'Designer', 40 + (g % 60), 1000000, 5 + (g % 100)
    from generate_series(1, ${LISTED}) g;
    analyze;`);
  page = await (await app.newContext()).newPage();
  await signIn(page, app);
});
afterAll(() => app?.close());

const pager = () => page.getByText(/^[\d,]+–[\d,]+ of /);
const next = () => page.getByRole('button', { name: 'Next' });

test('a filter matching more tokens than the API counts shows an estimate, pages on, and ends exactly', async () => {
  const designers = LISTED + 1; // the seed has one Designer
  await openScreen(page, app, '/market?cat=Designer', 'market');
  await page.getByTestId('market-row').first().waitFor();
  const shown = await pager().innerText();
  const estimate = Number(/of about ([\d,]+)$/.exec(shown)?.[1]?.replace(/,/g, ''));
  expect(shown).toMatch(/^1–25 of about /);
  // The planner's guess, rounded to three figures: near the truth, never below what was counted.
  expect(estimate).toBeGreaterThan(MAX_ROWS);
  expect(Math.abs(estimate - designers) / designers).toBeLessThan(0.2);
  await expect(page.getByTestId('market-row').count()).resolves.toBe(25);
  await shootBoth(page, 'market-estimated-count');

  await next().click();
  await page.waitForURL(/page=2/);
  // The address changes first, the rows and the pager when page 2 has been read.
  await page.getByText(/^26–50 of about /).waitFor();

  // The last page knows the total: it is counted, not guessed, and Next stops there.
  const last = Math.ceil(designers / 25);
  await openScreen(page, app, `/market?cat=Designer&page=${last}`, 'market');
  const end = `${((last - 1) * 25 + 1).toLocaleString('en-US')}–${designers.toLocaleString('en-US')} of ${designers.toLocaleString('en-US')}`;
  await page.getByText(end).waitFor();
  expect(await next().isDisabled()).toBe(true);
  await shootBoth(page, 'market-last-page');
});

test('a filter matching fewer tokens than max_rows shows their exact count', async () => {
  await openScreen(page, app, '/market?cat=Tech+Influencer&cat=Fitness+Coach', 'market');
  await page.getByTestId('market-row').first().waitFor();
  await expect(page.getByTestId('market-row').count()).resolves.toBe(2);
  await expect(pager().count()).resolves.toBe(0);
  await openScreen(page, app, '/market?cat=Designer&score_min=98', 'market');
  const [{ n }] = await app.backend.db.query<{ n: number }>(
    `select count(*)::int as n from tokens where category = 'Designer' and reputation_score >= 98`,
  );
  expect(n).toBeLessThan(MAX_ROWS);
  await page.getByText(`1–25 of ${n}`).waitFor();
});
