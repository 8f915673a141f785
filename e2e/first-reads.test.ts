import type { Page } from 'playwright-core';
import { openScreen, shootBoth, signIn, startApp, type E2EApp } from './helpers/app';

jest.setTimeout(180_000);

let app: E2EApp;
let page: Page;
beforeAll(async () => {
  app = await startApp();
  page = await (await app.newContext()).newPage();
  await signIn(page, app);
});
afterAll(() => app?.close());

/** The reads the screen makes of each part on its own: after the first read, not for it. */
const PARTS = [
  '/rest/v1/market_tokens',
  '/rest/v1/rpc/price_history',
  '/rest/v1/order_book',
  '/rest/v1/recent_trades',
  '/rest/v1/cash_accounts',
  '/rest/v1/holdings',
  '/rest/v1/rpc/list_open_orders',
  '/rest/v1/token_vesting',
  '/rest/v1/offering_book',
];

test('the trading screen opens with one read of its token, book, tape, line and the trader', async () => {
  const [{ id }] = await app.backend.db.query<{ id: string }>(`select id from tokens where username = 'sarahchen'`);
  // Away from the screen before, so none of its reads is counted as this one's.
  await page.goto('about:blank');
  const asked: string[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/rest/v1/')) asked.push(url.pathname);
  });
  await openScreen(page, app, `/trading/${id}`, 'trading');
  await page.getByTestId('book-sell').first().waitFor();
  await page.getByRole('tab', { name: 'Recent Trades' }).click();
  await page.getByTestId('recent-trade').first().waitFor();

  expect(asked.filter((p) => p === '/rest/v1/rpc/trading_screen')).toHaveLength(1);
  expect(asked.filter((p) => PARTS.includes(p))).toEqual([]);
  await shootBoth(page, 'trading-first-read');

  // An order of the trader's own reads their part again on its own: the account's note says so.
  asked.length = 0;
  await page.getByRole('button', { name: 'Limit', exact: true }).click();
  await page.locator('#order-amount').fill('1');
  await page.locator('#order-limit').fill('1.00');
  await page.getByRole('button', { name: 'Place Buy Order' }).click();
  await page.getByRole('region', { name: 'Confirm order' }).getByRole('button', { name: 'Confirm Buy' }).click();
  await page.waitForResponse((r) => r.url().includes('/rest/v1/rpc/list_open_orders'), { timeout: 10_000 });
  expect(asked).not.toContain('/rest/v1/rpc/trading_screen');
});

/** The market's reads around its list, each on its own: after the first read, not for it. */
const MARKET_PARTS = [
  '/rest/v1/market_summary',
  '/rest/v1/offering_book',
  '/rest/v1/index_levels',
  '/rest/v1/index_basket',
  '/rest/v1/rpc/index_method',
];

test('the market opens with one read of its figures, categories, offerings and index, and its page', async () => {
  await page.goto('about:blank');
  const asked: string[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/rest/v1/')) asked.push(`${url.pathname}${url.search}`);
  });
  await openScreen(page, app, '/market', 'market');
  await page.getByTestId('market-row').first().waitFor();
  await page.getByText('RepX Index').first().waitFor();
  await page.getByTestId('stat-Total Market Cap').getByText('$').waitFor();

  const paths = asked.map((a) => a.split('?')[0]!);
  expect(paths.filter((p) => p === '/rest/v1/rpc/market_screen')).toHaveLength(1);
  expect(paths.filter((p) => MARKET_PARTS.includes(p))).toEqual([]);
  // The categories' list comes with it; only the page's count reads their counts.
  expect(asked.filter((a) => a.startsWith('/rest/v1/token_categories?select=category'))).toEqual([]);
  await shootBoth(page, 'market-first-read');
});
