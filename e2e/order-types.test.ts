import path from 'node:path';
import type { Page } from 'playwright-core';
import { DEMO_ACCOUNTS } from '../server/demo';
import { formatInteger } from '@repex/shared-ui/ui';
import { SCREENSHOTS, eventually, placeOrder, signIn, startApp, toastText, type E2EApp } from './helpers/app';
import { sarahTrader } from './helpers/trader';

jest.setTimeout(180_000);

let app: E2EApp;
let tradingUrl: string;
beforeAll(async () => {
  app = await startApp();
  const [sarah] = await app.backend.db.query<{ id: string }>(`select id from tokens where username = 'sarahchen'`);
  tradingUrl = `${app.url}/trading/${sarah!.id}`;
});
afterAll(() => app?.close());

/** Every open order's Edit and Cancel lie within the Open Orders card, not past its edge. */
async function buttonsWithinCard(page: Page) {
  const card = (await page.getByRole('region', { name: 'Your Open Orders' }).boundingBox())!;
  for (const button of await page.getByTestId('open-order').getByRole('button').all()) {
    const box = (await button.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(card.x + card.width);
  }
}

/** A new account at `width` with $50,000 and 200 Sarah Chen tokens, on Sarah Chen's trading screen. */
const trader = (name: string, width: number) =>
  sarahTrader(app, tradingUrl, { name, width, cash: 50_000, tokens: 200 });

test("a stop waits off the book, another user's trade triggers it, and its owner is told on another screen", async () => {
  // The demo user (1280 px) protects 20 of their Sarah Chen tokens: sell at market if the price falls to $45.10.
  const owner = await (await app.newContext()).newPage();
  await signIn(owner, app, DEMO_ACCOUNTS.user);
  await owner.goto(tradingUrl);
  await owner.getByTestId('your-balance').filter({ hasText: '500 tokens' }).waitFor();
  await owner.getByRole('button', { name: 'Sell', exact: true }).click();
  await owner.getByRole('button', { name: 'Stop', exact: true }).click();
  await owner.locator('#order-amount').fill('20');
  await owner.locator('#order-stop').fill('45.10');
  await expect(owner.getByTestId('order-plan').innerText()).resolves.toBe(
    'If the price falls to $45.10, sell 20 Sarah Chen tokens at market.',
  );
  await owner
    .getByRole('region', { name: 'Place order' })
    .screenshot({ path: path.join(SCREENSHOTS, 'order-panel-stop-1280.png') });
  await owner.getByRole('button', { name: 'Place Sell Order' }).click();
  await owner.getByRole('region', { name: 'Confirm order' }).getByRole('button', { name: 'Confirm Sell' }).click();
  await expect(toastText(owner, 'Stop Placed')).resolves.toMatchObject({
    description: 'If the price falls to $45.10, sell 20 Sarah Chen tokens at market.',
  });
  const stopRow = owner.getByTestId('open-order').filter({ hasText: 'Stop $45.10' });
  await stopRow.filter({ hasText: 'then market' }).waitFor();
  await owner.screenshot({ path: path.join(SCREENSHOTS, 'stop-waiting-1280.png'), fullPage: true });
  await buttonsWithinCard(owner);

  // The owner moves on to the dashboard; another user, on a phone, sells 5 at market ($45.02, the best bid).
  await owner.getByRole('link', { name: 'Dashboard' }).first().click();
  await owner.waitForURL('**/dashboard');
  const other = await trader('stop_trigger', 390);
  await placeOrder(other, { side: 'Sell', type: 'Market', amount: 5 });
  await toastText(other, 'Order Filled');

  // That trade reached the trigger: the stop sold in the same transaction, and its owner is told.
  await expect(toastText(owner, 'Stop Triggered')).resolves.toMatchObject({
    description:
      'The price reached $45.10: your stop to sell 20 Sarah Chen tokens triggered and filled: 20 sold at an average $45.02.',
  });
  await owner.screenshot({ path: path.join(SCREENSHOTS, 'stop-triggered-notice-1280.png') });
  const [stop] = await app.backend.db.query<{ status: string; filled: number }>(
    `select status, filled from orders where stop_price = 45.10 order by id desc limit 1`,
  );
  expect(stop).toEqual({ status: 'filled', filled: 20 });
});

test('immediate or cancel fills part, fill or kill and post-only are refused in words, at 390 and 1280 px', async () => {
  for (const width of [390, 1280]) {
    const page = await trader(`terms_${width}`, width);
    // The best ask is $45.38: buy up to 400 there at once, cancel what is not offered.
    const [ask] = await app.backend.db.query<{ price: string; amount: string }>(
      `select price, amount from order_book b join tokens t on t.id = b.token_id
        where t.username = 'sarahchen' and side = 'sell' order by price limit 1`,
    );
    const offered = Number(ask!.amount);
    const price = Number(ask!.price).toFixed(2);
    await page.getByRole('button', { name: 'Buy', exact: true }).click();
    await page.getByRole('button', { name: 'Limit', exact: true }).click();
    await page.locator('#order-tif').selectOption({ label: 'Immediate or cancel' });
    await page.locator('#order-amount').fill(String(offered + 40));
    await page.locator('#order-limit').fill(price);
    await page
      .getByRole('region', { name: 'Place order' })
      .screenshot({ path: path.join(SCREENSHOTS, `order-panel-ioc-${width}.png`) });
    await placeOrder(page, {
      side: 'Buy',
      type: 'Limit',
      amount: offered + 40,
      price,
      timeInForce: 'Immediate or cancel',
    });
    await expect(toastText(page, 'Order Partly Filled')).resolves.toMatchObject({
      description: expect.stringMatching(
        /The remaining 40 tokens could not be filled at the moment and were cancelled\.$/,
      ),
    });

    // Fill or kill for more than the asks up to $45.56 hold: the panel says so in the engine's words
    // (its quote runs the engine's check) and holds the button; nothing is sent.
    const [depth] = await app.backend.db.query<{ amount: string }>(
      `select sum(amount) as amount from order_book b join tokens t on t.id = b.token_id
        where t.username = 'sarahchen' and side = 'sell' and price <= 45.56`,
    );
    const want = Number(depth!.amount) + 100;
    const panel = page.getByRole('region', { name: 'Place order' });
    const placeBuy = page.getByRole('button', { name: 'Place Buy Order' });
    await page.locator('#order-tif').selectOption({ label: 'Fill or kill' });
    await page.locator('#order-amount').fill(String(want));
    await page.locator('#order-limit').fill('45.56');
    await panel
      .getByText(
        `Fill or kill: ${formatInteger(Number(depth!.amount))} Sarah Chen tokens are offered at $45.56 or better right now, fewer than the ${want} asked, so nothing was placed.`,
      )
      .waitFor();
    await expect(placeBuy.isDisabled()).resolves.toBe(true);

    // Post-only at a price that would take the best ask: told, and held back.
    const [best] = await app.backend.db.query<{ price: string }>(
      `select min(price) as price from order_book b join tokens t on t.id = b.token_id where t.username = 'sarahchen' and side = 'sell'`,
    );
    const bestAsk = Number(best!.price).toFixed(2);
    await page.locator('#order-tif').selectOption({ label: 'Good til cancelled' });
    await page.locator('#order-amount').fill('10');
    await page.locator('#order-limit').fill('99.00');
    await page.getByLabel('Post-only (refuse it if it would trade at once)').check();
    await panel
      .getByText(
        `Post-only: at $99.00 this order would trade at once with the best ask at $${bestAsk}, so it was not placed. Choose a price below $${bestAsk}, or turn post-only off.`,
      )
      .waitFor();
    await expect(placeBuy.isDisabled()).resolves.toBe(true);
    await panel.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SCREENSHOTS, `post-only-refused-${width}.png`) });
  }
});

