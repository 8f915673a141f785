import path from 'node:path';
import type { Page } from 'playwright-core';
import { formatInteger, formatMoney, formatPrice, formatSignedMoney } from '@repex/shared-ui/ui';
import { DEMO_ACCOUNTS } from '../server/demo';
import {
  SCREENSHOTS,
  openScreen,
  shootBoth,
  eventually,
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

test('dashboard: portfolio, holdings with Buy and Sell, transactions, watchlist', async () => {
  await openScreen(page, app, '/dashboard', 'portfolio');
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
  await shootBoth(page, 'dashboard');
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
  // The tab reads its page when it opens.
  await eventually(() => rows('transaction-row').count(), Number(count.n));
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
  await openScreen(page, app, '/profile', 'portfolio');
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
  await shootBoth(page, 'profile');
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
  await openScreen(page, app, '/wallet', 'wallet');
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
  await shootBoth(page, 'wallet');
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
  await shootBoth(page, 'wallet-pnl');
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
