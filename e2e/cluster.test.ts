import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { formatPrice } from '@repex/shared-ui/ui';
import { anyPorts, startCluster, type Cluster } from '../scripts/lib/cluster';
import { findTools } from '../scripts/lib/cluster/tools';
import { ROOT } from '../scripts/webpack/config';
import { DEMO_ACCOUNTS } from '../server/demo';
import { SCREENSHOTS, eventually, launchChromium, placeOrder, signIn, toastText } from './helpers/app';

jest.setTimeout(300_000);

/**
 * The spec's screens as a user meets them through the production shape (npm run cluster): the
 * built shell and remotes pointed at HAProxy, two hosts behind it, PgBouncer and a read replica.
 * Without Debian's postgresql, pgbouncer and haproxy this file says so and skips (.ci/run installs them).
 */
const tools = findTools();
const available = !('missing' in tools);
const onCluster = available ? describe : describe.skip;
if (!available) console.warn(`cluster e2e skipped: install ${tools.missing.join(', ')}`);

onCluster('the screens through the balancer', () => {
  let cluster: Cluster;
  let browser: Browser;
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'repx-cluster-e2e-'));
    cluster = await startCluster({
      dir,
      processes: 1,
      env: { RATE_LIMITS: 'off', REALTIME_LIMITS: 'off' },
      frontends: { ports: anyPorts(), dirOf: (pkg) => path.join(ROOT, pkg, 'dist') },
    });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await cluster?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('signs in, shows the market and trades, and goes on trading when the host it used dies', async () => {
    const app = { url: cluster.layout.url };
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signIn(page, app, DEMO_ACCOUNTS.user);
    await page.getByText('Total Portfolio Value').waitFor();

    await page.goto(`${app.url}/market`);
    const sarah = page.getByTestId('market-row').filter({ hasText: 'Sarah Chen' });
    await sarah.filter({ hasText: formatPrice(45.2) }).waitFor();
    await page.screenshot({ path: path.join(SCREENSHOTS, 'cluster-market-1280.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 900 });
    await page.screenshot({ path: path.join(SCREENSHOTS, 'cluster-market-390.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });

    await sarah.getByRole('link', { name: 'Trade' }).click();
    await page.waitForURL('**/trading/**');
    await placeOrder(page, { side: 'Buy', type: 'Limit', amount: 2, price: '40.00' });
    await toastText(page, 'Order Placed');
    await page.getByTestId('open-order').first().waitFor();

    // Kill a host: the balancer sends the page's next requests, and its socket, to the other.
    process.kill(cluster.hosts[0]!.pid!, 'SIGKILL');
    await page.waitForTimeout(2500);
    await placeOrder(page, { side: 'Buy', type: 'Limit', amount: 3, price: '39.00' });
    await toastText(page, 'Order Placed', /3/);
    // The open orders come on the account's live feed, whose socket moved to the other host.
    await eventually(() => page.getByTestId('open-order').count(), 2);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'cluster-trading-1280.png'), fullPage: true });

    await page.setViewportSize({ width: 390, height: 900 });
    await page.goto(`${app.url}/wallet`);
    await page.getByText('Available Balance').first().waitFor();
    await page.screenshot({ path: path.join(SCREENSHOTS, 'cluster-wallet-390.png'), fullPage: true });
    await page.goto(`${app.url}/dashboard`);
    await page.getByText('Total Portfolio Value').waitFor();
    await page.screenshot({ path: path.join(SCREENSHOTS, 'cluster-dashboard-390.png'), fullPage: true });
    await page.context().close();
  });
});
