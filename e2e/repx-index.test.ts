import path from 'node:path';
import { formatLevel } from '@repex/shared-ui/ui';
import { SCREENSHOTS, apiUser, eventually, signIn, startApp, type E2EApp } from './helpers/app';

jest.setTimeout(180_000);

let app: E2EApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app?.close());

/** The index's level now, as the database has it: the latest basket at its members' last prices. */
const levelNow = async () =>
  formatLevel(
    Number(
      (await app.backend.db.query<{ level: string }>('select sum(units * price) as level from index_basket'))[0]!.level,
    ),
  );

test("the market shows the RepX index from the database's levels, and a trade in a member moves it live", async () => {
  for (const width of [1280, 390]) {
    const page = await (await app.newContext({ width })).newPage();
    await signIn(page, app);
    await page.goto(`${app.url}/market`);
    const card = page.getByRole('region', { name: 'RepX Index' });
    await card.getByTestId('index-chart').waitFor();
    await expect(card.getByTestId('index-level').innerText()).resolves.toBe(await levelNow());
    const members = await app.backend.db.query<{ name: string }>('select name from index_basket');
    await expect(card.getByRole('list', { name: 'Index members' }).getByRole('listitem').count()).resolves.toBe(
      members.length,
    );
    // The card lies within the screen's width.
    const box = (await card.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(width);
    await card.screenshot({ path: path.join(SCREENSHOTS, `repx-index-${width}.png`) });

    if (width === 390) {
      // Someone buys Sarah Chen at market: her price, and so the index, moves while the card is open.
      const before = await levelNow();
      const buyer = await apiUser(app, {
        username: 'index_buyer',
        email: 'index.buyer@example.com',
        password: 'index-buyer-2026',
      });
      const { data: user } = await buyer.auth.getUser();
      await app.backend.db.query('select private.record_deposit($1, 50000)', [user.user!.id]);
      const { data: token } = await buyer.from('tokens').select('id').eq('username', 'sarahchen').single();
      const { error } = await buyer.rpc('place_order', {
        p_token: token!.id,
        p_side: 'buy',
        p_type: 'market',
        p_amount: 500,
      });
      expect(error).toBeNull();
      const after = await levelNow();
      expect(after).not.toBe(before);
      await eventually(() => card.getByTestId('index-level').innerText(), after);
    }
  }
});
