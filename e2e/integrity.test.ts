import path from 'node:path';
import { DEMO_ACCOUNTS } from '../server/demo';
import { SCREENSHOTS, nodeClient, openScreen, signIn, startApp, type E2EApp } from './helpers/app';

jest.setTimeout(180_000);

let app: E2EApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app?.close());

test("a token's integrity panel reads its records in words, follows a halt, and leads to how the market is kept fair", async () => {
  const [sarah] = await app.backend.db.query<{ id: string }>(`select id from tokens where username = 'sarahchen'`);
  for (const width of [1280, 390]) {
    const page = await (await app.newContext({ width })).newPage();
    await signIn(page, app);
    await openScreen(page, app, `/trading/${sarah!.id}`, 'trading');
    const card = page.getByRole('region', { name: 'Market Integrity' });
    await card.getByText('Nothing unusual').waitFor();
    await card.getByText('Trading was not halted in the last 30 days.').waitFor();
    await card.getByText(/^The ten largest holders hold [\d.]+% of the supply/).waitFor();
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SCREENSHOTS, `integrity-${width}.png`) });
    await card.getByRole('link', { name: 'How we keep the market fair' }).click();
    await page.waitForURL('**/fair-market');
    await page.getByRole('heading', { name: 'Each token’s integrity, in public' }).waitFor();
    await page.screenshot({ path: path.join(SCREENSHOTS, `fair-market-${width}.png`), fullPage: true });
    await page.context().close();
  }
  // A halt: the panel says so, and asks for a look.
  const admin = nodeClient(app);
  expect((await admin.auth.signInWithPassword(DEMO_ACCOUNTS.admin)).error).toBeNull();
  const halt = { p_token: sarah!.id, p_halted: true, p_reason: 'News pending' };
  expect((await admin.rpc('admin_set_token_halt', halt)).error).toBeNull();
  const page = await (await app.newContext({ width: 1280 })).newPage();
  await signIn(page, app);
  await openScreen(page, app, `/trading/${sarah!.id}`, 'trading');
  const card = page.getByRole('region', { name: 'Market Integrity' });
  await card.getByText('Worth a look').waitFor();
  await card.getByText('Trading is halted now: News pending.').waitFor();
});
