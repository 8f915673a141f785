import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { deployRelease, rollBack } from '../scripts/deploy';
import { goLive, newReleaseId, prune, releaseIds } from '../scripts/lib/releases';
import { ROOT } from '../scripts/webpack/config';
import { PACKAGE_DIRS, type RemoteName } from '../scripts/webpack/packages';
import { SCREENSHOTS, signIn, startApp, type E2EApp } from './helpers/app';

jest.setTimeout(600_000);

let app: E2EApp;
const roots = {} as Record<RemoteName, string>;
const DIRS = { wallet: 'mf-wallet', portfolio: 'mf-portfolio', trading: 'mf-trading' } as const;
type Deployed = keyof typeof DIRS;

beforeAll(async () => {
  app = await startApp();
});
afterAll(async () => {
  for (const name of Object.keys(DIRS) as Deployed[]) await app?.frontends.startRemote(name);
  for (const root of Object.values(roots)) fs.rmSync(root, { recursive: true, force: true });
  await app?.close();
});

/** Every file of every package's build, to see that a deploy of one touches nothing else. */
const builtFiles = () =>
  PACKAGE_DIRS.flatMap((dir) =>
    fs
      .readdirSync(path.join(ROOT, dir, 'dist'))
      .map((f) => `${dir}/${f}:${fs.statSync(path.join(ROOT, dir, 'dist', f)).mtimeMs}`),
  );

async function deploy(name: Deployed): Promise<string> {
  const { id } = await deployRelease(DIRS[name], roots[name]);
  return id;
}

/**
 * A release made of a build that already exists (the tested dist/, or an earlier release), made
 * live and pruned as a deploy does: the steps that need no new code skip webpack, which keeps the
 * suite's time down. Its build id is the one its files were built with.
 */
function release(name: Deployed, from: string, kept = 5): { id: string; build: string } {
  const id = newReleaseId();
  fs.cpSync(from, path.join(roots[name], id), { recursive: true });
  goLive(roots[name], id);
  prune(roots[name], kept);
  const { build } = JSON.parse(fs.readFileSync(path.join(from, 'routes.json'), 'utf8')) as { build: string };
  return { id, build };
}

/** In-app navigation, as a link does it at any width (the phone's links are behind a menu). */
const navigate = (page: Page, to: string) =>
  page.evaluate((path) => {
    history.pushState({}, '', path);
    dispatchEvent(new PopStateEvent('popstate'));
  }, to);

const buildOf = (page: Page, remote: string) =>
  page.locator(`[data-remote="${remote}"]`).first().getAttribute('data-build');

/**
 * A page on the dashboard (the Profile screen's code not yet fetched), one on the wallet (its P&L
 * tab's not yet) and one on a token's trading screen (its reputation breakdown's not yet).
 */
async function openPages(width: number) {
  const context = await app.newContext({ width });
  const dashboard = await context.newPage();
  await signIn(dashboard, app);
  await dashboard.locator('[data-remote="portfolio"]').first().waitFor();
  const wallet = await context.newPage();
  await wallet.goto(`${app.url}/wallet`);
  await wallet.locator('[data-remote="wallet"]').first().waitFor();
  const trading = await context.newPage();
  await trading.goto(`${app.url}/market`);
  await trading
    .locator('[data-testid=market-row]', { hasText: 'Sarah Chen' })
    .getByRole('link', { name: 'Trade' })
    .click();
  await trading.locator('[data-remote="trading"]').first().waitFor();
  const failures: string[] = [];
  for (const page of [dashboard, wallet, trading]) {
    page.on('pageerror', (e) => failures.push(e.message));
    page.on(
      'console',
      (m) => m.type() === 'error' && /ChunkLoadError|Loading chunk/.test(m.text()) && failures.push(m.text()),
    );
  }
  return { context, dashboard, wallet, trading, failures };
}

