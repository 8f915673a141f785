import path from 'node:path';
import { formatPrice } from '@repex/shared-ui/ui';
import { DEMO_ACCOUNTS } from '../server/demo';
import {
  SCREENSHOTS,
  eventually,
  feeOn,
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

test('two people in two browsers: one sells, the other buys; both screens follow live', async () => {
  const [sarah] = await app.backend.db.query<{ id: string }>(`select id from tokens where username = 'sarahchen'`);
  const tradingUrl = `${app.url}/trading/${sarah!.id}`;

  // The seller: the demo user, who holds 500 Sarah Chen tokens.
  const seller = await (await app.newContext()).newPage();
  await signIn(seller, app, DEMO_ACCOUNTS.user);
  await seller.goto(tradingUrl);
  await seller.getByTestId('your-balance').filter({ hasText: '500 tokens' }).waitFor();

  // The buyer: a new account, funded with $1,000 through the ledger (deposits are not a feature yet).
  const buyer = await (await app.newContext()).newPage();
  await signUp(buyer, app, { username: 'live_buyer', email: 'live.buyer@e2e.repx.dev', password: 'live-buyer-1' });
  await app.backend.db.query(
    `select private.record_deposit(id, 1000) from auth.users where email = 'live.buyer@e2e.repx.dev'`,
  );
  await buyer.goto(tradingUrl);
  await buyer.getByTestId('your-balance').filter({ hasText: '0 tokens' }).waitFor();
  await buyer.getByText(`with your ${formatPrice(1000)}`).waitFor();
  // Realtime presence: both people on this page are counted, on each screen.
  await seller.getByTestId('watchers').filter({ hasText: '2 watching now' }).waitFor();
  await buyer.getByTestId('watchers').filter({ hasText: '2 watching now' }).waitFor();

  // A third person watches the market.
  const watcher = await (await app.newContext()).newPage();
  await signIn(watcher, app, DEMO_ACCOUNTS.admin);
  await watcher.goto(`${app.url}/market`);
  const sarahRow = watcher.getByTestId('market-row').filter({ hasText: 'Sarah Chen' });
  await sarahRow.filter({ hasText: formatPrice(45.2) }).waitFor();

  // The seller offers 20 at $45.10, inside the spread (bid $45.02, ask $45.38): it rests, and
  // the buyer sees it arrive.
  await placeOrder(seller, { side: 'Sell', type: 'Limit', amount: 20, price: '45.10' });
  await expect(toastText(seller, 'Order Placed')).resolves.toEqual({
    title: 'Order Placed',
    description: `Your limit order to sell 20 Sarah Chen tokens at ${formatPrice(45.1)} is on the book.`,
    variant: 'default',
  });
  await seller.getByTestId('open-order').first().waitFor();
  let t0 = Date.now();
  await buyer
    .getByTestId('book-sell')
    .first()
    .filter({ hasText: formatPrice(45.1) })
    .waitFor({ timeout: 5000 });
  console.log(`the new ask reached the other browser in ${Date.now() - t0} ms`);

  // The buyer takes it at market: 20 x 45.10 = 902.00, plus the fee the exchange's settings say
  // (texts computed with the screens' own formatter, so only the figures are under test here).
  const value = 20 * 45.1;
  const fee = await feeOn(app, value);
  await placeOrder(buyer, { side: 'Buy', type: 'Market', amount: 20 });
  await expect(toastText(buyer, 'Order Filled')).resolves.toEqual({
    title: 'Order Filled',
    description: `Bought 20 Sarah Chen tokens at an average ${formatPrice(45.1)}, total ${formatPrice(value + fee)}.`,
    variant: 'default',
  });
  await buyer.getByTestId('your-balance').filter({ hasText: '20 tokens' }).waitFor();
  await buyer.getByText(`with your ${formatPrice(1000 - value - fee)}`).waitFor();

  // The seller's screen follows without a reload: price, tape, balance, no open order left.
  t0 = Date.now();
  await seller
    .getByTestId('token-price')
    .filter({ hasText: formatPrice(45.1) })
    .waitFor({ timeout: 5000 });
  console.log(`the trade reached the seller's screen in ${Date.now() - t0} ms`);
  await seller.getByTestId('your-balance').filter({ hasText: '480 tokens' }).waitFor();
  await seller.getByRole('tab', { name: 'Recent Trades' }).click();
  const sale = new RegExp(`${literally(formatPrice(45.1))}\\s+20`);
  await eventually(async () => sale.test(await seller.getByTestId('recent-trade').first().innerText()), true);
  await eventually(() => seller.getByTestId('open-order').count(), 0);
  await seller.screenshot({ path: path.join(SCREENSHOTS, 'trading-after-sale-1280.png'), fullPage: true });
  // The market screen followed too, without a reload: Sarah Chen now trades at $45.10.
  await sarahRow.filter({ hasText: formatPrice(45.1) }).waitFor({ timeout: 5000 });
  await watcher.close();

  // The buyer's dashboard shows the new holding and its P&L; the seller's wallet the fee.
  await buyer.goto(`${app.url}/dashboard`);
  const row = buyer.getByTestId('holding-row').filter({ hasText: 'Sarah Chen' });
  await row.waitFor();
  // Tokens, average cost with the fee, price, value, P&L.
  const figures = [formatPrice((value + fee) / 20), formatPrice(45.1), formatPrice(value), `-${formatPrice(fee)}`];
  await expect(row.innerText()).resolves.toMatch(new RegExp(`20[\\s\\S]*${figures.map(literally).join('[\\s\\S]*')}`));
  await seller.goto(`${app.url}/wallet`);
  await seller
    .getByTestId('available-balance')
    .filter({ hasText: formatPrice(2450 + value - fee) })
    .waitFor();
  await buyer.close();
  await seller.close();
});

test('an open order can be cancelled from the trading screen; a refused order says why', async () => {
  const [emma] = await app.backend.db.query<{ id: string }>(`select id from tokens where username = 'emmafitness'`);
  const page = await (await app.newContext()).newPage();
  await signIn(page, app, DEMO_ACCOUNTS.user);
  await page.goto(`${app.url}/trading/${emma!.id}`);
  await page.getByTestId('your-balance').filter({ hasText: '200 tokens' }).waitFor();
  // The panel's settings are read too before counting (on a loaded machine they came after the balance).
  await page.getByRole('region', { name: 'Place order' }).getByText('Fee (2%)').waitFor();

  // What placing an order costs the screen in reads: the quote while it is composed; then the
  // order's market event carries the book, and the screen reads the user's orders, cash and tokens,
  // no more (the panel is empty again, so nothing is quoted).
  const reads: string[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/rest/v1/') && !url.pathname.endsWith('/rpc/place_order')) reads.push(url.pathname);
  });
  await placeOrder(page, { side: 'Sell', type: 'Limit', amount: 50, price: '99.00' });
  await page.getByTestId('open-order').first().waitFor();
  await page.getByTestId('your-balance').filter({ hasText: '150 tokens' }).waitFor(); // 50 held back by the order
  await page.waitForTimeout(1500); // time for any further read, were there one
  expect(reads.length).toBeGreaterThan(0);
  expect(reads.length <= 4 ? 'at most 4 reads' : reads.join(', ')).toBe('at most 4 reads');
  page.removeAllListeners('request');

  // Edit: the order is replaced at its new terms; a refused change leaves it as it was.
  await page.getByTestId('open-order').first().getByRole('button', { name: 'Edit' }).click();
  const edit = page.getByRole('dialog', { name: /^Edit Order #\d+$/ });
  await edit.locator('#edit-order-price').fill('0');
  await edit.getByRole('button', { name: 'Save Changes' }).click();
  await edit.getByText('A limit order needs a price above $0.00.').waitFor();
  await edit.locator('#edit-order-amount').fill('40');
  await edit.locator('#edit-order-price').fill('98.50');
  await edit.getByRole('button', { name: 'Save Changes' }).click();
  await expect(toastText(page, 'Order Changed')).resolves.toEqual({
    title: 'Order Changed',
    description: `Your limit order to sell 40 Emma Rodriguez tokens at ${formatPrice(98.5)} is on the book.`,
    variant: 'default',
  });
  await page
    .getByTestId('open-order')
    .filter({ hasText: formatPrice(98.5) })
    .filter({ hasText: '40' })
    .waitFor();
  await expect(page.getByTestId('open-order').count()).resolves.toBe(1);
  await page.getByTestId('your-balance').filter({ hasText: '160 tokens' }).waitFor();
  await page.screenshot({ path: path.join(SCREENSHOTS, 'order-edited-1280.png'), fullPage: true });
  await page.getByTestId('open-order').first().getByRole('button', { name: 'Cancel' }).click();
  // By title: the placing's toast may still be up when the balance comes back.
  await toastText(page, 'Order Cancelled');
  await page.getByTestId('your-balance').filter({ hasText: '200 tokens' }).waitFor();

  // A limit buy beyond the cash the form shows is held back before it is sent.
  await page.getByRole('button', { name: 'Buy', exact: true }).click();
  await page.getByRole('button', { name: 'Limit', exact: true }).click();
  await page.locator('#order-amount').fill('1000');
  await page.locator('#order-limit').fill('30.00');
  await page
    .getByText(
      /^Insufficient funds: this order needs \$30,600\.00 \(value \+ 2% fee\) and you have \$[\d,.]+ available\.$/,
    )
    .waitFor();
  await expect(page.getByRole('button', { name: 'Place Buy Order' }).isDisabled()).resolves.toBe(true);
  // One the cash covers, until the cash goes elsewhere between the confirmation and the click (a
  // withdrawal from another session): the database refuses, and the toast says why.
  await page.locator('#order-amount').fill('10');
  await page.getByRole('button', { name: 'Place Buy Order' }).click();
  const confirm = page.getByRole('region', { name: 'Confirm order' });
  await confirm.waitFor();
  await app.backend.db.query(
    `select private.record_withdrawal(c.user_id, c.available - 100)
       from cash_accounts c join auth.users u on u.id = c.user_id where u.email = $1`,
    [DEMO_ACCOUNTS.user.email],
  );
  await confirm.getByRole('button', { name: 'Confirm Buy' }).click();
  await expect(toastText(page, 'Order Failed')).resolves.toEqual({
    title: 'Order Failed',
    description: 'Insufficient funds: this order needs $306.00 (value + 2% fee) and you have $100.00 available.',
    variant: 'destructive',
  });
  await page.close();
});

test('the dashboard lists every open order: one cancelled, one edited, then the rest at once, the funds back, the history kept', async () => {
  const email = 'all.orders@e2e.repx.dev';
  const page = await (await app.newContext({ width: 390 })).newPage();
  await signUp(page, app, { username: 'all_orders', email, password: 'all-orders-1' });
  const db = app.backend.db;
  const [{ id: me }] = (await db.query<{ id: string }>('select id from auth.users where email = $1', [email])) as [
    { id: string },
  ];
  await db.query('select private.record_deposit($1, 1000)', [me]);
  const tokens = await db.query<{ id: string; username: string }>(
    `select id, username from tokens where username in ('sarahchen', 'marcusj') order by username`,
  );
  // Resting bids far below the market, as a limit order that does not fill at once leaves them.
  for (const [i, t] of tokens.entries())
    await db.query(`select private.rest_order($1, $2, 'buy', $3, $4)`, [me, t.id, 5 + i, 10 + i]);
  const reserved = async () =>
    Number(
      (await db.query<{ reserved: string }>('select reserved from cash_accounts where user_id = $1', [me]))[0]!
        .reserved,
    );
  expect(await reserved()).toBeGreaterThan(0);

  await page.reload();
  await page.getByRole('tab', { name: 'Orders', exact: true }).click();
  const rows = page.getByTestId('open-order-row');
  await rows.nth(1).waitFor();
  await page.getByText('2 orders on the book.').waitFor();
  await expect(rows.first().innerText()).resolves.toMatch(/Sarah Chen[\s\S]*Buy[\s\S]*\$6\.00[\s\S]*11/);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'open-orders-390.png') });

  await rows.first().getByRole('button', { name: 'Cancel', exact: true }).click();
  await toastText(page, 'Order Cancelled');
  await page.getByText('1 order on the book.').waitFor();

  // Edit, as on the trading screen: the order is replaced at its new terms, and holds what they need.
  await rows.first().getByRole('button', { name: 'Edit', exact: true }).click();
  const edit = page.getByRole('dialog', { name: /^Edit Order #\d+$/ });
  await edit.locator('#edit-order-amount').fill('12');
  await edit.locator('#edit-order-price').fill('5.50');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'dashboard-edit-order-390.png') });
  await edit.getByRole('button', { name: 'Save Changes' }).click();
  await expect(toastText(page, 'Order Changed')).resolves.toEqual({
    title: 'Order Changed',
    description: `Your limit order to buy 12 Marcus Johnson tokens at ${formatPrice(5.5)} is on the book.`,
    variant: 'default',
  });
  await rows.filter({ hasText: formatPrice(5.5) }).waitFor();
  await expect(rows.first().innerText()).resolves.toMatch(/Marcus Johnson[\s\S]*Buy[\s\S]*\$5\.50[\s\S]*12/);
  await page.getByText('1 order on the book.').waitFor();
  expect(await reserved()).toBe(67.32); // 12 x $5.50 and the 2% fee

  await page.getByRole('button', { name: 'Cancel All', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Cancel All Orders' });
  await dialog.getByText('Cancel your 1 order on every token?').waitFor();
  await dialog.getByRole('button', { name: 'Cancel All Orders' }).click();
  await expect(toastText(page, 'Orders Cancelled')).resolves.toEqual({
    title: 'Orders Cancelled',
    description: '1 order cancelled; its funds are released.',
    variant: 'default',
  });
  await page
    .getByText('You have no open orders. A limit order that does not fill at once, or a stop, waits here.')
    .waitFor();
  expect(await reserved()).toBe(0);
  await expect(page.getByRole('button', { name: 'Cancel All', exact: true }).isDisabled()).resolves.toBe(true);
  // The history keeps them: nothing that left the book is just gone.
  await page.getByRole('button', { name: 'History', exact: true }).click();
  const past = page.getByTestId('order-history-row');
  await past.nth(1).waitFor();
  await past.nth(2).waitFor();
  await expect(past.allInnerTexts()).resolves.toEqual([
    expect.stringMatching(/Marcus Johnson[\s\S]*Buy[\s\S]*\$5\.50[\s\S]*0 of 12[\s\S]*Cancelled/),
    expect.stringMatching(/Sarah Chen[\s\S]*Buy[\s\S]*\$6\.00[\s\S]*0 of 11[\s\S]*Cancelled/),
    expect.stringMatching(/Marcus Johnson[\s\S]*Buy[\s\S]*\$5\.00[\s\S]*0 of 10[\s\S]*Cancelled/),
  ]);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'order-history-390.png') });
  await page.close();
});
