import path from 'node:path';
import { formatPrice } from '@repex/shared-ui/ui';
import { SCREENSHOTS, apiUser, signIn, startApp, type E2EApp } from './helpers/app';

jest.setTimeout(180_000);

let app: E2EApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app?.close());

test("a token's person sees their share of a trade's fees in their wallet, at both widths", async () => {
  const person = { username: 'fee_person', email: 'fee.person@example.com', password: 'fee-person-2026' };
  const personApi = await apiUser(app, person);
  const personId = (await personApi.auth.getUser()).data.user!.id;
  const [token] = await app.backend.db.query<{ id: string; name: string }>(
    `insert into tokens (name, username, category, reputation_score, total_supply, issue_price, owner_id)
     values ('Fee Person', 'feeperson', 'Designer', 50, 10000, 10, $1) returning id, name`,
    [personId],
  );
  const seller = await apiUser(app, {
    username: 'fee_seller',
    email: 'fee.seller@example.com',
    password: 'fee-seller-2026',
  });
  const buyer = await apiUser(app, {
    username: 'fee_buyer',
    email: 'fee.buyer@example.com',
    password: 'fee-buyer-2026',
  });
  const sellerId = (await seller.auth.getUser()).data.user!.id;
  const buyerId = (await buyer.auth.getUser()).data.user!.id;
  await app.backend.db.query('select private.issue_tokens($1, $2, 100)', [token!.id, sellerId]);
  await app.backend.db.query('select private.record_deposit($1, 1000)', [buyerId]);
  const sell = { p_token: token!.id, p_side: 'sell', p_type: 'limit', p_amount: 10, p_price: 10 };
  expect((await seller.rpc('place_order', sell)).error).toBeNull();
  expect(
    (await buyer.rpc('place_order', { p_token: token!.id, p_side: 'buy', p_type: 'market', p_amount: 10 })).error,
  ).toBeNull();
  const [trade] = await app.backend.db.query<{ creator_share: string }>(
    'select creator_share from trades where token_id = $1',
    [token!.id],
  );
  expect(Number(trade!.creator_share)).toBe(0.8); // 20% of $2.00 + $2.00

  for (const width of [1280, 390]) {
    const page = await (await app.newContext({ width })).newPage();
    await signIn(page, app, person);
    await page.goto(`${app.url}/wallet`);
    await page.getByLabel('Filter by kind').selectOption('Fee Share');
    const row = page.getByText('Your share of the fees on 10 Fee Person at $10.00');
    await row.waitFor();
    await expect(page.getByTestId('available-balance').innerText()).resolves.toBe(formatPrice(0.8));
    await page.screenshot({ path: path.join(SCREENSHOTS, `fee-share-${width}.png`) });
    await page.context().close();
  }
});
