import type { Page } from 'playwright-core';
import { orderCost } from '../mf-trading/src/trading/order/orderMath';
import { formatPrice } from '@repex/shared-ui/ui';
import { DEMO_ACCOUNTS } from '../server/demo';
import {
  eventually,
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
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app?.close());

const db = <T>(sql: string, params: unknown[] = []) => app.backend.db.query<T>(sql, params);

/** The page never scrolls sideways, and the named control is on screen (or a scroll away, not clipped). */
async function fits(page: Page, screen: string, action?: string) {
  await page.waitForTimeout(400);
  const [scroll, width] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  expect({ screen, width, sideways: scroll > width }).toEqual({ screen, width, sideways: false });
  if (!action) return;
  const control = page
    .getByRole('button', { name: action, exact: true })
    .or(page.getByRole('link', { name: action, exact: true }));
  const box = await control.first().boundingBox();
  expect({ screen, action, inView: !!box && box.x >= 0 && box.x + box.width <= width }).toEqual({
    screen,
    action,
    inView: true,
  });
}

for (const width of [1280, 390]) {
  test(`every screen fits ${width} px and each table's main action is in view`, async () => {
    const page = await (await app.newContext({ width })).newPage();
    await page.goto(`${app.url}/`);
    await fits(page, 'landing', 'Get Started');
    await page.goto(`${app.url}/auth`);
    await fits(page, 'auth');
    await signIn(page, app, DEMO_ACCOUNTS.user);
    await page.getByTestId('holding-row').first().waitFor();
    await fits(page, 'dashboard holdings', 'Sell');
    await tabsInOneRow(page, 'dashboard');
    await page.getByRole('tab', { name: 'Watchlist' }).click();
    await page.getByTestId('watchlist-row').first().waitFor();
    await fits(page, 'dashboard watchlist', 'Trade');
    await page.goto(`${app.url}/market`);
    await page.getByTestId('market-row').first().waitFor();
    await fits(page, 'market', 'Trade');
    // The first token is on the first screen at both widths (on a phone the figures and the index follow the list).
    const firstRow = (await page.getByTestId('market-row').first().boundingBox())!;
    expect({ width, firstTokenOnFirstScreen: firstRow.y < page.viewportSize()!.height }).toEqual({
      width,
      firstTokenOnFirstScreen: true,
    });
    await placeholderWhole(page, 'Search', 'market');
    await page.goto(`${app.url}/profile`);
    await fits(page, 'profile', 'Edit');
    await tabsInOneRow(page, 'profile');
    await tapTab(page, 'Analytics');
    await tapTab(page, 'Overview');
    await page.goto(`${app.url}/wallet`);
    await page.getByTestId('wallet-row').first().waitFor();
    await fits(page, 'wallet', 'Withdraw');
    await tabsInOneRow(page, 'wallet');
    const [sarah] = await db<{ id: string }>(`select id from tokens where username = 'sarahchen'`);
    await page.goto(`${app.url}/trading/${sarah!.id}`);
    await page.getByTestId('your-balance').waitFor();
    await fits(page, 'trading', 'Place Buy Order');
    // The order panel sits beside the chart when wide, and right after it when narrow: before the book.
    const box = async (l: ReturnType<Page['locator']>) => (await l.boundingBox())!;
    const chart = await box(page.getByTestId('price-chart'));
    const panel = await box(page.getByRole('region', { name: 'Place order' }));
    const book = await box(page.getByRole('tab', { name: 'Order Book' }));
    expect({
      width,
      besideChart: panel.x > chart.x + chart.width,
      betweenChartAndBook: panel.y > chart.y + chart.height && panel.y + panel.height < book.y,
    }).toEqual({ width, besideChart: width === 1280, betweenChartAndBook: width === 390 });
  });
}

test("the order panel's figures for a buy and a sell are what the trade that follows charges and pays", async () => {
  // A token with a known book: an ask and a bid at its price.
  const [token] = await db<{
    id: string;
  }>(`insert into tokens (name, username, category, reputation_score, total_supply, issue_price)
    values ('Figure Check', 'figurecheck', 'Designer', 50, 10000, 12.35) returning id`);
  const [maker] = await db<{ id: string }>(`select id from auth.users where email = 'sarah.chen@people.repx.dev'`);
  await db('select private.issue_tokens($1, $2, 100)', [token!.id, maker!.id]);
  await db(`select private.rest_order($1, $2, 'sell', 12.35, 50)`, [maker!.id, token!.id]);
  await db(`select private.rest_order($1, $2, 'buy', 12.35, 50)`, [maker!.id, token!.id]);
  const [{ fee_bps: bps }] = (await db<{ fee_bps: number }>('select fee_bps from exchange_settings')) as [
    { fee_bps: number },
  ];

  const page = await (await app.newContext()).newPage();
  await signUp(page, app, { username: 'figure_checker', email: 'figures@e2e.repx.dev', password: 'figures-1' });
  await db(`select private.record_deposit(id, 1000) from auth.users where email = 'figures@e2e.repx.dev'`);
  await page.goto(`${app.url}/trading/${token!.id}`);
  await page.getByText(`with your ${formatPrice(1000)}`).waitFor();

  await page.locator('#order-amount').fill('7');
  const shownTotal = formatPrice(orderCost(12.35, 7, bps).total);
  await eventually(() => page.getByTestId('order-total').innerText(), shownTotal);
  await placeOrder(page, { side: 'Buy', type: 'Market', amount: 7 });
  await toastText(page, 'Order Filled');
  const [bought] = await db<{ cost: string }>(`select value + buyer_fee as cost from trades where token_id = $1`, [
    token!.id,
  ]);
  expect(formatPrice(Number(bought!.cost))).toBe(shownTotal);

  await page.getByTestId('your-balance').filter({ hasText: '7 tokens' }).waitFor();
  await page.getByRole('button', { name: 'Sell', exact: true }).click();
  await page.locator('#order-amount').fill('3');
  await page.getByText('You receive').waitFor();
  const shownProceeds = formatPrice(orderCost(12.35, 3, bps).proceeds);
  await eventually(() => page.getByTestId('order-total').innerText(), shownProceeds);
  await placeOrder(page, { side: 'Sell', type: 'Market', amount: 3 });
  await toastText(page, 'Order Filled', /^Sold 3 /); // not the buy's, which may still be up
  const [sold] = await db<{ proceeds: string }>(
    `select t.value - t.seller_fee as proceeds from trades t join auth.users u on u.id = t.seller_id
      where t.token_id = $1 and u.email = 'figures@e2e.repx.dev'`,
    [token!.id],
  );
  expect(formatPrice(Number(sold!.proceeds))).toBe(shownProceeds);
});
