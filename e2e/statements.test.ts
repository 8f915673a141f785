import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { extractText } from 'unpdf';
import type { Statement } from '@repex/shared-ui/contracts';
import { formatPrice } from '@repex/shared-ui/ui';
import { DEMO_ACCOUNTS } from '../server/demo';
import { SCREENSHOTS, nodeClient, signIn, startApp, toastText, type E2EApp } from './helpers/app';

jest.setTimeout(180_000);

let app: E2EApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app?.close());

test("a statement downloaded from the wallet, as PDF and CSV, says what the database's statement and history say", async () => {
  const api = nodeClient(app);
  await api.auth.signInWithPassword(DEMO_ACCOUNTS.user);
  const today = new Date().toISOString().slice(0, 10);
  const month = today.slice(0, 7);
  // A trade today, so that the month's statement has trades and fees whatever day of it this is.
  const [sarah] = await app.backend.db.query<{ id: string }>(`select id from tokens where username = 'sarahchen'`);
  const bought = await api.rpc('place_order', { p_token: sarah!.id, p_side: 'buy', p_type: 'market', p_amount: 1 });
  expect(bought.error).toBeNull();
  const expected = (await api.rpc('my_statement', { p_from: `${month}-01`, p_to: today })).data as Statement;
  // The wallet's own history says the same closing cash.
  const history = (await api.from('wallet_history').select('effect')).data as { effect: number }[];
  expect(expected.trades.length).toBeGreaterThan(0);
  expect(Math.round(expected.closing_cash * 100)).toBe(Math.round(history.reduce((s, r) => s + r.effect * 100, 0)));

  for (const width of [1280, 390]) {
    const page = await (await app.newContext({ width })).newPage();
    await signIn(page, app);
    await page.goto(`${app.url}/wallet`);
    await page.getByRole('button', { name: 'Statement' }).click();
    const form = page.getByRole('form', { name: 'Download Statement' });
    await expect(form.getByLabel('Month').inputValue()).resolves.toBe(month);
    await page.screenshot({ path: path.join(SCREENSHOTS, `statement-dialog-${width}.png`) });

    // A range that ends after it starts is refused in the database's words.
    await form.getByLabel('Period').selectOption('range');
    await form.getByLabel('First day').fill(today);
    await form.getByLabel('Last day').fill(`${month}-01`);
    await form.getByRole('button', { name: 'Download' }).click();
    if (today !== `${month}-01`)
      await expect(form.getByRole('alert').innerText()).resolves.toBe('The statement starts after it ends.');
    await form.getByLabel('Period').selectOption('month');

    const pdf = page.waitForEvent('download');
    await form.getByRole('button', { name: 'Download' }).click();
    const pdfFile = await pdf;
    expect(pdfFile.suggestedFilename()).toBe(`repx-statement-${month}-01-to-${today}.pdf`);
    await toastText(page, 'Statement Downloaded');
    const { text } = await extractText(new Uint8Array(fs.readFileSync(await pdfFile.path())), { mergePages: true });
    expect(text).toContain('RepX Statement');
    expect(text).toContain(`Closing cash ${formatPrice(expected.closing_cash)}`);
    expect(text).toContain(`Opening cash ${formatPrice(expected.opening_cash)}`);
    for (const t of expected.trades) expect(text).toContain(t.token);

    if (width === 390) {
      await page.getByRole('button', { name: 'Statement' }).click();
      await page.getByRole('form', { name: 'Download Statement' }).getByLabel('Format').selectOption('csv');
      const csv = page.waitForEvent('download');
      await page.getByRole('form', { name: 'Download Statement' }).getByRole('button', { name: 'Download' }).click();
      const csvFile = await csv;
      expect(csvFile.suggestedFilename()).toBe(`repx-statement-${month}-01-to-${today}.csv`);
      const rows = parse(fs.readFileSync(await csvFile.path(), 'utf8'), {
        bom: true,
        relax_column_count: true,
      }) as string[][];
      const line = (label: string) => Number(rows.find((r) => r[0] === label)?.[1]);
      expect(line('Opening cash')).toBe(expected.opening_cash);
      expect(line('Closing cash')).toBe(expected.closing_cash);
      expect(line('Trading fees')).toBe(-expected.fees);
      const trades = rows.findIndex((r) => r[0] === 'Trades');
      expect(rows.slice(trades + 2, trades + 2 + expected.trades.length).map((r) => Number(r[6]))).toEqual(
        expected.trades.map((t) => t.fee),
      );
    }
    await page.context().close();
  }
});
