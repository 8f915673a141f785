import path from 'node:path';
import { DEMO_ACCOUNTS } from '../server/demo';
import { SCREENSHOTS, apiUser, openScreen, placeOrder, signIn, startApp, toastText, type E2EApp } from './helpers/app';

jest.setTimeout(240_000);

let app: E2EApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app?.close());

test('a sale beyond the band pauses the token for a volatility auction, the screen follows it live, and it reopens at one price', async () => {
  const db = app.backend.db;
  const [token] = await db.query<{ id: string; price: string }>(
    `select t.id, s.price from tokens t join private.token_stats s on s.token_id = t.id where t.username = 'marcusj'`,
  );
  const price = Number(token!.price);
  const cents = (x: number) => Math.round(x * 100) / 100;
  // Someone bids a quarter below the price: beyond the 20% band around its last trade's price.
  const low = cents(price * 0.75);
  const [bidder] = await db.query<{ user_id: string }>(
    `select user_id from cash_accounts c join auth.users u on u.id = c.user_id
      where u.email not in ($1, $2) and c.available > 1000 order by c.available desc limit 1`,
    [DEMO_ACCOUNTS.user.email, DEMO_ACCOUNTS.admin.email],
  );
  await db.query(`select private.rest_order($1, $2, 'buy', $3, 5)`, [bidder!.user_id, token!.id, low]);
  // A seller who holds what every bid within the band asks for, and 5 more.
  const within = await db.query<{ amount: string }>(
    `select coalesce(sum(amount), 0)::text as amount from order_book where token_id = $1 and side = 'buy' and price > $2`,
    [token!.id, low],
  );
  const selling = Number(within[0]!.amount) + 5;
  const seller = await apiUser(app, { username: 'dumper', email: 'dumper@example.com', password: 'dumper-pass-2026' });
  const [{ id: sellerId }] = (await db.query<{ id: string }>(
    `select id from auth.users where email = 'dumper@example.com'`,
  )) as [{ id: string }];
  const [holder] = await db.query<{ user_id: string }>(
    `select user_id from holdings where token_id = $1 and user_id <> private.issuance_account()
      order by amount - reserved - locked desc limit 1`,
    [token!.id],
  );
  await db.query(`select private.record_deposit($1, $2)`, [sellerId, cents(price * selling * 1.1)]);
  await db.query(
    `select private.settle_trade($1, $2, $3, $4, $5, 'buy', null, null, 0, false, now() - interval '10 minutes')`,
    [token!.id, sellerId, holder!.user_id, price, selling],
  );

  const page = await (await app.newContext({ width: 1280 })).newPage();
  await signIn(page, app);
  await openScreen(page, app, `/trading/${token!.id}`, 'trading');
  await page.getByRole('region', { name: 'Place order' }).waitFor();

  // The seller sells everything at 30% below: the bids within the band trade, the one beyond does not.
  const dump = cents(price * 0.7);
  const sold = await seller.rpc('place_order', {
    p_token: token!.id,
    p_side: 'sell',
    p_type: 'limit',
    p_amount: selling,
    p_price: dump,
  });
  expect(sold.error).toBeNull();
  expect(sold.data).toMatchObject({
    status: 'open',
    filled: selling - 5,
    resting: 5,
    auction_until: expect.any(String),
  });

  // The open screen says what is happening and until when, with the price it would open at now.
  const card = page.getByRole('region', { name: 'Volatility Auction' });
  await card.getByText(/^Ends in \d+m \d{2}s$/).waitFor();
  const indicative = card.getByTestId('auction-indicative');
  await expect(indicative.innerText()).resolves.toBe(`$${low.toFixed(2)}`);
  // A limit order joins it, and moves the price it would open at.
  await placeOrder(page, { side: 'Buy', type: 'Limit', amount: 5, price: cents(price * 0.77).toFixed(2) });
  await toastText(page, 'Order Placed');
  await card.getByText(`$${cents(price * 0.77).toFixed(2)}`, { exact: true }).waitFor();
  // A market order waits: the panel says why in the engine's words, before anything is sent.
  await page.getByRole('button', { name: 'Market', exact: true }).click();
  await page.locator('#order-amount').fill('1');
  await page
    .getByRole('region', { name: 'Place order' })
    .getByText(/is in a volatility auction until \d\d:\d\d:\d\d UTC/)
    .waitFor();
  await expect(page.getByRole('button', { name: 'Place Buy Order' }).isDisabled()).resolves.toBe(true);
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SCREENSHOTS, `volatility-auction-${width}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 900 });

  // The market marks it paused.
  const market = await (await app.newContext({ width: 390 })).newPage();
  await signIn(market, app);
  await openScreen(market, app, `/market?q=marcusj`, 'market');
  await market.getByTestId('volatility-badge').waitFor();
  await market.screenshot({ path: path.join(SCREENSHOTS, 'volatility-market-390.png') });
  await market.context().close();

  // The call ends: the scheduler uncrosses at one price, and the screen returns to continuous trading.
  await db.query(`update volatility_auctions set ends_at = now() where token_id = $1 and uncrossed_at is null`, [
    token!.id,
  ]);
  await card.waitFor({ state: 'detached', timeout: 20_000 });
  const opened = `$${cents(price * 0.77).toFixed(2)}`;
  await page.getByTestId('token-price').getByText(opened, { exact: true }).waitFor();
  const [done] = await db.query<{ uncross_price: string; volume: string }>(
    `select uncross_price::text, volume::text from volatility_auctions where token_id = $1`,
    [token!.id],
  );
  expect(done).toEqual({ uncross_price: cents(price * 0.77).toFixed(2), volume: '5' });
  // The integrity panel counts it.
  await page.reload();
  const integrity = page.getByRole('region', { name: 'Market Integrity' });
  await integrity
    .getByText('A sudden move paused trading for a volatility auction once in the last 30 days.')
    .waitFor();
  await integrity.scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SCREENSHOTS, 'volatility-reopened-1280.png') });
});
