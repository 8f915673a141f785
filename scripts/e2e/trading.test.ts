import path from 'node:path';
import { formatPrice } from '@repex/shared-ui/ui';
import { DEMO_ACCOUNTS } from '../../supabase/server/demo';
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
  await expect(toastText(seller)).resolves.toEqual({
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
  await expect(toastText(buyer)).resolves.toEqual({
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

  await placeOrder(page, { side: 'Sell', type: 'Limit', amount: 50, price: '99.00' });
  await page.getByTestId('open-order').first().waitFor();
  await page.getByTestId('your-balance').filter({ hasText: '150 tokens' }).waitFor(); // 50 held back by the order
  await page.getByTestId('open-order').first().getByRole('button', { name: 'Cancel' }).click();
  // By title: the placing's toast may still be up when the balance comes back.
  await expect(toastText(page, 'Order Cancelled')).resolves.toMatchObject({ title: 'Order Cancelled' });
  await page.getByTestId('your-balance').filter({ hasText: '200 tokens' }).waitFor();

  // A limit buy beyond the cash the form shows is held back before it is sent.
  await page.getByRole('button', { name: 'Buy', exact: true }).click();
  await page.getByRole('button', { name: 'Limit', exact: true }).click();
  await page.locator('#order-amount').fill('1000');
  await page.locator('#order-limit').fill('30.00');
  await page.getByText('Not enough cash: this order needs $30,600.00 with the fee.').waitFor();
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
