import path from 'node:path';
import type { Page, Response } from 'playwright-core';
import { feePercent, maxAmount, orderCost } from '../mf-trading/src/trading/order/orderMath';
import { formatInteger, formatMoney, formatPrice } from '@repex/shared-ui/ui';
import { DEMO_ACCOUNTS } from '../server/demo';
import {
  SCREENSHOTS,
  openScreen,
  shootBoth,
  eventually,
  literally,
  signIn,
  startApp,
  type E2EApp,
} from './helpers/app';

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

/**
 * What a market buy of `amount` meets: others' asks (not the demo user's own), best first, within the
 * band around the last price; its value, the fee on the whole value, the total, and the prices met.
 */
async function walkAsks(token: string, amount: number, feeBps: number) {
  const asks = await app.backend.db.query<{ price: string; open: string }>(
    `select o.price, o.amount - o.filled as open from orders o join auth.users u on u.id <> o.user_id
      where o.token_id = $1 and o.side = 'sell' and o.status = 'open' and u.email = $2
        and o.price <= private.band_edge(private.last_price($1), 'buy')
      order by o.price, o.created_at, o.id`,
    [token, DEMO_ACCOUNTS.user.email],
  );
  let left = amount;
  let cents = 0;
  const met: number[] = [];
  for (const a of asks) {
    if (left === 0) break;
    const n = Math.min(left, Number(a.open));
    cents += Math.round(Number(a.price) * 100) * n;
    met.push(Number(a.price));
    left -= n;
  }
  const { value, fee, total } = orderCost(cents / 100, 1, feeBps);
  const range =
    met[0] === met[met.length - 1]
      ? formatPrice(met[0]!)
      : `${formatPrice(met[0]!)} to ${formatPrice(met[met.length - 1]!)}`;
  return { value, fee, total, best: met[0]!, range };
}

