import path from 'node:path';
import { formatPrice } from '@repex/shared-ui/ui';
import { DEMO_ACCOUNTS } from '../server/demo';
import {
  SCREENSHOTS,
  eventually,
  literally,
  placeOrder,
  signIn,
  signUp,
  startApp,
  toastText,
  type E2EApp,
} from './helpers/app';

jest.setTimeout(180_000);

let app: E2EApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app?.close());

test('someone trading against a resting order: its owner is told on whatever screen they are', async () => {
  const db = <T>(sql: string, params: unknown[] = []) => app.backend.db.query<T>(sql, params);
  const [token] = await db<{ id: string }>(
    `insert into tokens (name, username, category, reputation_score, total_supply, issue_price)
     values ('Notice Check', 'noticecheck', 'Designer', 50, 10000, 12) returning id`,
  );
  const tradingUrl = `${app.url}/trading/${token!.id}`;

  // The demo user (topped up: the test before leaves them $100) bids for 10 at $12.00 on an empty
  // book: the order rests. Then they go elsewhere.
  await db(`select private.record_deposit(id, 1000) from auth.users where email = $1`, [DEMO_ACCOUNTS.user.email]);
  const owner = await (await app.newContext({ width: 390 })).newPage();
  await signIn(owner, app, DEMO_ACCOUNTS.user);
  await owner.goto(tradingUrl);
  await owner.getByTestId('your-balance').filter({ hasText: '0 tokens' }).waitFor();
  await owner.getByText(/with your \$/).waitFor();
  await placeOrder(owner, { side: 'Buy', type: 'Limit', amount: 10, price: '12.00' });
  await toastText(owner, 'Order Placed');
  await owner.goto(`${app.url}/wallet`);
  await owner.getByTestId('available-balance').waitFor();

  // Someone else sells into the bid at market, 4 and then 6, from their own browser.
  const seller = await (await app.newContext()).newPage();
  await signUp(seller, app, { username: 'notice_seller', email: 'notice.seller@e2e.repx.dev', password: 'notice-1' });
  await db(`select private.issue_tokens($1, id, 10) from auth.users where email = 'notice.seller@e2e.repx.dev'`, [
    token!.id,
  ]);
  await seller.goto(tradingUrl);
  await seller.getByTestId('your-balance').filter({ hasText: '10 tokens' }).waitFor();
  await placeOrder(seller, { side: 'Sell', type: 'Market', amount: 4 });
  await expect(toastText(owner, 'Order Partly Filled')).resolves.toEqual({
    title: 'Order Partly Filled',
    description: `Your limit order to buy 10 Notice Check tokens at ${formatPrice(12)}: 4 bought so far, 6 still on the book.`,
    variant: 'default',
  });
  await owner.waitForTimeout(400); // the toast's entrance
  await owner.screenshot({ path: path.join(SCREENSHOTS, 'fill-notice-390.png') });
  await placeOrder(seller, { side: 'Sell', type: 'Market', amount: 6 });
  await expect(toastText(owner, 'Order Filled')).resolves.toEqual({
    title: 'Order Filled',
    description: `Your limit order to buy 10 Notice Check tokens at ${formatPrice(12)} has filled.`,
    variant: 'default',
  });
  await owner.setViewportSize({ width: 1280, height: 900 });
  await owner.waitForTimeout(400);
  await owner.screenshot({ path: path.join(SCREENSHOTS, 'fill-notice-1280.png') });
  // The seller's own market orders are told by the order panel, not as fills of a resting order.
  await expect(toastText(seller, 'Order Filled')).resolves.toMatchObject({
    description: expect.stringMatching(/^Sold 6 Notice Check tokens at an average/),
  });
  await owner.context().close();
  await seller.context().close();
});