test('a take-profit and stop pair, placed on a phone, lists both orders, and cancelling one cancels both', async () => {
  const page = await trader('pair_owner', 390);
  await placeOrder(page, { side: 'Sell', type: 'Stop', amount: 50, trigger: '40.00', takeProfit: '50.00' });
  await expect(toastText(page, 'Orders Placed')).resolves.toMatchObject({
    description:
      'Sell 50 Sarah Chen tokens at $50.00 or more (take profit). If the price falls to $40.00 first, sell them at market instead (stop). Whichever happens first cancels the other.',
  });
  const rows = page.getByTestId('open-order');
  await rows.filter({ hasText: 'Take profit $50.00' }).waitFor();
  await rows.filter({ hasText: 'Stop $40.00' }).waitFor();
  await rows.first().scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SCREENSHOTS, 'pair-open-orders-390.png') });
  await buttonsWithinCard(page);
  await rows.filter({ hasText: 'Stop $40.00' }).getByRole('button', { name: 'Cancel' }).click();
  await toastText(page, 'Order Cancelled');
  await eventually(() => rows.count(), 0);
  await page.getByTestId('your-balance').filter({ hasText: '200 tokens' }).waitFor();
});

test('the chart switches between the line and candles of each interval, keeps the choice in the address, and follows trades', async () => {
  for (const width of [1280, 390]) {
    const page = await trader(`candles_${width}`, width);
    const chart = page.getByRole('group', { name: 'Chart' });
    // The line's ranges: a week of hourly closes, then back to the spec's 24 hours.
    await chart.getByRole('button', { name: '1W', exact: true }).click();
    await page.getByRole('heading', { name: 'Price Chart (1 week, hourly)' }).waitFor();
    await page.waitForURL(/[?&]range=1w/);
    await page.getByRole('img', { name: /^Hourly price chart: \d+ points/ }).waitFor();
    await chart.getByRole('button', { name: 'All', exact: true }).click();
    await page.getByRole('heading', { name: 'Price Chart (all time, daily)' }).waitFor();
    await page.getByRole('img', { name: /^Daily price chart: \d+ points?/ }).waitFor();
    await page.screenshot({ path: path.join(SCREENSHOTS, `line-all-${width}.png`) });
    await chart.getByRole('button', { name: 'Candles', exact: true }).click();
    await chart.getByRole('button', { name: '1h', exact: true }).click();
    await page.getByRole('heading', { name: 'Price Chart (candles, 1 hour)' }).waitFor();
    await page.waitForURL(/[?&]chart=1h/);
    const candles = page.getByTestId('candle-chart');
    await candles.waitFor();
    const hourly = Number(await candles.getAttribute('data-candles'));
    expect(hourly).toBeGreaterThan(0);
    await page.locator('[data-testid=candle-chart] canvas').first().waitFor();
    await page.screenshot({ path: path.join(SCREENSHOTS, `candles-1h-${width}.png`) });

    // One minute: a trade now makes this minute's candle appear, live.
    await chart.getByRole('button', { name: '1m', exact: true }).click();
    await page.waitForURL(/[?&]chart=1m/);
    const before = await app.backend.db.query<{ n: number }>(
      `select count(*)::int as n from candles c join tokens t on t.id = c.token_id
        where t.username = 'sarahchen' and c.seconds = 60`,
    );
    await placeOrder(page, { side: 'Sell', type: 'Market', amount: 1 });
    await toastText(page, 'Order Filled');
    const after = await app.backend.db.query<{ n: number }>(
      `select count(*)::int as n from candles c join tokens t on t.id = c.token_id
        where t.username = 'sarahchen' and c.seconds = 60`,
    );
    await page
      .locator(`[data-testid=candle-chart][data-candles="${Math.min(after[0]!.n, 300)}"]`)
      .waitFor({ timeout: 10_000 });
    expect(after[0]!.n).toBeGreaterThanOrEqual(before[0]!.n);

    // A reload keeps the choice; Line goes back to the 24-hour view.
    await page.reload();
    await page.getByRole('heading', { name: 'Price Chart (candles, 1 minute)' }).waitFor();
    await chart.getByRole('button', { name: 'Line', exact: true }).click();
    await page.getByRole('heading', { name: 'Price Chart (24h, hourly)' }).waitFor();
    expect(page.url()).not.toMatch(/chart=|range=/);

    // The book's depth sits under its levels.
    await page.getByTestId('depth-chart').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SCREENSHOTS, `depth-chart-${width}.png`) });
  }
});

