import path from 'node:path';
import type { Page } from 'playwright-core';
import { formatPrice } from '@repex/shared-ui/ui';
import { orderCost } from '../mf-trading/src/trading/order/orderMath';
import { SCREENSHOTS, eventually, signUp, startApp, toastText, type E2EApp } from './helpers/app';

jest.setTimeout(240_000);

let app: E2EApp;
let sarah: string;
let feeBps: number;
beforeAll(async () => {
  app = await startApp();
  const [row] = await app.backend.db.query<{ id: string }>(`select id from tokens where username = 'sarahchen'`);
  sarah = row!.id;
  const [settings] = await app.backend.db.query<{ fee_bps: number }>('select fee_bps from exchange_settings');
  feeBps = settings!.fee_bps;
});
afterAll(() => app?.close());

/** A new account at `width` with $2,000 and 200 Sarah Chen tokens, on Sarah Chen's trading screen. */
async function trader(name: string, width: number): Promise<{ page: Page; id: string }> {
  const page = await (await app.newContext({ width })).newPage();
  const email = `${name}@e2e.repx.dev`;
  await signUp(page, app, { username: name, email, password: `${name}-password-1` });
  const [user] = await app.backend.db.query<{ id: string }>('select id from auth.users where email = $1', [email]);
  await app.backend.db.query('select private.record_deposit($1, 2000)', [user!.id]);
  await app.backend.db.query('select private.issue_tokens($1, $2, 200)', [sarah, user!.id]);
  await page.goto(`${app.url}/trading/${sarah}`);
  await page.getByTestId('your-balance').filter({ hasText: '200 tokens' }).waitFor();
  return { page, id: user!.id };
}

/** The other side's orders that an order now meets, best first: the book as the engine walks it. */
async function walk(side: 'buy' | 'sell', amount: number) {
  const rows = await app.backend.db.query<{ price: string; open: string }>(
    `select price, amount - filled as open from orders where token_id = $1 and side = $2 and status = 'open'
      order by case when side = 'buy' then -price else price end, created_at, id`,
    [sarah, side === 'buy' ? 'sell' : 'buy'],
  );
  let left = amount;
  let cents = 0;
  const prices: number[] = [];
  for (const r of rows) {
    if (left === 0) break;
    const n = Math.min(left, Number(r.open));
    cents += Math.round(Number(r.price) * 100) * n;
    prices.push(Number(r.price));
    left -= n;
  }
  return { ...orderCost(cents / 100, 1, feeBps), best: prices[0]!, worst: prices[prices.length - 1]! };
}

const panel = (page: Page) => page.getByRole('region', { name: 'Place order' });
const lastOrder = async (userId: string) =>
  (
    await app.backend.db.query<{ filled: number; filled_value: string; fees_paid: string; status: string }>(
      'select filled, filled_value, fees_paid, status from orders where user_id = $1 order by id desc limit 1',
      [userId],
    )
  )[0]!;

