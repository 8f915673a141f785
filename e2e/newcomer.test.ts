import type { Page } from 'playwright-core';
import { formatPrice } from '@repex/shared-ui/ui';
import { DEMO_ACCOUNTS } from '../server/demo';
import { feeOn, placeOrder, shootBoth, signIn, signUp, startApp, toastText, type E2EApp } from './helpers/app';

jest.setTimeout(240_000);

let app: E2EApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app?.close());

/** A real 1x1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

const money = async (page: Page, testId: string) => page.getByTestId(testId).innerText();

test("a newcomer deposits, buys, withdraws, gets their own token approved, and sees a second user's bid fill at its offering's close", async () => {
  const me = { username: 'nova_lee', email: 'nova@e2e.repx.dev', password: 'nova-pass-1' };
  const page = await (await app.newContext()).newPage();
  await signUp(page, app, me);

  // A new account's dashboard lists its first steps, none done yet.
  const steps = page.getByTestId('first-steps');
  await steps.getByText('0 of 4 done.').waitFor();
  await shootBoth(page, 'newcomer-0-first-steps');
  // Nothing held yet: the analysis says so instead of drawing a flat line on a ±$0.05 axis.
  await page.goto(`${app.url}/portfolio-analysis`);
  await page.getByText('Nothing held in this period: the value shows here once you hold cash or tokens.').waitFor();
  expect(await page.getByTestId('value-chart').count()).toBe(0);
  await page.goto(`${app.url}/dashboard`);
  await steps.waitFor();

  // Money in: Deposit Funds on the dashboard opens the wallet's deposit form.
  await page.getByRole('link', { name: 'Deposit Funds' }).click();
  const deposit = page.getByRole('dialog', { name: 'Deposit Funds' });
  // An amount that does not read as a number says so (it is not taken as missing).
  await deposit.locator('#deposit-amount').fill('1,000');
  await deposit.locator('#deposit-card').fill('4242 4242 4242 4242');
  await deposit.getByRole('button', { name: 'Deposit', exact: true }).click();
  await deposit.getByText('Write the amount as a plain number of dollars, like 1000.00.').waitFor();
  await deposit.locator('#deposit-amount').fill('1000');
  await shootBoth(page, 'newcomer-1-deposit');
  await deposit.getByRole('button', { name: 'Deposit', exact: true }).click();
  await page
    .getByTestId('available-balance')
    .filter({ hasText: formatPrice(1000) })
    .waitFor();
  await page.getByTestId('toast').filter({ hasText: 'Deposit Completed' }).waitFor();

  // A declined card says why and credits nothing.
  await page.getByRole('button', { name: 'Deposit', exact: true }).click();
  await page.locator('#deposit-amount').fill('50');
  await page.locator('#deposit-card').fill('4000 0000 0000 0002');
  await page
    .getByRole('dialog', { name: 'Deposit Funds' })
    .getByRole('button', { name: 'Deposit', exact: true })
    .click();
  // The dialog stays open with the card's answer, to try another card.
  const declined = page.getByRole('dialog', { name: 'Deposit Funds' });
  await declined.getByText('Your card was declined. Nothing was charged; try another card.').waitFor();
  await shootBoth(page, 'newcomer-1-deposit-declined');
  await page.getByTestId('wallet-row').filter({ hasText: 'Your card was declined.' }).waitFor();
  expect(await money(page, 'available-balance')).toBe(formatPrice(1000));
  await declined.getByRole('button', { name: 'Cancel' }).click();

  // Buy 10 Sarah Chen tokens at the market.
  const [sarah] = await app.backend.db.query<{ id: string }>(`select id from tokens where username = 'sarahchen'`);
  await page.goto(`${app.url}/trading/${sarah!.id}`);
  await page.getByText(`with your ${formatPrice(1000)}`).waitFor();
  await placeOrder(page, { side: 'Buy', type: 'Market', amount: 10 });
  await toastText(page, 'Order Filled');
  await page.getByTestId('your-balance').filter({ hasText: '10 tokens' }).waitFor();
  // Star the token: it is on the dashboard's watchlist, and leaves it from there.
  await page.getByRole('button', { name: 'Add Sarah Chen to watchlist' }).click();
  await toastText(page, 'Added to Watchlist');

  // In the holdings, and in the wallet's history with the running balance.
  await page.goto(`${app.url}/dashboard`);
  await page.locator('table[aria-label="Holdings"] tr').filter({ hasText: 'Sarah Chen' }).waitFor();
  // Deposited and traded: two steps done, the next ones links to where they are taken.
  await steps.getByText('2 of 4 done.').waitFor();
  await expect(steps.getByRole('link', { name: 'Connect your social accounts →' }).getAttribute('href')).resolves.toBe(
    '/profile?open=social',
  );
  await shootBoth(page, 'newcomer-2-holdings');
  await page.getByRole('tab', { name: 'Watchlist' }).click();
  await page.getByTestId('watchlist-row').filter({ hasText: 'Sarah Chen' }).waitFor();
  await page.getByRole('button', { name: 'Remove Sarah Chen from watchlist' }).click();
  await page.getByText('Your watchlist is empty. Star a token on the market to follow it here.').waitFor();
  const [cash] = await app.backend.db.query<{ available: string }>(
    `select available from cash_accounts c join auth.users u on u.id = c.user_id where u.email = $1`,
    [me.email],
  );
  await page.goto(`${app.url}/wallet`);
  const rows = page.getByTestId('wallet-row');
  await rows.filter({ hasText: '10 Sarah Chen at $' }).waitFor();
  await rows.filter({ hasText: 'On the buy of 10 Sarah Chen' }).waitFor();
  expect(await rows.first().locator('td').last().innerText()).toBe(formatPrice(Number(cash!.available)));

  // A bank account to withdraw to: saved from the Withdraw dialog, it waits a day (the owner is mailed).
  // The page's first requests refresh the token; the Withdraw button opens once the wallet has loaded
  // (on a loaded machine, later than two seconds).
  await page.getByRole('button', { name: 'Withdraw', exact: true }).click();
  const withdraw = page.getByRole('dialog', { name: 'Withdraw' });
  await withdraw.getByText('Add the bank account to withdraw to first.').waitFor();
  await withdraw.getByRole('button', { name: 'Add Bank Account' }).click();
  const adding = page.getByRole('dialog', { name: 'Add Bank Account' });
  await adding.getByText('For your security, a new account receives withdrawals 24 hours after it is added').waitFor();
  await adding.locator('#account-label').fill('Checking');
  await adding.locator('#account-number').fill('000123456789');
  await adding.getByRole('button', { name: 'Save Account' }).click();
  await expect(toastText(page, 'Bank Account Saved')).resolves.toMatchObject({
    description: expect.stringMatching(/^Checking •••• 6789 receives withdrawals from .+\. We emailed you about it\.$/),
  });
  const account = page.getByTestId('bank-account').filter({ hasText: 'Checking •••• 6789' });
  await account.getByText('Receives withdrawals from').waitFor();
  await page.getByRole('button', { name: 'Withdraw', exact: true }).click();
  await withdraw
    .getByText(/a new account receives withdrawals 24 hours after it is added: Checking •••• 6789 from/)
    .waitFor();
  await shootBoth(page, 'newcomer-3a-bank-account-waits');
  await withdraw.getByRole('button', { name: 'Close' }).click();

  // A day on (the test moves the account's wait), $100 goes out to it, held at once.
  await app.backend.db.query(
    `update payout_destinations set usable_from = now() where label = 'Checking' and account_last4 = '6789'`,
  );
  await page.reload();
  await account.getByText('Ready').waitFor();
  await page.getByRole('button', { name: 'Withdraw', exact: true }).click();
  expect(await withdraw.locator('#withdraw-destination').inputValue()).not.toBe('new');
  await withdraw.locator('#withdraw-amount').fill('100');
  await withdraw.getByRole('button', { name: 'Withdraw', exact: true }).click();
  await expect(toastText(page, 'Withdrawal Requested')).resolves.toMatchObject({
    title: 'Withdrawal Requested',
    description: `${formatPrice(100)} to Checking •••• 6789 is held until it is paid out.`,
  });
  await page
    .getByTestId('available-balance')
    .filter({ hasText: formatPrice(Number(cash!.available) - 100) })
    .waitFor();
  await page
    .getByTestId('pending-withdrawal')
    .filter({ hasText: `${formatPrice(100)} held for withdrawals` })
    .waitFor();
  await rows.filter({ hasText: 'Checking •••• 6789' }).filter({ hasText: 'Pending' }).waitFor();
  await shootBoth(page, 'newcomer-3-wallet');

  // Edit the profile.
  await page.goto(`${app.url}/profile`);
  await page.getByRole('button', { name: 'Edit' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit Profile' });
  await edit.locator('#edit-name').fill('Nova Lee');
  await edit.locator('#edit-bio').fill('Type designer and illustrator.');
  await edit.locator('#edit-location').fill('Lisbon, Portugal');
  // A file that is not an image is refused with the storage server's words; an image is taken.
  await edit
    .locator('#edit-avatar')
    .setInputFiles({ name: 'notes.png', mimeType: 'image/png', buffer: Buffer.from('not an image') });
  await edit.getByText('Avatar: mime type image/png is not supported').waitFor();
  await edit.locator('#edit-avatar').setInputFiles({ name: 'my photo (1).PNG', mimeType: 'image/png', buffer: PNG });
  await edit.locator('img[src*="/storage/v1/object/public/avatars/"]').waitFor();
  await shootBoth(page, 'newcomer-4-edit-profile');
  // A name that would read as another (a right-to-left override) is refused in the database's words.
  await edit.locator('#edit-name').fill('Nova\u202eeeL');
  await edit.getByRole('button', { name: 'Save' }).click();
  await edit.getByText('A name cannot hold control characters or invisible formatting characters').waitFor();
  await edit.locator('#edit-name').fill('Nova Lee');
  await edit.getByRole('button', { name: 'Save' }).click();
  await toastText(page, 'Profile Updated');
  await page.getByText('Lisbon, Portugal').waitFor();
  await page.getByRole('heading', { name: 'Nova Lee' }).waitFor();
  // The avatar is served back by the storage server and shown on the profile.
  const avatar = page.locator('img[src*="/storage/v1/object/public/avatars/"]').first();
  await avatar.waitFor();
  expect(await avatar.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);

  // Apply for a token.
  await page.getByRole('button', { name: 'Get your token' }).click();
  const form = page.getByRole('dialog', { name: 'Get your token' });
  await form.locator('#apply-name').fill('Nova Lee');
  await form.locator('#apply-category').selectOption('Designer');
  await form.locator('#apply-bio').fill('Type designer and illustrator.');
  await shootBoth(page, 'newcomer-5-apply');
  await form.getByRole('button', { name: 'Apply' }).click();
  await toastText(page, 'Application Sent');
  await page.getByText('Your token application is under review').waitFor();

  // An admin approves it.
  const admin = await (await app.newContext()).newPage();
  await admin.goto(`${app.url}/auth/nra`);
  await admin.fill('#admin-email', DEMO_ACCOUNTS.admin.email);
  await admin.fill('#admin-password', DEMO_ACCOUNTS.admin.password);
  await admin.getByRole('button', { name: 'Sign In' }).click();
  const row = admin.locator(`[data-testid="admin-user-row"][data-username="${me.username}"]`);
  await row.getByRole('button', { name: 'Approve' }).click();
  const approve = admin.getByRole('dialog', { name: 'Approve token application' });
  await approve.getByText('No connected account: there is no automated analysis to review.').waitFor();
  await shootBoth(admin, 'newcomer-6-approve');
  await approve.getByRole('button', { name: 'Approve and issue' }).click();
  await expect(toastText(admin, 'Token Issued')).resolves.toMatchObject({
    title: 'Token Issued',
    description: "Nova Lee's offering is open for bids for 24 hours.",
  });
  await row.getByRole('button', { name: 'Approve' }).waitFor({ state: 'detached' });

  // The applicant sees it live, and the token is on the market at once.
  await page.getByTestId('toast').filter({ hasText: 'Your Token Is Live!' }).waitFor();
  await page
    .getByTestId('stat-Token Price')
    .filter({ hasText: formatPrice(10) })
    .waitFor();
  const [nova] = await app.backend.db.query<{ id: string }>(`select id from tokens where name = 'Nova Lee'`);
  await page.goto(`${app.url}/trading/${nova!.id}`);
  // Listed a minute ago: its chart starts at the listing's hour, not a day at the issue price.
  const charted = page.getByTestId('price-chart').getAttribute('data-points').then(Number);
  await expect(charted).resolves.toBeGreaterThanOrEqual(1);
  await expect(charted).resolves.toBeLessThanOrEqual(2);
  await page.getByRole('tab', { name: 'Recent Trades' }).click();

  // A second user finds it on the market, in its auction, and bids for 25 at the issue price.
  const buyer = await (await app.newContext()).newPage();
  await signIn(buyer, app, DEMO_ACCOUNTS.user);
  await buyer.goto(`${app.url}/market`);
  await buyer.getByPlaceholder('Search by name, username, or category...').fill('nova');
  // The search applies after a pause: the row moves to the top of the list, so wait for it there.
  await buyer.waitForURL('**/market?q=nova');
  await buyer.waitForFunction(() => document.querySelectorAll('[data-testid="market-row"]').length === 1);
  const novaRow = buyer.getByTestId('market-row').filter({ hasText: 'Nova Lee' });
  await novaRow
    .getByTestId('auction-badge')
    .getByText(/^Auction · 2[34]h/)
    .waitFor();
  await novaRow.getByRole('link', { name: 'Trade' }).click();
  const bidPanel = buyer.getByTestId('offering-panel');
  await bidPanel.locator('#bid-price').fill('10');
  await bidPanel.locator('#bid-amount').fill('25');
  await bidPanel.getByRole('button', { name: 'Place Bid' }).click();
  await toastText(buyer, 'Bid Placed');
  // As if the day had passed: the scheduler closes the offering, and the first user sees its trade arrive.
  await app.backend.db.query(
    `update offerings set opens_at = now() - interval '1 day', closes_at = now() where token_id = $1`,
    [nova!.id],
  );
  await page.locator('table[aria-label="Recent trades"] tbody tr').filter({ hasText: '25' }).first().waitFor();
  await buyer
    .getByTestId('offering-allocation')
    .getByText(`You received 25 Nova Lee tokens at ${formatPrice(10)}`)
    .waitFor();
  await shootBoth(page, 'newcomer-7-live');

  // The offering's proceeds (value - fee) reach the person's wallet.
  await page.goto(`${app.url}/wallet`);
  await rows
    .filter({ hasText: `Offering: 25 Nova Lee at ${formatPrice(10)}` })
    .filter({ hasText: `+${formatPrice(25 * 10)}` })
    .waitFor();
  await rows
    .filter({ hasText: 'On the offering sale of 25 Nova Lee' })
    .filter({ hasText: `-${formatPrice(await feeOn(app, 25 * 10))}` })
    .waitFor();

  // Every admin decision is in the audit log.
  await admin.getByRole('tab', { name: 'Audit Log' }).click();
  await admin
    .getByTestId('audit-row')
    .filter({ hasText: 'application.approve' })
    .filter({ hasText: `@${me.username}` })
    .waitFor();
  await shootBoth(admin, 'newcomer-8-audit');
});
