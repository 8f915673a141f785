import path from 'node:path';
import type { Page } from 'playwright-core';
import { formatPrice } from '@repex/shared-ui/ui';
import { SCREENSHOTS, startApp, toastText, type E2EApp } from './helpers/app';
import { sarahTrader } from './helpers/trader';

jest.setTimeout(180_000);

let app: E2EApp;
let tradingUrl: string;
let lastPrice: number;
beforeAll(async () => {
  app = await startApp();
  const [sarah] = await app.backend.db.query<{ id: string; last: string }>(
    `select id, private.last_price(id) as last from tokens where username = 'sarahchen'`,
  );
  tradingUrl = `${app.url}/trading/${sarah!.id}`;
  lastPrice = Number(sarah!.last);
});
afterAll(() => app?.close());

/** A new account at `width` with $1,000 and 20 Sarah Chen tokens, on Sarah Chen's trading screen. */
const trader = async (name: string, width: number) => ({
  page: await sarahTrader(app, tradingUrl, { name, width, cash: 1000, tokens: 20 }),
  email: `${name}@e2e.repx.dev`,
});

const panel = (page: Page) => page.getByRole('region', { name: 'Place order' });
/** The alert beside a field, by the field's id. */
const fieldAlert = (page: Page, id: string) =>
  page.locator(`#${id}`).locator('xpath=ancestor::*[1]').getByRole('alert');

describe.each([1280, 390])('the order panel says what the engine refuses of a term, beside it, at %i px', (width) => {
  test("a stop's trigger, a stop-limit's limit, a take-profit and an expiry, in the database's words", async () => {
    const { page } = await trader(`terms_${width}`, width);
    const last = formatPrice(lastPrice);
    await page.getByRole('button', { name: 'Sell', exact: true }).click();
    await page.getByRole('button', { name: 'Stop', exact: true }).click();

    // A sell stop above the last price would trigger at once: said before any amount is typed.
    await page.locator('#order-stop').fill((lastPrice + 1).toFixed(2));
    await expect(fieldAlert(page, 'order-stop').innerText()).resolves.toBe(
      `A sell stop triggers when the price falls to it, so its trigger must be below the last price of ${last}. To sell now, place a market or limit order.`,
    );
    const below = (lastPrice - 1).toFixed(2);
    await page.locator('#order-stop').fill(below);
    await fieldAlert(page, 'order-stop').waitFor({ state: 'detached' });

    // A sell stop-limit's limit above its trigger could not sell once triggered.
    await page.locator('#order-amount').fill('5');
    await page.getByRole('button', { name: 'At a limit', exact: true }).click();
    await page.locator('#order-limit').fill(lastPrice.toFixed(2));
    await expect(fieldAlert(page, 'order-limit').innerText()).resolves.toBe(
      `A sell stop-limit's limit price must be at or below its trigger of ${formatPrice(Number(below))}: it sells once the price has fallen there.`,
    );
    await page.getByRole('button', { name: 'At market', exact: true }).click();

    // A take-profit at or below the market would sell at once.
    await page.getByLabel('Also take profit above the market').check();
    await page.locator('#order-take-profit').fill((lastPrice - 2).toFixed(2));
    await expect(fieldAlert(page, 'order-take-profit').innerText()).resolves.toMatch(
      /^A take-profit sells above the last price of /,
    );
    await page.getByLabel('Also take profit above the market').uncheck();

    // Good til a date more than 90 days ahead.
    await page.locator('#order-tif').selectOption({ label: 'Good til date' });
    const far = new Date(Date.now() + 120 * 86_400_000);
    const local = new Date(far.getTime() - far.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await page.locator('#order-expires').fill(local);
    await expect(fieldAlert(page, 'order-expires').innerText()).resolves.toBe(
      'A good-til-date order expires within 90 days; for longer, use good til cancelled.',
    );
    await expect(page.getByRole('button', { name: 'Place Sell Order' }).isDisabled()).resolves.toBe(true);
    await panel(page).scrollIntoViewIfNeeded();
    await panel(page).screenshot({ path: path.join(SCREENSHOTS, `order-terms-refused-${width}.png`) });
  });

  test('a buy stop-market holds what the database says it holds, and the shortcut fits the cash', async () => {
    const { page, email } = await trader(`hold_${width}`, width);
    await page.getByRole('button', { name: 'Buy', exact: true }).click();
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await page.locator('#order-stop').fill((lastPrice + 1).toFixed(2));
    // The database has figured the stop at its trigger (the panel shows its price once it answers).
    await page
      .getByTestId('order-price')
      .filter({ hasText: formatPrice(lastPrice + 1) })
      .waitFor();
    // 100%: the most $1,000 pays for held at the band's edge above the trigger, with the fee.
    await page.getByRole('button', { name: '100%' }).click();
    const [q] = await app.backend.db.query<{ max: string; hold: string }>(
      `select private.affordable(1000000, private.band_edge($1, 'buy'), 0, 1000, s.fee_bps) as max,
              private.buy_cost(private.band_edge($1, 'buy'),
                private.affordable(1000000, private.band_edge($1, 'buy'), 0, 1000, s.fee_bps), s.fee_bps) as hold
         from exchange_settings s`,
      [lastPrice + 1],
    );
    await expect(page.locator('#order-amount').inputValue()).resolves.toBe(String(q!.max));
    await page.getByRole('button', { name: 'Place Buy Order' }).click();
    const confirm = page.getByRole('region', { name: 'Confirm order' });
    await expect(confirm.innerText()).resolves.toContain(
      `${formatPrice(Number(q!.hold))} of your cash is held back until it triggers or you cancel it`,
    );
    await page.screenshot({ path: path.join(SCREENSHOTS, `order-stop-hold-${width}.png`) });
    await confirm.getByRole('button', { name: 'Confirm Buy' }).click();
    await toastText(page, 'Stop Placed');
    const [cash] = await app.backend.db.query<{ reserved: string }>(
      `select c.reserved from cash_accounts c join auth.users u on u.id = c.user_id where u.email = $1`,
      [email],
    );
    expect(Number(cash!.reserved)).toBe(Number(q!.hold));
  });
});