describe.each([1280, 390])('the order panel at %i px', (width) => {
  let page: Page;
  let id: string;
  beforeAll(async () => {
    ({ page, id } = await trader(`panel${width}`, width));
  });
  const amount = () => page.locator('#order-amount');
  const button = (side: 'Buy' | 'Sell') => page.getByRole('button', { name: `Place ${side} Order` });

  test('the first screen shows the price and the chart; on a phone Buy and Sell stay at its foot', async () => {
    const bar = page.getByRole('button', { name: 'Buy Sarah Chen' });
    const chart = page.getByRole('img', { name: /^Hourly price chart/ });
    await page.evaluate(() => window.scrollTo(0, 0));
    await chart.waitFor();
    const height = page.viewportSize()!.height;
    const box = (await chart.boundingBox())!;
    expect(box.y).toBeLessThan(height);
    if (width === 1280) {
      await expect(bar.isVisible()).resolves.toBe(false);
      return;
    }
    const buy = (await bar.boundingBox())!;
    expect(buy.y + buy.height).toBeLessThanOrEqual(height);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'trading-first-screen-390.png') });
    await page.getByRole('button', { name: 'Sell Sarah Chen' }).click();
    await expect(page.getByRole('button', { name: 'Sell', exact: true }).getAttribute('aria-pressed')).resolves.toBe(
      'true',
    );
    await eventually(async () => {
      const b = await panel(page).boundingBox();
      return !!b && b.y >= 0 && b.y < height / 2;
    }, true);
  });

  test("the header's reputation score is the one its breakdown adds up to", async () => {
    const header = await page.getByTestId('stat-Reputation Score').innerText();
    await page.getByText('How is the reputation score computed?').click();
    const explained = page.getByTestId('reputation-breakdown-score');
    await explained.waitFor();
    await expect(explained.innerText()).resolves.toBe(header.replace('/', ' / '));
    await explained.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SCREENSHOTS, `reputation-breakdown-${width}.png`) });
    await page.getByText('How is the reputation score computed?').click();
    await page.evaluate(() => window.scrollTo(0, 0));
  });

  test('what is typed stays as typed: 1.5 and -5 are errors beside the field, never 15 or 5', async () => {
    await page.getByRole('button', { name: 'Buy', exact: true }).click();
    await expect(amount().inputValue()).resolves.toBe('');
    await expect(panel(page).getByRole('alert').count()).resolves.toBe(0);
    await amount().pressSequentially('1.5');
    await expect(amount().inputValue()).resolves.toBe('1.5');
    await panel(page).getByText('Tokens are whole: enter 1 or 2 (not 1.5).').waitFor();
    await expect(button('Buy').isDisabled()).resolves.toBe(true);
    await amount().fill('');
    await amount().pressSequentially('-5');
    await expect(amount().inputValue()).resolves.toBe('-5');
    await panel(page).getByText('The amount cannot be negative: enter a whole number of tokens.').waitFor();
    await expect(button('Buy').isDisabled()).resolves.toBe(true);
    await panel(page).screenshot({ path: path.join(SCREENSHOTS, `order-panel-typed-${width}.png`) });
    await amount().fill('2');
    await eventually(() => button('Buy').isEnabled(), true);
  });

  test('a market buy is estimated from the asks it meets, and fills at what was shown', async () => {
    const expected = await walk('buy', 5);
    await amount().fill('5');
    await eventually(() => page.getByTestId('order-total').innerText(), formatPrice(expected.total));
    expect(await page.getByTestId('order-value').innerText()).toBe(formatPrice(expected.value));
    await button('Buy').click();
    await page.getByRole('region', { name: 'Confirm order' }).getByRole('button', { name: 'Confirm Buy' }).click();
    await toastText(page, 'Order Filled');
    // The toast covers no control the trader uses next: the side toggle, or the phone's Buy/Sell bar.
    const toast = (await page.getByTestId('toast').first().boundingBox())!;
    const controls = [page.getByRole('group', { name: 'Side' })];
    if (width === 390) controls.push(page.getByRole('group', { name: 'Trade' }));
    for (const c of controls) {
      const box = (await c.boundingBox())!;
      const overlaps = !(toast.y + toast.height <= box.y || box.y + box.height <= toast.y);
      expect({ control: await c.getAttribute('aria-label'), overlaps }).toEqual({
        control: await c.getAttribute('aria-label'),
        overlaps: false,
      });
    }
    const placed = await lastOrder(id);
    expect(placed.filled).toBe(5);
    expect(formatPrice(Number(placed.filled_value) + Number(placed.fees_paid))).toBe(formatPrice(expected.total));
  });

  test('beyond the cash: a market buy shows what it will buy, a limit buy is held with the reason', async () => {
    await amount().fill('100000');
    const note = panel(page).getByText(/^Your cash covers \d+ tokens: this order buys \d+ tokens for \$[\d,.]+/);
    await note.waitFor();
    const [, covered] = (await note.innerText()).match(/covers (\d+) tokens/)!;
    const fill = await walk('buy', Number(covered));
    expect(fill.total).toBeLessThanOrEqual(2000);
    await eventually(() => page.getByTestId('order-total').innerText(), formatPrice(fill.total));
    await expect(button('Buy').isEnabled()).resolves.toBe(true);
    await panel(page).screenshot({ path: path.join(SCREENSHOTS, `order-panel-beyond-cash-${width}.png`) });
    await page.getByRole('button', { name: 'Limit', exact: true }).click();
    await panel(page)
      .getByText(/^Insufficient funds: this order needs \$[\d,.]+ \(value \+ 2% fee\)/)
      .waitFor();
    await expect(button('Buy').isDisabled()).resolves.toBe(true);
  });

  test('a limit sell far below the market is warned about, and the confirmation says it fills at the bids', async () => {
    await page.getByRole('button', { name: 'Sell', exact: true }).click();
    await page.getByRole('button', { name: 'Limit', exact: true }).click();
    await amount().fill('10');
    await page.locator('#order-limit').fill('1.00');
    const expected = await walk('sell', 10);
    const warning = page.getByTestId('limit-warning');
    await warning.getByText(/^Check your limit: \$1\.00 is [\d.]+% below the last price/).waitFor();
    await expect(warning.innerText()).resolves.toContain(`at once at the book's prices (${formatPrice(expected.best)}`);
    await eventually(() => page.getByTestId('order-total').innerText(), formatPrice(expected.value - expected.fee));
    await button('Sell').click();
    const confirm = page.getByRole('region', { name: 'Confirm order' });
    await expect(confirm.getByTestId('confirm-fills').innerText()).resolves.toContain(
      `10 tokens fill at once at ${formatPrice(expected.best)}`,
    );
    await expect(confirm.innerText()).resolves.toContain(`you receive ${formatPrice(expected.value - expected.fee)}`);
    await page.screenshot({ path: path.join(SCREENSHOTS, `order-panel-far-limit-${width}.png`) });
    await confirm.getByRole('button', { name: 'Confirm Sell' }).click();
    await toastText(page, 'Order Filled');
    const placed = await lastOrder(id);
    expect({ filled: placed.filled, value: Number(placed.filled_value) }).toEqual({
      filled: 10,
      value: expected.value,
    });
  });

  test("the user's own resting order is marked in the book", async () => {
    const [best] = await app.backend.db.query<{ ask: string }>(
      `select min(price) as ask from orders where token_id = $1 and side = 'sell' and status = 'open'`,
      [sarah],
    );
    const price = (Number(best!.ask) - 0.01).toFixed(2);
    await page.getByRole('button', { name: 'Sell', exact: true }).click();
    await page.getByRole('button', { name: 'Limit', exact: true }).click();
    await amount().fill('3');
    await page.locator('#order-limit').fill(price);
    await button('Sell').click();
    await page.getByRole('region', { name: 'Confirm order' }).getByRole('button', { name: 'Confirm Sell' }).click();
    await toastText(page, 'Order Placed');
    const mine = page.locator('[data-testid=book-sell][data-yours=true]');
    await mine.waitFor();
    await expect(mine.innerText()).resolves.toMatch(new RegExp(`\\$${price.replace('.', '\\.')}[\\s\\S]*you 3`));
    await page.getByTestId('open-order').first().getByRole('button', { name: 'Cancel' }).click();
    await mine.waitFor({ state: 'detached' });
  });

  test('the stop form says nothing is wrong before anything is typed, and names no price not entered', async () => {
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await expect(panel(page).getByRole('alert').count()).resolves.toBe(0);
    await amount().fill('10');
    await expect(page.getByTestId('order-plan').innerText()).resolves.not.toContain('$0.00');
    await page.getByRole('button', { name: 'At a limit', exact: true }).click();
    // The stop-limit's limit sits with its trigger, before the time in force.
    const trigger = (await page.locator('#order-stop').boundingBox())!;
    const limit = (await page.locator('#order-limit').boundingBox())!;
    const tif = (await page.locator('#order-tif').boundingBox())!;
    expect(trigger.y).toBeLessThan(limit.y);
    expect(limit.y).toBeLessThan(tif.y);
    await page.locator('#order-tif').selectOption({ label: 'Good til date' });
    await expect(panel(page).getByRole('alert').count()).resolves.toBe(0);
    await panel(page).getByRole('button', { name: '1 week' }).click();
    await expect(page.getByTestId('order-plan').innerText()).resolves.toMatch(/ It expires \w+ \d+, \d{4}, /);
    await panel(page).screenshot({ path: path.join(SCREENSHOTS, `order-panel-stop-${width}.png`) });
    await page.getByRole('button', { name: 'At market', exact: true }).click();
  });

  test('spend $50: the whole tokens it covers at the book, and the rest stays cash', async () => {
    await page.getByRole('button', { name: 'Buy', exact: true }).click();
    await page.getByRole('button', { name: 'Market', exact: true }).click();
    await page.getByRole('button', { name: 'Dollars', exact: true }).click();
    await amount().fill('50');
    const expected = await walk('buy', 1); // $50 covers one token at about $45 with the fee
    await expect(page.getByTestId('order-plan').innerText()).resolves.toMatch(/^Spend up to \$50\.00 on Sarah Chen/);
    await eventually(() => page.getByTestId('order-total').innerText(), formatPrice(expected.total));
    await panel(page).screenshot({ path: path.join(SCREENSHOTS, `order-panel-spend-${width}.png`) });
    const [before] = await app.backend.db.query<{ available: string }>(
      'select available from cash_accounts where user_id = $1',
      [id],
    );
    await button('Buy').click();
    await page.getByRole('region', { name: 'Confirm order' }).getByRole('button', { name: 'Confirm Buy' }).click();
    await toastText(page, 'Order Filled');
    const [after] = await app.backend.db.query<{ available: string }>(
      'select available from cash_accounts where user_id = $1',
      [id],
    );
    expect(Math.round((Number(before!.available) - Number(after!.available)) * 100) / 100).toBe(expected.total);
    expect((await lastOrder(id)).filled).toBe(1);
  });
});