test('a remote deployed while pages are open: their lazy parts keep working on the old release, a reload shows the new one, a rollback (no build) the old again, pruning keeps what is referenced', async () => {
  const first = {} as Record<Deployed, { id: string; build: string }>;
  for (const name of Object.keys(DIRS) as Deployed[]) {
    roots[name] = fs.mkdtempSync(path.join(os.tmpdir(), `repex-releases-${name}-`));
    first[name] = release(name, path.join(ROOT, DIRS[name], 'dist'));
    await app.frontends.startRemote(name, roots[name]);
  }
  const pages = await Promise.all([1280, 390].map(openPages));
  for (const p of pages) expect(await buildOf(p.wallet, 'wallet')).toBe(first.wallet.build);

  // 2. A new release of each, while the pages stay open; nothing else is rebuilt.
  const before = builtFiles();
  const second = {
    wallet: await deploy('wallet'),
    portfolio: await deploy('portfolio'),
    trading: await deploy('trading'),
  };
  expect(builtFiles()).toEqual(before);

  for (const p of pages) {
    // 3. The parts not yet loaded come from the release the page was opened on.
    await p.wallet.getByRole('tab', { name: 'Profit & Loss' }).click();
    await p.wallet.getByText('Realized P&L').first().waitFor();
    await p.trading.getByText('How is the reputation score computed?').click();
    await p.trading.getByTestId('reputation-breakdown-score').waitFor();
    expect(await buildOf(p.trading, 'trading')).toBe(first.trading.build);
    await navigate(p.dashboard, '/profile');
    await p.dashboard.getByRole('tab', { name: 'Achievements' }).waitFor();
    expect(await buildOf(p.dashboard, 'portfolio')).toBe(first.portfolio.build);
    await expect(p.dashboard.getByTestId('remote-error').count()).resolves.toBe(0);
    // Moving on to another screen, the page says a new version is out, and waits for the user.
    await navigate(p.dashboard, '/market');
    await p.dashboard.getByTestId('new-release').waitFor();
    expect(p.failures).toEqual([]);
  }
  await pages[1]!.dashboard.screenshot({ path: path.join(SCREENSHOTS, 'new-release-390.png') });
  await pages[0]!.dashboard.screenshot({ path: path.join(SCREENSHOTS, 'new-release-1280.png') });

  // 4. A reload runs the new release; the About panel names it.
  const page = pages[0]!.wallet;
  await page.reload();
  await page.locator('[data-remote="wallet"]').first().waitFor();
  expect(await buildOf(page, 'wallet')).toBe(second.wallet);
  await page.getByRole('button', { name: 'About this version' }).click();
  await expect(page.locator('[data-remote-build="wallet"]').innerText()).resolves.toBe(second.wallet);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'about-version-1280.png') });
  await page.keyboard.press('Escape');

  // 5. Rolled back, without a build: after a reload the first release runs again.
  expect(rollBack(roots.wallet)).toEqual({ from: second.wallet, to: first.wallet.id });
  await page.reload();
  await page.locator('[data-remote="wallet"]').first().waitFor();
  expect(await buildOf(page, 'wallet')).toBe(first.wallet.build);

  // 6. A deploy that keeps one release still keeps the one before it, whose entry pages may still
  // hold; the oldest goes. Each release's exposed module names its build, so its file is its own.
  const exposed = (id: string) =>
    fs.readdirSync(path.join(roots.wallet, id)).find((f) => /^__federation_expose_Wallet\.[0-9a-f]{8}\.js$/.test(f))!;
  const gone = exposed(first.wallet.id);
  const third = release('wallet', path.join(roots.wallet, second.wallet), 1).id;
  expect(releaseIds(roots.wallet)).toEqual([second.wallet, third]);
  const served = (file: string) => fetch(`http://localhost:${app.frontends.ports.remotes.wallet}/${file}`);
  expect((await served(exposed(second.wallet))).status).toBe(200);
  expect(exposed(second.wallet)).not.toBe(gone);
  expect((await served(gone)).status).toBe(404);
  for (const p of pages) await p.context.close();
});
