import path from 'node:path';
import type { Page, Response } from 'playwright-core';
import { feePercent, maxAmount, orderCost } from '../mf-trading/src/trading/order/orderMath';
import { formatInteger, formatMoney, formatPrice, formatSignedMoney } from '@repex/shared-ui/ui';
import { DEMO_ACCOUNTS } from '../server/demo';
import {
  SCREENSHOTS,
  eventually,
  literally,
  nodeClient,
  signIn,
  signUp,
  startApp,
  toastText,
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

async function shoot(name: string) {
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 900 });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-390.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
}

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

async function go(route: string, remote: string) {
  await page.goto(`${app.url}${route}`);
  await page.locator(`[data-remote="${remote}"]`).first().waitFor();
}

test('market: figures from the database, search, filter, sort in the URL, empty text', async () => {
  await go('/market', 'market');
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
  await shoot('market');

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

test('trading: the token of the URL, its book, tape and info, and every order-panel rule', async () => {
  const t = await one<{
    id: string;
    price: string;
    market_cap: string;
    holders: string;
    total_supply: string;
    available_supply: string;
  }>(`select * from market_tokens where username = 'sarahchen'`);
  await go('/market', 'market');
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
  await shoot('trading');
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
    await go(`/trading/${bad}`, 'trading');
    await page.getByTestId('token-not-found').waitFor();
    await page.getByRole('link', { name: '← Back to Market' }).waitFor();
  }
  await page.waitForLoadState('networkidle');
  page.off('response', onResponse);
  expect(refused).toEqual([]);
});

test('dashboard: portfolio, holdings with Buy and Sell, transactions, watchlist', async () => {
  await go('/dashboard', 'portfolio');
  await rows('holding-row').first().waitFor();
  await expect(rows('holding-row').count()).resolves.toBe(3);
  const holdings = await rows('holding-row').allInnerTexts();
  expect(holdings.join('\n')).toMatch(/Sarah Chen[\s\S]*500/);
  const sarah = await one<{ price: string }>(`select price from market_tokens where username = 'sarahchen'`);
  expect(holdings.find((h) => h.includes('Sarah Chen'))).toContain(formatPrice(Number(sarah.price) * 500));
  const headers = await page.locator('table[aria-label="Holdings"] th').allInnerTexts();
  expect(headers).toEqual(['Person', 'Tokens', 'Avg Price', 'Current Price', 'Value', 'P&L', 'Action']);
  for (const label of ['Total Portfolio Value', 'Total Invested', 'Unrealized P&L', 'Realized P&L']) {
    expect(await stat(label)).toMatch(/\$/);
  }
  await shoot('dashboard');
  await expect(page.getByRole('link', { name: 'Auto-Invest' }).getAttribute('href')).resolves.toBe('/auto-invest');
  await expect(page.getByRole('link', { name: 'Portfolio Analysis' }).getAttribute('href')).resolves.toBe(
    '/portfolio-analysis',
  );

  await page.getByRole('tab', { name: 'Transactions' }).click();
  const count = await one<{ n: string }>(
    `select count(*) as n from trades t join tokens k on k.id = t.token_id join auth.users u on u.id in (t.buyer_id, t.seller_id)
     where u.email = $1 and k.owner_id is distinct from u.id`,
    [DEMO_ACCOUNTS.user.email],
  );
  await expect(rows('transaction-row').count()).resolves.toBe(Number(count.n));
  expect(await page.locator('table[aria-label="Transactions"] th').allInnerTexts()).toEqual([
    'Type',
    'Person',
    'Tokens',
    'Price',
    'Total',
    'Date & Time',
  ]);

  await page.getByRole('tab', { name: 'Watchlist' }).click();
  await eventually(() => rows('watchlist-row').count(), 3);

  await page.getByRole('tab', { name: 'Holdings' }).click();
  await rows('holding-row').filter({ hasText: 'Sarah Chen' }).getByRole('link', { name: 'Sell' }).click();
  await page.waitForURL(/\/trading\/.+\?side=sell/);
  await page.locator('#order-amount').waitFor();
  await expect(page.getByRole('button', { name: 'Sell', exact: true }).getAttribute('aria-pressed')).resolves.toBe(
    'true',
  );
});

test('profile: the user, their token, tabs and reputation history', async () => {
  await go('/profile', 'portfolio');
  await page.getByRole('heading', { name: 'Alex Rivera' }).waitFor();
  await page.getByText('@alexrivera').first().waitFor();
  const token = await one<{ reputation_score: string; price: string; market_cap: string }>(
    `select * from market_tokens where username = 'alexrivera'`,
  );
  expect(await stat('Token Price')).toBe(formatPrice(Number(token.price)));
  expect(await stat('Market Cap')).toBe(formatMoney(Number(token.market_cap)));
  expect(await stat('Followers')).toBe('98,500');
  await page.getByText('Social Impact').waitFor();
  await page.getByRole('progressbar', { name: /Ownership/ }).waitFor();
  await shoot('profile');
  await page.getByRole('tab', { name: 'Achievements' }).click();
  await page.getByText('Top 10% Trader').waitFor();
  await page.getByRole('tab', { name: 'Analytics' }).click();
  await expect(page.getByTestId('history-bar').count()).resolves.toBe(12);
  // Share copies the link of the person's trading page.
  const alex = await one<{ id: string }>(`select id from tokens where username = 'alexrivera'`);
  await page.getByRole('button', { name: 'Share' }).click();
  const shared = await toastText(page);
  expect(shared.title).toMatch(/^(Link Copied|Share This Link)$/);
  expect(shared.description).toContain(`${app.url}/trading/${alex.id}`);
});

test('wallet: balance and history from the database', async () => {
  await go('/wallet', 'wallet');
  await page.getByTestId('available-balance').filter({ hasText: '$' }).waitFor();
  expect(await page.getByTestId('available-balance').innerText()).toBe('$2,450.00');
  await rows('wallet-row').first().waitFor();
  const n = await one<{ n: string }>(
    `select (select count(*) from wallet_transactions w join auth.users u on u.id = w.user_id where u.email = $1)
          + 2 * (select count(*) from trades t join auth.users u on u.id in (t.buyer_id, t.seller_id) where u.email = $1)
          + (select count(*) from trades t join auth.users u on u.id = t.creator_id where u.email = $1 and t.creator_share > 0) as n`,
    [DEMO_ACCOUNTS.user.email],
  );
  await expect(rows('wallet-row').count()).resolves.toBe(Number(n.n));
  expect(await page.locator('table[aria-label="Transaction History"] th').allInnerTexts()).toEqual([
    'Type',
    'Amount',
    'Date',
    'Status',
    'Balance',
  ]);
  // Newest first: the balance after the last movement is the balance.
  expect(await rows('wallet-row').first().locator('td').last().innerText()).toBe('$2,450.00');
  // The seeded deposits name their card and the withdrawal its bank account, as real ones do.
  expect(await rows('wallet-row').first().locator('td').first().innerText()).toMatch(
    /^Withdrawal\s+Checking •••• 0427$/,
  );
  expect(await rows('wallet-row').last().locator('td').first().innerText()).toMatch(/^Deposit\s+Card •••• 4242$/);
  await page.getByTestId('bank-account').filter({ hasText: 'Checking •••• 0427' }).waitFor();
  await shoot('wallet');
  // Profit & Loss: the database's figures for the demo user, and a chart of them.
  await page.getByRole('tab', { name: 'Profit & Loss' }).click();
  const pnl = await app.backend.db.transaction(async (tx) => {
    await tx.query(
      `select set_config('request.jwt.claim.sub', (select id::text from auth.users where email = $1), true)`,
      [DEMO_ACCOUNTS.user.email],
    );
    return (await tx.query<{ realized: string; unrealized: string }>('select realized, unrealized from my_pnl(1)'))[0]!;
  });
  await page.getByTestId('pnl-chart').waitFor();
  // The chart's box is there before its figures arrive: wait for the figures, then read them whole.
  await page.getByTestId('stat-Realized P&L').filter({ hasText: '$' }).waitFor();
  expect(await page.getByTestId('stat-Realized P&L').innerText()).toBe(formatSignedMoney(Number(pnl.realized)));
  expect(await page.getByTestId('stat-Unrealized P&L').innerText()).toBe(formatSignedMoney(Number(pnl.unrealized)));
  await shoot('wallet-pnl');
});

test("a new user's profile says their token is not yet issued; the order panel says what they lack", async () => {
  const context = await app.newContext();
  const fresh = await context.newPage();
  await signUp(fresh, app, { username: 'fresh_face', email: 'fresh@e2e.repx.dev', password: 'fresh-pass-1' });
  await fresh.getByText('You hold no tokens yet.').waitFor();
  await fresh.goto(`${app.url}/profile`);
  await fresh.getByTestId('token-application').getByText('Get your token').first().waitFor();
  // With no cash and no tokens yet, the order panel holds back both sides and says why.
  const sarah = await one<{ id: string }>(`select id from tokens where username = 'sarahchen'`);
  await fresh.goto(`${app.url}/trading/${sarah.id}`);
  await fresh.getByText('You have no cash to buy with: deposit some in your Wallet first.').waitFor();
  await expect(fresh.getByRole('button', { name: 'Place Buy Order' }).isDisabled()).resolves.toBe(true);
  await fresh.getByRole('button', { name: 'Sell', exact: true }).click();
  await fresh.getByText('You hold none of these tokens to sell.').waitFor();
  await expect(fresh.getByRole('button', { name: 'Place Sell Order' }).isDisabled()).resolves.toBe(true);
  await context.close();
});

test('admin dashboard: figures from the database and its four tabs', async () => {
  // A sign-up still waiting for its mailed code is listed, marked, and not counted as a user.
  const waiting = nodeClient(app);
  await waiting.auth.signUp({
    email: 'waiting@e2e.repx.dev',
    password: 'waiting-pass',
    options: { data: { username: 'e2e_waiting' } },
  });
  const context = await app.newContext();
  const admin = await context.newPage();
  await admin.goto(`${app.url}/auth/nra`);
  await admin.fill('#admin-email', DEMO_ACCOUNTS.admin.email);
  await admin.fill('#admin-password', DEMO_ACCOUNTS.admin.password);
  await admin.getByRole('button', { name: 'Sign In' }).click();
  await admin.locator('[data-remote="admin"]').first().waitFor();
  const users = await one<{ n: string }>(
    `select count(*) as n from profiles p join auth.users u on u.id = p.id
      where p.role <> 'system' and u.email_confirmed_at is not null`,
  );
  await admin.getByTestId('stat-Total Users').filter({ hasText: /\d/ }).waitFor();
  expect(await admin.getByTestId('stat-Total Users').innerText()).toBe(formatInteger(Number(users.n)));
  await expect(
    admin.locator('[data-testid="admin-user-row"][data-username="e2e_waiting"]').innerText(),
  ).resolves.toContain('Email not confirmed');
  const revenue = await one<{ r: string }>(
    `select coalesce(sum(buyer_fee + seller_fee - creator_share), 0) as r from trades where created_at > now() - interval '24 hours'`,
  );
  expect(await admin.getByTestId('stat-Revenue (24h)').innerText()).toBe(formatMoney(Number(revenue.r)));
  await eventually(() => admin.getByTestId('admin-user-row').count(), Number(users.n) + 1);
  for (const tab of ['User Management', 'Fraud Detection', 'Revenue Reports', 'System Settings']) {
    await admin.getByRole('tab', { name: tab }).click();
  }
  const fee = admin.locator('#setting-fee_bps');
  await fee.waitFor();
  await expect(fee.inputValue()).resolves.toBe('2');
  await admin.screenshot({ path: path.join(SCREENSHOTS, 'admin-1280.png'), fullPage: true });
  await context.close();
});
