import path from 'node:path';
import { formatChange, formatPrice, formatSignedPrice } from '@repex/shared-ui/ui';
import { DEMO_ACCOUNTS } from '../server/demo';
import { SCREENSHOTS, apiUser, eventually, nodeClient, signIn, startApp, type E2EApp } from './helpers/app';

jest.setTimeout(180_000);

let app: E2EApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app?.close());

test("Portfolio Analysis shows the database's figures for each period, with a sale's lots", async () => {
  // The demo user sells 2 Sarah Chen tokens to a buyer resting at $40, so a sale has lots to show.
  const api = nodeClient(app);
  await api.auth.signInWithPassword(DEMO_ACCOUNTS.user);
  const { data: sarah } = await api.from('tokens').select('id').eq('username', 'sarahchen').single();
  const buyer = await apiUser(app, {
    username: 'lot_buyer',
    email: 'lot.buyer@example.com',
    password: 'lot-buyer-2026',
  });
  const buyerId = (await buyer.auth.getUser()).data.user!.id;
  await app.backend.db.query('select private.record_deposit($1, 1000)', [buyerId]);
  const { data: best } = await api.from('market_tokens').select('price').eq('id', sarah!.id).single();
  const bid = {
    p_token: sarah!.id,
    p_side: 'buy',
    p_type: 'limit',
    p_amount: 2,
    p_price: Math.round(best!.price * 95) / 100,
  };
  expect((await buyer.rpc('place_order', bid)).error).toBeNull();
  const sold = await api.rpc('place_order', {
    p_token: sarah!.id,
    p_side: 'sell',
    p_type: 'limit',
    p_amount: 2,
    p_price: bid.p_price,
  });
  expect(sold.error).toBeNull();

  for (const width of [1280, 390]) {
    const page = await (await app.newContext({ width })).newPage();
    await signIn(page, app);
    await page.getByRole('link', { name: 'Portfolio Analysis' }).click();
    await page.waitForURL('**/portfolio-analysis');
    for (const [label, period] of [
      ['30D', '30d'],
      ['7D', '7d'],
      ['All', 'all'],
    ] as const) {
      if (period !== '30d')
        await page.getByRole('group', { name: 'Period' }).getByRole('button', { name: label }).click();
      // The period turns pressed once the address has changed and the screen re-rendered.
      await page.getByRole('group', { name: 'Period' }).getByRole('button', { name: label, pressed: true }).waitFor();
      const days = (await api.rpc('my_portfolio_history', { p_period: period })).data as {
        value: number;
        twr: number;
        mwr: number | null;
        gain: number;
      }[];
      const last = days.at(-1)!;
      const stat = (name: string) => page.getByTestId(`stat-${name}`);
      await stat('Portfolio Value').getByText(formatPrice(last.value)).waitFor();
      await stat(`Time-Weighted Return (${label})`).getByText(formatChange(last.twr)).waitFor();
      await stat(`Money-Weighted Return (${label})`)
        .getByText(last.mwr === null ? '—' : formatChange(last.mwr))
        .waitFor();
      await stat(`Gain (${label})`).getByText(formatSignedPrice(last.gain)).waitFor();
      await page.getByTestId('value-chart').locator('canvas').first().waitFor();
      expect(page.url()).toContain(period === '30d' ? '/portfolio-analysis' : `period=${period}`);
    }
    // A custom period of past days: its figures are the database's for those dates.
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
    await page.getByRole('group', { name: 'Period' }).getByRole('button', { name: 'Custom' }).click();
    const custom = page.getByRole('form', { name: 'Custom period' });
    await custom.waitFor();
    await custom.getByLabel('First day').fill(day(40));
    await custom.getByLabel('Last day').fill(day(3));
    await custom.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(new RegExp(`period=custom&from=${day(40)}&to=${day(3)}`));
    const span = { p_period: 'custom', p_from: day(40), p_to: day(3) };
    const customDays = (await api.rpc('my_portfolio_history', span)).data as {
      day: string;
      value: number;
      gain: number;
      twr: number;
    }[];
    expect(customDays.at(-1)!.day).toBe(day(3));
    const stat = (name: string) => page.getByTestId(`stat-${name}`);
    await stat('Portfolio Value')
      .getByText(formatPrice(customDays.at(-1)!.value))
      .waitFor();
    await stat('Gain (Custom)')
      .getByText(formatSignedPrice(customDays.at(-1)!.gain))
      .waitFor();
    await stat('Time-Weighted Return (Custom)')
      .getByText(formatChange(customDays.at(-1)!.twr))
      .waitFor();
    await page.screenshot({ path: path.join(SCREENSHOTS, `portfolio-analysis-custom-${width}.png`) });
    // Dates that make no period are refused in the database's words, and no figures stand for them.
    await custom.getByLabel('First day').fill(day(2));
    await custom.getByRole('button', { name: 'Apply' }).click();
    await page
      .getByRole('form', { name: 'Custom period' })
      .locator('..')
      .getByText('The first day must be on or before the last day.')
      .waitFor();
    await expect(stat('Portfolio Value').count()).resolves.toBe(0);
    await page.screenshot({ path: path.join(SCREENSHOTS, `portfolio-analysis-custom-refused-${width}.png`) });
    await page.getByRole('group', { name: 'Period' }).getByRole('button', { name: 'All' }).click();
    await page.getByRole('group', { name: 'Period' }).getByRole('button', { name: 'All', pressed: true }).waitFor();

    // The sale's lots, as the database matched them.
    const lots = (await api.rpc('my_realized_lots', { p_from: null, p_to: null })).data as { gain: number }[];
    expect(lots.length).toBeGreaterThan(0);
    const table = page.getByRole('table', { name: 'Realized lots' });
    // Newest sale first. The previous period's lots (or the skeleton's rows) stand until these arrive.
    const newestFirst = [...lots].reverse().map((l) => formatSignedPrice(l.gain));
    await eventually(async () => {
      const shown = await table.locator('tbody tr').allInnerTexts();
      return shown.length === newestFirst.length && shown.every((row, i) => row.includes(newestFirst[i]!));
    }, true);
    await page.getByRole('group', { name: 'Group by' }).getByRole('button', { name: 'By category' }).click();
    await page.getByRole('list', { name: 'Allocation by category' }).waitFor();
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(width);
    await page.screenshot({ path: path.join(SCREENSHOTS, `portfolio-analysis-${width}.png`), fullPage: true });
    await page.context().close();
  }
});
