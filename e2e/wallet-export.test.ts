import fs from 'node:fs';
import { parse } from 'csv-parse/sync';
import { DEMO_ACCOUNTS } from '../server/demo';
import { nodeClient, signIn, startApp, type E2EApp } from './helpers/app';

jest.setTimeout(180_000);

/** A project whose API answers at most four rows a request, so the export needs several. */
const MAX_ROWS = 4;

let app: E2EApp;
beforeAll(async () => {
  app = await startApp({ maxRows: MAX_ROWS });
});
afterAll(() => app?.close());

test("the wallet's CSV export holds every movement, though no answer holds more than max_rows", async () => {
  const api = nodeClient(app);
  await api.auth.signInWithPassword(DEMO_ACCOUNTS.user);
  // The API caps a read, and its exact count says how many there are.
  const { data, count } = await api.from('wallet_history').select('position', { count: 'exact' }).order('position');
  expect(data).toHaveLength(MAX_ROWS);
  expect(count!).toBeGreaterThan(2 * MAX_ROWS);

  const page = await (await app.newContext()).newPage();
  await signIn(page, app);
  await page.goto(`${app.url}/wallet`);
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export CSV' }).click();
  const file = await download;
  const rows = parse(fs.readFileSync(await file.path(), 'utf8'), { columns: true }) as Record<string, string>[];
  expect(rows).toHaveLength(count!);
  // Oldest first, and the last balance is the account's cash now: no chunk missing or repeated.
  const dates = rows.map((r) => Date.parse(r.Date!));
  expect(dates).toEqual([...dates].sort((a, b) => a - b));
  const cash = (await api.from('cash_accounts').select('available, reserved').single()).data!;
  expect(Number(rows.at(-1)!['Balance (USD)'])).toBeCloseTo(Number(cash.available) + Number(cash.reserved), 2);

  // One kind: its rows only, each with the balance after it among all movements.
  await page.getByLabel('Filter by kind').selectOption('Trade Fee');
  const feesDownload = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export CSV' }).click();
  const fees = parse(fs.readFileSync(await (await feesDownload).path(), 'utf8'), { columns: true }) as Record<
    string,
    string
  >[];
  expect(fees.length).toBeGreaterThan(0);
  expect(fees).toEqual(rows.filter((r) => r.Type === 'Trade Fee'));
});