test('a price alert set on the trading screen fires while its owner is on the dashboard, at 1280 and 390 px', async () => {
  for (const width of [1280, 390]) {
    const owner = await trader(`alerts_${width}`, width);
    // The alert's level: the lowest ask above the last price; the buyer takes every ask up to it.
    const [ask] = await app.backend.db.query<{ price: string; before: string }>(
      `with book as (select b.price, b.amount from order_book b join tokens t on t.id = b.token_id
                      where t.username = 'sarahchen' and b.side = 'sell'),
            last as (select price from market_tokens where username = 'sarahchen')
       select min(book.price) as price,
              (select coalesce(sum(amount), 0) from book where book.price <= (select price from last)) as before
         from book where book.price > (select price from last)`,
    );
    const level = Number(ask!.price).toFixed(2);
    const card = owner.getByRole('region', { name: 'Price Alerts' });
    await card.locator('#new-alert-kind').selectOption('above');
    await card.locator('#new-alert-value').fill(level);
    await card.getByRole('button', { name: 'Set Alert' }).click();
    await expect(toastText(owner, 'Alert Set')).resolves.toMatchObject({
      description: `When the price trades at or above $${level}.`,
    });
    await card
      .getByTestId('price-alert')
      .filter({ hasText: `At or above $${level}` })
      .waitFor();
    await card.scrollIntoViewIfNeeded();
    await owner.screenshot({ path: path.join(SCREENSHOTS, `alert-set-${width}.png`) });

    // The owner goes to the dashboard; someone else buys at the best ask.
    await owner.goto(`${app.url}/dashboard`);
    await owner.getByRole('tab', { name: 'Alerts' }).click();
    await owner.getByTestId('price-alert').filter({ hasText: 'Waiting' }).waitFor();
    const buyer = await trader(`alert_buyer_${width}`, 1280);
    await placeOrder(buyer, { side: 'Buy', type: 'Market', amount: Number(ask!.before) + 1 });
    await expect(toastText(owner, `Price alert: Sarah Chen at $${level}`)).resolves.toMatchObject({
      description: expect.stringMatching(
        new RegExp(`^Sarah Chen traded at \\$${level}, at or above your alert at \\$${level}\\.`),
      ),
    });
    await owner
      .getByTestId('price-alert')
      .filter({ hasText: `Fired at $${level}` })
      .waitFor();
    await owner.screenshot({ path: path.join(SCREENSHOTS, `alert-fired-dashboard-${width}.png`) });
  }
});
