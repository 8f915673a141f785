import path from 'node:path';
import type { Page } from 'playwright-core';
import { formatInteger, formatMoney } from '@repex/shared-ui/ui';
import { SCREENSHOTS, openScreen, shootBoth, eventually, signIn, startApp, type E2EApp } from './helpers/app';

jest.setTimeout(180_000);

let app: E2EApp;
let page: Page;
beforeAll(async () => {
  app = await startApp();
  page = await (await app.newContext()).newPage();
  await signIn(page, app);
});
afterAll(() => app?.close());

const one = async <T>(sql: string, params: unknown[] = []) => (await app.backend.db.query<T>(sql, params))[0]!;
const stat = (label: string) => page.getByTestId(`stat-${label}`).innerText();
const rows = (testId: string) => page.getByTestId(testId);

test('market: figures from the database, search, filter, sort in the URL, empty text', async () => {
  await openScreen(page, app, '/market', 'market');
  const s = await one<{ total_market_cap: string; volume_24h: string; active_tokens: string; total_traders: string }>(
    'select * from market_summary',
  );
  await rows('market-row').first().waitFor();
  expect(await stat('Total Market Cap')).toBe(formatMoney(Number(s.total_market_cap)));
  expect(await stat('24h Volume')).toBe(formatMoney(Number(s.volume_24h)));
  expect(await stat('Active Tokens')).toBe(formatInteger(Number(s.active_tokens)));
  expect(await stat('Total Traders')).toBe(formatInteger(Number(s.total_traders)));
  const headers = await page.locator('table[aria-label="Reputation tokens"] th').allInnerTexts();
  expect(headers.slice(0, 7)).toEqual([
    'Person',
    'Reputation',
    'Price',
    '24h Change',
    'Market Cap',
    'Volume',
    'Holders',
  ]);

  const byCap = (
    await app.backend.db.query<{ name: string }>('select name from market_tokens order by market_cap desc, id')
  ).map((r) => r.name);
  await expect(rows('market-row').count()).resolves.toBe(6);
  for (const [i, name] of byCap.entries()) await expect(rows('market-row').nth(i).innerText()).resolves.toContain(name);
  await shootBoth(page, 'market');

  await page.getByLabel('Search').fill('SARAH');
  await page.waitForURL(/q=SARAH/);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=market-row]').length === 1);
  await expect(rows('market-row').first().innerText()).resolves.toContain('Sarah Chen');
  await page.getByLabel('Search').fill('design'); // category, case-insensitive
  await page.waitForURL(/q=design/);
  // One row before and after: wait for the new one, not for the count.
  await page.waitForFunction(() => {
    const found = document.querySelectorAll('[data-testid=market-row]');
    return found.length === 1 && found[0]!.textContent!.includes('Priya Patel');
  });
  await page.getByLabel('Search').fill('no such person');
  await page.getByText('No reputation stocks found matching your criteria.').waitFor();
  await page.getByLabel('Search').fill('');
  await page.waitForFunction(() => !location.search.includes('q='));

  await page.getByLabel('Category').selectOption('Fitness Coach');
  await page.waitForURL(/category=Fitness/);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=market-row]').length === 1);
  await expect(rows('market-row').first().innerText()).resolves.toContain('Emma Rodriguez');
  await page.getByLabel('Category').selectOption('all');

  await page.getByLabel('Sort by').selectOption('price.asc');
  await page.waitForURL(/sort=price\.asc/);
  const cheapest = await one<{ name: string }>('select name from market_tokens order by price asc limit 1');
  await page.waitForFunction(
    (n) => document.querySelector('[data-testid=market-row]')?.textContent?.includes(n),
    cheapest.name,
  );
  await page.reload(); // the URL keeps the sort
  await page.waitForFunction(
    (n) => document.querySelector('[data-testid=market-row]')?.textContent?.includes(n),
    cheapest.name,
  );
  await expect(page.getByLabel('Sort by').inputValue()).resolves.toBe('price.asc');
});

for (const width of [1280, 390]) {
  test(`market: Advanced Filters narrow the market in the database, live in the URL, and clear in one click at ${width} px`, async () => {
    const view = await (await app.newContext({ width })).newPage();
    await signIn(view, app);
    await view.goto(`${app.url}/market?sort=price.asc`);
    await view.locator('[data-remote=market] [data-testid=market-row]').first().waitFor();
    await view.getByRole('button', { name: 'Advanced Filters' }).click();
    const panel = view.getByRole('form', { name: 'Advanced Filters' });

    // Bad input is said, by range, and changes nothing.
    await panel.getByLabel('Price (USD), minimum').fill('cheap');
    await panel.getByLabel('Market cap (USD), minimum').fill('500');
    await panel.getByLabel('Market cap (USD), maximum').fill('100');
    await panel.getByRole('button', { name: 'Apply Filters' }).click();
    await panel.getByText('Enter a number, like 12.50.').waitFor();
    await panel.getByText('The minimum is above the maximum.').waitFor();
    expect(new URL(view.url()).search).toBe('?sort=price.asc');

    // Price of 40 and more, verified only, halted hidden, two categories: what the database says.
    await panel.getByLabel('Price (USD), minimum').fill('40');
    await panel.getByLabel('Market cap (USD), minimum').fill('');
    await panel.getByLabel('Market cap (USD), maximum').fill('');
    await panel.getByLabel('Verified only').check();
    await panel.getByLabel('Hide halted tokens').check();
    await panel.getByLabel('Tech Influencer').check();
    await panel.getByLabel('Business Leader').check();
    if (width === 390)
      await view.screenshot({ path: path.join(SCREENSHOTS, `market-filters-${width}.png`), fullPage: true });
    await panel.getByRole('button', { name: 'Apply Filters' }).click();
    await view.waitForURL(
      /price_min=40.*verified=1&live=1&cat=Business\+Leader&cat=Tech\+Influencer|price_min=40.*verified=1&live=1&cat=Tech\+Influencer&cat=Business\+Leader/,
    );
    const expected = await app.backend.db.query<{ name: string }>(
      `select name from market_tokens where price >= 40 and verified and not halted
         and category in ('Tech Influencer', 'Business Leader') order by price, id`,
    );
    expect(expected.length).toBeGreaterThan(0);
    const names = () =>
      view.$$eval('[data-remote=market] [data-testid=market-row]', (rows) => rows.map((r) => r.textContent ?? ''));
    await eventually(async () => (await names()).length, expected.length);
    const shown = await names();
    expected.forEach((t, i) => expect(shown[i]).toContain(t.name));
    await view.getByRole('button', { name: 'Advanced Filters (4)' }).waitFor();
    if (width === 1280)
      await view.screenshot({ path: path.join(SCREENSHOTS, `market-filters-${width}.png`), fullPage: true });

    // A reload keeps them; Clear all takes every one away.
    await view.reload();
    await expect(
      view.getByRole('form', { name: 'Advanced Filters' }).getByLabel('Verified only').isChecked(),
    ).resolves.toBe(true);
    await view.getByRole('button', { name: 'Clear all' }).click();
    await view.waitForURL((u) => u.search === '?sort=price.asc');
    await view.getByRole('button', { name: 'Advanced Filters', exact: true }).waitFor();
    await view.context().close();
  });
}
