import type { Page } from 'playwright-core';
import type { SupabaseClient } from '@supabase/supabase-js';
import { DEMO_ACCOUNTS } from '../server/demo';
import { nodeClient, openScreen, shootBoth, signIn, startApp, type E2EApp } from './helpers/app';

jest.setTimeout(180_000);

/** More trades than one page of the Transactions tab holds. */
const BUYS = 30;

let app: E2EApp;
let page: Page;
let trader: SupabaseClient;
let sarah: string;
beforeAll(async () => {
  app = await startApp();
  trader = nodeClient(app);
  const { error } = await trader.auth.signInWithPassword(DEMO_ACCOUNTS.user);
  if (error) throw error;
  sarah = (await app.backend.db.query<{ id: string }>(`select id from tokens where username = 'sarahchen'`))[0]!.id;
  page = await (await app.newContext()).newPage();
  await signIn(page, app);
});
afterAll(() => app?.close());

const buyOne = async () => {
  const { error } = await trader.rpc('place_order', { p_token: sarah, p_side: 'buy', p_type: 'market', p_amount: 1 });
  expect(error).toBeNull();
};
/** The demo trader's trades, newest first, as the tab should list them (their own token has none). */
const tradeIds = async () =>
  (
    await app.backend.db.query<{ id: string }>(
      `select t.id::text from trades t join auth.users u on u.id in (t.buyer_id, t.seller_id)
       where u.email = $1 order by t.created_at desc, t.id desc`,
      [DEMO_ACCOUNTS.user.email],
    )
  ).map((r) => r.id);
const shownTrades = () => page.getByTestId('transaction-row');
const pager = () => page.getByText(/^\d+–\d+$/);
/** Waits for the pager to say `text` (a page's read is on its way until it does). */
const pagerSays = (text: string) => page.getByText(text, { exact: true }).waitFor();

test("the Transactions tab reads a page of the trader's trades, pages back, and takes a new trade live", async () => {
  for (let i = 0; i < BUYS; i++) await buyOne();
  const all = await tradeIds();
  expect(all.length).toBeGreaterThan(25);

  // Only the page is read: 26 trades, not the history.
  const asked: string[] = [];
  page.on('request', (r) => r.url().includes('/rest/v1/my_trades') && asked.push(r.url()));
  await openScreen(page, app, '/dashboard', 'portfolio');
  await page.getByTestId('holding-row').first().waitFor();
  // The holdings show without the trades: they are read when their tab opens.
  expect(asked).toEqual([]);
  await page.getByRole('tab', { name: 'Transactions' }).click();
  await shownTrades().nth(24).waitFor();
  await expect(shownTrades().count()).resolves.toBe(25);
  await expect(pager().innerText()).resolves.toBe('1–25');
  expect(asked.length).toBeGreaterThan(0);
  for (const url of asked) expect(new URL(url).searchParams.get('limit')).toBe('26');
  await shootBoth(page, 'dashboard-transactions');

  await page.getByRole('button', { name: 'Next' }).click();
  await pagerSays(`26–${all.length}`);
  await expect(shownTrades().count()).resolves.toBe(all.length - 25);
  expect(await page.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);

  await page.getByRole('button', { name: 'Previous' }).click();
  await pagerSays('1–25');
  const reads = asked.length;
  await buyOne();
  // The account's note reads the page again, with no click: the new trade joins it.
  await page.waitForResponse((r) => r.url().includes('/rest/v1/my_trades'), { timeout: 10_000 });
  expect(asked.length).toBeGreaterThan(reads);
  await expect(shownTrades().count()).resolves.toBe(25);
  await page.getByRole('button', { name: 'Next' }).click();
  await pagerSays(`26–${all.length + 1}`);
});