test('trading: the token of the URL, its book, tape and info, and every order-panel rule', async () => {
  const t = await one<{
    id: string;
    price: string;
    market_cap: string;
    holders: string;
    total_supply: string;
    available_supply: string;
  }>(`select * from market_tokens where username = 'sarahchen'`);
  await openScreen(page, app, '/market', 'market');
  await page
    .locator('[data-testid=market-row]', { hasText: 'Sarah Chen' })
    .getByRole('link', { name: 'Trade' })
    .click();
  await page.waitForURL(`**/trading/${t.id}`);
  await page.getByTestId('token-price').filter({ hasText: '$' }).waitFor();
  expect(await page.getByTestId('token-price').innerText()).toBe(formatPrice(Number(t.price)));
  expect(await stat('Market Cap')).toBe(formatMoney(Number(t.market_cap)));
  expect(await stat('Holders')).toBe(formatInteger(Number(t.holders)));
  await expect(page.getByTestId('price-chart').getAttribute('data-points')).resolves.toBe('24');
  // In words for a screen reader: the day's last hourly price is the token's price now.
  await expect(
    page.getByRole('img', { name: /^Hourly price chart: 24 points/ }).getAttribute('aria-label'),
  ).resolves.toMatch(new RegExp(`to ${literally(formatPrice(Number(t.price)))}, low \\$[\\d.,]+, high \\$[\\d.,]+$`));
  await eventually(() => rows('book-buy').count(), 5);
  await eventually(() => rows('book-sell').count(), 5);
  await page.getByRole('tab', { name: 'Recent Trades' }).click();
  await eventually(() => rows('recent-trade').count(), 5);
  const info = await page.getByLabel('Token Info').innerText();
  expect(info).toContain(formatInteger(Number(t.total_supply)));
  expect(info).toContain(formatInteger(Number(t.available_supply)));
  await eventually(() => page.getByTestId('your-balance').innerText(), '500 tokens');
  await shootBoth(page, 'trading');
  // The page says how the reputation score is computed, part by part.
  await page.getByText('How is the reputation score computed?').click();
  // The breakdown adds up to the score the header shows: one number, explained.
  const explained = page.getByTestId('reputation-breakdown-score');
  await explained.waitFor();
  await expect(explained.innerText()).resolves.toBe((await stat('Reputation Score')).replace('/', ' / '));
  await page.getByText('How is the reputation score computed?').click();

  const amount = page.locator('#order-amount');
  const total = () => page.getByTestId('order-total').innerText();
  const placeBuy = page.getByRole('button', { name: 'Place Buy Order' });
  await expect(page.getByRole('button', { name: 'Buy', exact: true }).getAttribute('aria-pressed')).resolves.toBe(
    'true',
  );
  await expect(page.getByRole('button', { name: 'Market', exact: true }).getAttribute('aria-pressed')).resolves.toBe(
    'true',
  );
  // The panel opens on no amount: nothing to place, and nothing said to be wrong yet.
  await expect(amount.inputValue()).resolves.toBe('');
  await expect(placeBuy.isDisabled()).resolves.toBe(true);
  await expect(page.getByTestId('order-plan').innerText()).resolves.toBe('Enter how many tokens to buy.');
  expect(await page.getByRole('alert').count()).toBe(0);
  const price = Number(t.price);
  // 40 at market: the asks the order meets, best first, and the fee on their whole value, as the database computes it.
  const { fee_bps: feeBps } = await one<{ fee_bps: number }>('select fee_bps from exchange_settings');
  const walk = await walkAsks(t.id, 40, feeBps);
  await amount.fill('40');
  await eventually(total, formatPrice(walk.total));
  expect(await page.getByTestId('order-value').innerText()).toBe(formatPrice(walk.value));
  expect(await page.getByText(`Fee (${feePercent(feeBps)})`).count()).toBe(1);
  expect(await page.getByTestId('order-fee').innerText()).toBe(formatPrice(walk.fee));
  expect(await page.getByTestId('order-fills-at').innerText()).toBe(walk.range);
  await page.getByLabel('Increase amount by 10').click();
  await expect(amount.inputValue()).resolves.toBe('50');
  for (let i = 0; i < 6; i++) await page.getByLabel('Decrease amount by 10').click();
  await expect(amount.inputValue()).resolves.toBe('1');
  // What is typed stays as typed: a word is an error beside the field, and holds the button.
  await amount.fill('abc');
  await expect(amount.inputValue()).resolves.toBe('abc');
  await page.getByText('Enter the number of tokens in digits, such as 10.').waitFor();
  await expect(placeBuy.isDisabled()).resolves.toBe(true);
  await page.getByRole('button', { name: '100%' }).click();
  // The buy maximum counts the fee: the most the $2,450 pays for at the best ask, value + 2%.
  const buyMax = maxAmount('buy', 2450, walk.best, 0, feeBps);
  expect(orderCost(walk.best, buyMax, feeBps).total).toBeLessThanOrEqual(2450);
  await expect(amount.inputValue()).resolves.toBe(String(buyMax));
  await page.getByRole('button', { name: '50%' }).click();
  await expect(amount.inputValue()).resolves.toBe(String(Math.floor(buyMax / 2)));
  // Beyond the cash a market buy is still sent, and the panel says what it will buy; a limit buy is held back.
  await amount.fill('100000');
  await page
    .getByText(/^Your cash covers \d+ tokens: this order buys \d+ tokens for \$[\d,.]+ and cancels the rest\.$/)
    .waitFor();
  await expect(placeBuy.isEnabled()).resolves.toBe(true);
  await page.getByRole('button', { name: 'Limit', exact: true }).click();
  await page.getByRole('button', { name: '100%' }).click();
  const limitMax = maxAmount('buy', 2450, price, 0, feeBps);
  await expect(amount.inputValue()).resolves.toBe(String(limitMax));
  await amount.fill(String(limitMax + 1));
  const needs = formatPrice(orderCost(price, limitMax + 1, feeBps).total);
  await page
    .getByText(
      `Insufficient funds: this order needs ${needs} (value + ${feePercent(feeBps)} fee) and you have $2,450.00 available.`,
    )
    .waitFor();
  await expect(placeBuy.isDisabled()).resolves.toBe(true);
  await amount.fill(String(limitMax));
  await page.getByText('Insufficient funds', { exact: false }).waitFor({ state: 'detached' });
  await eventually(() => placeBuy.isEnabled(), true);
  await page.getByRole('button', { name: 'Market', exact: true }).click();
  await page.getByRole('button', { name: 'Sell', exact: true }).click();
  await page.getByRole('button', { name: '25%' }).click();
  await expect(amount.inputValue()).resolves.toBe('125');
  await page.getByRole('button', { name: '100%' }).click();
  await expect(amount.inputValue()).resolves.toBe('500');
  await amount.fill('501');
  await page.getByText('You have 500 Sarah Chen tokens available to sell; this order needs 501.').waitFor();
  await expect(page.getByRole('button', { name: 'Place Sell Order' }).isDisabled()).resolves.toBe(true);
  await page.getByRole('button', { name: 'Limit', exact: true }).click();
  await expect(page.locator('#order-limit').getAttribute('step')).resolves.toBe('0.01');
  // Above every bid, the order rests whole: a sell shows what the seller receives, value - fee.
  await page.locator('#order-limit').fill('50');
  await amount.fill('100');
  await page.getByText('You receive').waitFor();
  await eventually(total, formatPrice(orderCost(50, 100, feeBps).proceeds));
  await page.locator('#order-limit').fill('0');
  await page.getByText('The limit price must be above $0.00.').waitFor();
  await page.locator('#order-limit').fill('50.50');
  await page.getByRole('button', { name: 'Place Sell Order' }).click();
  // Nothing is sent before the confirmation, which says what fills now, what waits, and the money.
  const confirm = page.getByRole('region', { name: 'Confirm order' });
  await expect(confirm.innerText()).resolves.toMatch(
    /Sell 100 Sarah Chen tokens at \$50\.50 or more: 100 tokens wait on the book at \$50\.50\. Value \$5,050\.00, fee \$101\.00, you receive \$4,949\.00 once all of it has filled\./,
  );
  await confirm.getByRole('button', { name: 'Back' }).click();
  await page.getByRole('button', { name: 'Place Sell Order' }).waitFor();
  // A market order's confirmation says how far from the last price it may trade (the database's band).
  await page.getByRole('button', { name: 'Market', exact: true }).click();
  await page.getByRole('button', { name: 'Place Sell Order' }).click();
  await expect(confirm.innerText()).resolves.toMatch(
    /best prices in the book within 20% of the last price, and what it cannot fill there is cancelled/,
  );
  await page.screenshot({ path: path.join(SCREENSHOTS, 'market-confirm-1280.png') });
  await page.setViewportSize({ width: 390, height: 900 });
  await confirm.scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SCREENSHOTS, 'market-confirm-390.png') });
  await page.setViewportSize({ width: 1280, height: 900 });
  await confirm.getByRole('button', { name: 'Back' }).click();
  await page.getByRole('button', { name: 'Place Sell Order' }).waitFor();

  // A malformed address is known not to be a token without asking the backend a question it refuses.
  const refused: string[] = [];
  const onResponse = (r: Response) => {
    if (r.status() >= 400) refused.push(`${r.status()} ${r.url()}`);
  };
  page.on('response', onResponse);
  for (const bad of ['00000000-0000-0000-0000-000000000000', 'not-a-token']) {
    await openScreen(page, app, `/trading/${bad}`, 'trading');
    await page.getByTestId('token-not-found').waitFor();
    await page.getByRole('link', { name: '← Back to Market' }).waitFor();
  }
  await page.waitForLoadState('networkidle');
  page.off('response', onResponse);
  expect(refused).toEqual([]);
});
