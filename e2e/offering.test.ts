import path from 'node:path';
import type { Page } from 'playwright-core';
import { formatInteger, formatPrice } from '@repex/shared-ui/ui';
import { DEMO_ACCOUNTS } from '../server/demo';
import { SCREENSHOTS, apiUser, nodeClient, signIn, startApp, toastText, type E2EApp } from './helpers/app';

jest.setTimeout(240_000);

let app: E2EApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app?.close());

/** A bid placed on the token's trading screen, as its offering panel takes it. */
async function bid(page: Page, price: string, amount: string) {
  const panel = page.getByTestId('offering-panel');
  await panel.locator('#bid-price').fill(price);
  await panel.locator('#bid-amount').fill(amount);
  await panel.getByRole('button', { name: 'Place Bid' }).click();
  await toastText(page, 'Bid Placed');
}

test('an approved token opens by batch auction: two users bid, the close gives both one price, the person sees vesting and fee share', async () => {
  // The window shortened to its least, a minute, as an admin may set it.
  const adminApi = nodeClient(app);
  await adminApi.auth.signInWithPassword(DEMO_ACCOUNTS.admin);
  expect((await adminApi.rpc('admin_update_settings', { p_changes: { offering_window_minutes: 1 } })).error).toBeNull();

  const person = { username: 'auction_person', email: 'auction.person@example.com', password: 'auction-2026' };
  const personApi = await apiUser(app, person);
  expect(
    (await personApi.rpc('apply_for_token', { p_display_name: 'Auction Person', p_category: 'Designer' })).error,
  ).toBeNull();
  const bidders = [
    { username: 'bidder_wide', email: 'bidder.wide@example.com', password: 'bidder-2026', width: 1280 },
    { username: 'bidder_phone', email: 'bidder.phone@example.com', password: 'bidder-2026', width: 390 },
  ];
  const pages: Page[] = [];
  for (const b of bidders) {
    const api = await apiUser(app, b);
    const id = (await api.auth.getUser()).data.user!.id;
    await app.backend.db.query('select private.record_deposit($1, 10000)', [id]);
    const page = await (await app.newContext({ width: b.width })).newPage();
    await signIn(page, app, b);
    pages.push(page);
  }
  const [wide, phone] = pages as [Page, Page];

  // The admin approves it from User Management.
  const admin = await (await app.newContext()).newPage();
  await admin.goto(`${app.url}/auth/nra`);
  await admin.fill('#admin-email', DEMO_ACCOUNTS.admin.email);
  await admin.fill('#admin-password', DEMO_ACCOUNTS.admin.password);
  await admin.getByRole('button', { name: 'Sign In' }).click();
  const row = admin.locator(`[data-testid="admin-user-row"][data-username="${person.username}"]`);
  await row.getByRole('button', { name: 'Approve' }).click();
  await admin
    .getByRole('dialog', { name: 'Approve token application' })
    .getByRole('button', { name: 'Approve and issue' })
    .click();
  await expect(toastText(admin, 'Token Issued')).resolves.toMatchObject({
    description: "Auction Person's offering is open for bids for 1 minute.",
  });
  const [token] = await app.backend.db.query<{ id: string }>(`select id from tokens where name = 'Auction Person'`);

  // On the market it is marked, with the time left; on its page, the offering panel takes bids.
  for (const page of pages) {
    await page.goto(`${app.url}/market?q=auction`);
    const marked = page.getByTestId('market-row').filter({ hasText: 'Auction Person' });
    await marked
      .getByTestId('auction-badge')
      .getByText(/^Auction · \d+s$/)
      .waitFor();
    await marked.screenshot({ path: path.join(SCREENSHOTS, `offering-market-${page.viewportSize()!.width}.png`) });
  }

  await wide.goto(`${app.url}/trading/${token!.id}`);
  await wide
    .getByTestId('offering-countdown')
    .getByText(/^Closes in \d+s$/)
    .waitFor();
  await bid(wide, '12', '600');
  await phone.goto(`${app.url}/trading/${token!.id}`);
  // A bid under the issue price is refused as it is typed, in the database's words.
  const phonePanel = phone.getByTestId('offering-panel');
  await phonePanel.locator('#bid-price').fill('1');
  await phonePanel
    .getByRole('alert')
    .getByText(/^Bids start at the issue price, \$\d+\.\d\d\.$/)
    .waitFor();
  await expect(phonePanel.getByRole('button', { name: 'Place Bid' }).isDisabled()).resolves.toBe(true);
  await phonePanel.screenshot({ path: path.join(SCREENSHOTS, 'offering-bid-refused-390.png') });
  await bid(phone, '11', '400');
  // Sealed bids: each sees only the indicative price and the total demand, live.
  for (const page of pages) {
    await page.getByTestId('offering-indicative').getByText(formatPrice(11)).waitFor();
    await page.getByTestId('offering-demand').getByText('1,000 tokens').waitFor();
  }
  await wide.getByTestId('my-bid').getByText('600 Auction Person tokens').waitFor();
  await wide.getByTestId('offering-panel').screenshot({ path: path.join(SCREENSHOTS, 'offering-panel-1280.png') });
  await phone.screenshot({ path: path.join(SCREENSHOTS, 'offering-trading-390.png'), fullPage: true });

  // The window closes; the scheduler settles it: both receive what they bid for, at one price.
  for (const [page, amount] of [
    [wide, 600],
    [phone, 400],
  ] as const) {
    await page
      .getByTestId('offering-allocation')
      .getByText(`You received ${formatInteger(amount)} Auction Person tokens at ${formatPrice(11)}`)
      .waitFor({ timeout: 120_000 });
    await page
      .getByTestId('your-balance')
      .getByText(`${formatInteger(amount)} tokens`)
      .waitFor();
  }
  await wide.getByTestId('offering-result').screenshot({ path: path.join(SCREENSHOTS, 'offering-result-1280.png') });
  await phone.screenshot({ path: path.join(SCREENSHOTS, 'offering-result-390.png'), fullPage: true });
  // Trading is open now, from the clearing price.
  await wide.locator('[aria-label="Place order"]').waitFor();

  // The admin offers what was not sold again; open trading screens turn to the new offering.
  await admin.reload();
  await admin
    .locator(`[data-testid="admin-user-row"][data-username="${person.username}"]`)
    .getByRole('button', { name: 'Details' })
    .click();
  await admin
    .getByRole('dialog', { name: `@${person.username}` })
    .getByRole('button', { name: 'Offer Unsold' })
    .click();
  const reoffer = admin.getByRole('dialog', { name: 'Offer Unsold Auction Person' });
  await reoffer.screenshot({ path: path.join(SCREENSHOTS, 'offering-reoffer-1280.png') });
  await reoffer.getByRole('button', { name: 'Open the Offering' }).click();
  await toastText(admin, 'Offering Opened');
  for (const page of pages) {
    const panel = page.getByTestId('offering-panel');
    await panel.getByText(`${formatInteger(799_000)} tokens`).waitFor();
    await panel.getByText(formatPrice(11)).first().waitFor(); // its lowest bid: the last price
  }
  await phone.getByTestId('offering-panel').screenshot({ path: path.join(SCREENSHOTS, 'offering-reoffer-390.png') });

  // The person: their allocation vesting, and their share of the offering's fees in the wallet.
  for (const width of [1280, 390]) {
    const page = await (await app.newContext({ width })).newPage();
    await signIn(page, app, person);
    await page.goto(`${app.url}/profile`);
    await page
      .getByTestId('profile-vesting')
      .getByText(`0 of ${formatInteger(200_000)}`)
      .waitFor();
    await page.goto(`${app.url}/wallet`);
    await page.getByLabel('Filter by kind').selectOption('Fee Share');
    await page.getByText(`Your share of the fees on 600 Auction Person at ${formatPrice(11)}`).waitFor();
    await page.getByText(`Your share of the fees on 400 Auction Person at ${formatPrice(11)}`).waitFor();
    await page.screenshot({ path: path.join(SCREENSHOTS, `offering-person-wallet-${width}.png`) });
    await page.context().close();
  }
});