test('a price chosen in the order book becomes a limit order at it, on the side that takes it', async () => {
  const [marcus] = await app.backend.db.query<{ id: string }>(`select id from tokens where username = 'marcusj'`);
  const page = await (await app.newContext()).newPage();
  await signUp(page, app, { username: 'book_picker', email: 'book.picker@e2e.repx.dev', password: 'book-picker-1' });
  await app.backend.db.query(
    `select private.record_deposit(id, 1000) from auth.users where email = 'book.picker@e2e.repx.dev'`,
  );
  await page.goto(`${app.url}/trading/${marcus!.id}`);
  await page.getByText(`with your ${formatPrice(1000)}`).waitFor();
  const limit = page.locator('#order-limit');

  // The seeded best ask: a buy at its price, typed in and ready for an amount.
  await page.getByRole('button', { name: `Buy at ${formatPrice(78.66)}` }).click();
  await expect(page.getByRole('button', { name: 'Buy', exact: true }).getAttribute('aria-pressed')).resolves.toBe(
    'true',
  );
  await expect(page.getByRole('button', { name: 'Limit', exact: true }).getAttribute('aria-pressed')).resolves.toBe(
    'true',
  );
  await expect(limit.inputValue()).resolves.toBe('78.66');
  await expect(limit.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
  await page.locator('#order-amount').fill('5');
  await page.getByRole('button', { name: 'Place Buy Order' }).click();
  await page.getByRole('region', { name: 'Confirm order' }).getByRole('button', { name: 'Confirm Buy' }).click();
  await expect(toastText(page, 'Order Filled')).resolves.toMatchObject({
    description: expect.stringMatching(
      `^Bought 5 Marcus Johnson tokens at an average ${literally(formatPrice(78.66))}`,
    ),
  });
  await page.getByTestId('your-balance').filter({ hasText: '5 tokens' }).waitFor();

  // On a phone the book is below the panel: the seeded best bid brings the panel, as a sell, into view.
  await page.setViewportSize({ width: 390, height: 844 });
  const bid = page.getByRole('button', { name: `Sell at ${formatPrice(78.04)}` });
  await bid.scrollIntoViewIfNeeded();
  await bid.click();
  await expect(limit.inputValue()).resolves.toBe('78.04');
  await expect(page.getByRole('button', { name: 'Sell', exact: true }).getAttribute('aria-pressed')).resolves.toBe(
    'true',
  );
  await eventually(async () => {
    const box = await page.getByRole('region', { name: 'Place order' }).boundingBox();
    return !!box && box.y < 844 && box.y + box.height > 0;
  }, true);
  // The buy left the panel empty: the sell is sized afresh.
  await page.locator('#order-amount').fill('5');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'book-pick-390.png') });
  await page.getByRole('button', { name: 'Place Sell Order' }).click();
  await page.getByRole('region', { name: 'Confirm order' }).getByRole('button', { name: 'Confirm Sell' }).click();
  // The buy's toast may still be up: the sell's is the one that says Sold.
  await expect(toastText(page, 'Order Filled', /^Sold /)).resolves.toMatchObject({
    description: expect.stringMatching(`^Sold 5 Marcus Johnson tokens at an average ${literally(formatPrice(78.04))}`),
  });
  await page.getByTestId('your-balance').filter({ hasText: '0 tokens' }).waitFor();
  await page.context().close();
});

test('an edit made while the order trades changes nothing, says so, and shows what is left', async () => {
  const db = <T>(sql: string, params: unknown[] = []) => app.backend.db.query<T>(sql, params);
  const [token] = await db<{ id: string }>(
    `insert into tokens (name, username, category, reputation_score, total_supply, issue_price)
     values ('Edit Race', 'editrace', 'Designer', 50, 10000, 12) returning id`,
  );
  const email = 'edit.race@e2e.repx.dev';
  const page = await (await app.newContext()).newPage();
  await signUp(page, app, { username: 'edit_race', email, password: 'edit-race-1' });
  await db(`select private.record_deposit(id, 1000) from auth.users where email = $1`, [email]);
  await page.goto(`${app.url}/trading/${token!.id}`);
  await page.getByText(`with your ${formatPrice(1000)}`).waitFor();
  await placeOrder(page, { side: 'Buy', type: 'Limit', amount: 10, price: '12.00' });
  await toastText(page, 'Order Placed');

  // The owner opens Edit with 10 left; before they save, the admin account sells 4 into the bid.
  await page.getByTestId('open-order').first().getByRole('button', { name: 'Edit' }).click();
  const edit = page.getByRole('dialog', { name: /^Edit Order #\d+$/ });
  await expect(edit.locator('#edit-order-amount').inputValue()).resolves.toBe('10');
  await edit.locator('#edit-order-price').fill('12.50');
  const taker = DEMO_ACCOUNTS.admin.email;
  await db(`select private.issue_tokens($1, id, 4) from auth.users where email = $2`, [token!.id, taker]);
  await app.backend.db.transaction(async (tx) => {
    await tx.query(
      `select set_config('request.jwt.claim.sub', (select id::text from auth.users where email = $1), true)`,
      [taker],
    );
    await tx.query(`select public.place_order($1, 'sell', 'market', 4, null)`, [token!.id]);
  });
  // The fill's notice first, so that the answer to Save is the toast left on screen.
  await toastText(page, 'Order Partly Filled');
  await edit.getByRole('button', { name: 'Save Changes' }).click();
  await expect(toastText(page, 'Order Not Changed')).resolves.toEqual({
    title: 'Order Not Changed',
    description: expect.stringMatching(
      /^Order #\d+ traded while you were changing it: 4 of 10 tokens are filled now, 6 left\. Nothing was changed\.$/,
    ),
    variant: 'destructive',
  });
  await expect(edit.isVisible()).resolves.toBe(false);
  // The order rests as it was, at $12.00, with what it has left.
  const row = page.getByTestId('open-order').filter({ hasText: formatPrice(12) });
  await row.filter({ hasText: '6 of 10' }).waitFor();
  await page.getByTestId('your-balance').filter({ hasText: '4 tokens' }).waitFor();
  await page.screenshot({ path: path.join(SCREENSHOTS, 'edit-race-1280.png'), fullPage: true });
  await page.close();
});
