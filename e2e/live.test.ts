import path from 'node:path';
import type { Page } from 'playwright-core';
import { formatMoney, formatPrice } from '@repex/shared-ui/ui';
import { DEMO_ACCOUNTS } from '../server/demo';
import { SCREENSHOTS, apiUser, signIn, signUp, startApp, type E2EApp } from './helpers/app';

jest.setTimeout(180_000);

let app: E2EApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app?.close());

/**
 * The reads a page makes from now on. The index card's reads are left out: it reads again when the
 * database records a new hour's level, which may fall within any test.
 */
function readsOf(page: Page): string[] {
  const reads: string[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/rest/v1/') && !/index_(levels|basket|method)/.test(url.pathname))
      reads.push(url.pathname);
  });
  return reads;
}

test("someone else's trade reaches the market, the trading screen and a holder's dashboard with no read", async () => {
  const [sarah] = await app.backend.db.query<{ id: string }>(`select id from tokens where username = 'sarahchen'`);
  // A holder of 10 Sarah Chen tokens, who only watches.
  const email = 'live.holder@e2e.repx.dev';
  const holderPage = await (await app.newContext({ width: 390 })).newPage();
  await signUp(holderPage, app, { username: 'live_holder', email, password: 'live-holder-1' });
  // Bought from the demo user at the last price, $45.20, so the price stays where it was.
  await app.backend.db.query(
    `select private.record_deposit(h.id, 1000),
            private.settle_trade($1, h.id, d.id, 45.20, 10, 'buy')
       from auth.users h, auth.users d where h.email = $2 and d.email = $3`,
    [sarah!.id, email, DEMO_ACCOUNTS.user.email],
  );
  await holderPage.goto(`${app.url}/dashboard`);
  const holding = holderPage.getByTestId('holding-row').filter({ hasText: 'Sarah Chen' });
  await holding.filter({ hasText: formatPrice(45.2) }).waitFor();

  // The admin watches the market at 1280 and Sarah Chen's trading screen.
  const admin = await app.newContext();
  const market = await admin.newPage();
  await signIn(market, app, DEMO_ACCOUNTS.admin);
  await market.goto(`${app.url}/market`);
  const row = market.getByTestId('market-row').filter({ hasText: 'Sarah Chen' });
  await row.filter({ hasText: formatPrice(45.2) }).waitFor();
  const trading = await admin.newPage();
  await trading.goto(`${app.url}/trading/${sarah!.id}`);
  await trading
    .getByTestId('token-price')
    .filter({ hasText: formatPrice(45.2) })
    .waitFor();
  await trading.getByRole('tab', { name: 'Recent Trades' }).click();
  await market.waitForTimeout(1000); // every first read done

  const reads = { market: readsOf(market), trading: readsOf(trading), dashboard: readsOf(holderPage) };
  // Someone else buys 5 at market from the seeded asks: the best is $45.38.
  const buyer = await apiUser(app, {
    username: 'live_taker',
    email: 'live.taker@e2e.repx.dev',
    password: 'live-taker-1',
  });
  await app.backend.db.query(
    `select private.record_deposit(id, 1000) from auth.users where email = 'live.taker@e2e.repx.dev'`,
  );
  const { error } = await buyer.rpc('place_order', {
    p_token: sarah!.id,
    p_side: 'buy',
    p_type: 'market',
    p_amount: 5,
  });
  expect(error).toBeNull();

  await row.filter({ hasText: formatPrice(45.38) }).waitFor({ timeout: 5000 });
  await trading
    .getByTestId('token-price')
    .filter({ hasText: formatPrice(45.38) })
    .waitFor({ timeout: 5000 });
  await trading
    .getByTestId('recent-trade')
    .first()
    .filter({ hasText: formatPrice(45.38) })
    .waitFor();
  // The holder's 10 tokens are worth 10 x $45.38 now.
  await holding.filter({ hasText: formatPrice(453.8) }).waitFor({ timeout: 5000 });
  await holderPage
    .getByText('Total Portfolio Value')
    .locator('..')
    .filter({ hasText: formatMoney(453.8) })
    .waitFor();
  // The market's totals moved as the database's own figures did.
  const [summary] = await app.backend.db.query<{ total_market_cap: string; volume_24h: string }>(
    'select total_market_cap, volume_24h from market_summary',
  );
  for (const [label, value] of [
    ['Total Market Cap', summary!.total_market_cap],
    ['24h Volume', summary!.volume_24h],
  ] as const) {
    await market
      .getByText(label)
      .locator('..')
      .filter({ hasText: formatMoney(Number(value)) })
      .waitFor();
  }
  await market.waitForTimeout(1500); // time for any read, were there one
  expect(reads).toEqual({ market: [], trading: [], dashboard: [] });

  await market.screenshot({ path: path.join(SCREENSHOTS, 'market-live-1280.png'), fullPage: true });
  await holderPage.screenshot({ path: path.join(SCREENSHOTS, 'dashboard-live-390.png'), fullPage: true });
  await trading.setViewportSize({ width: 390, height: 900 });
  await trading.screenshot({ path: path.join(SCREENSHOTS, 'trading-live-390.png'), fullPage: true });
  await admin.close();
  await holderPage.close();
});
