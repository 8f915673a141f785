import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { configFor, compile } from '../scripts/build';
import { BUDGETS_KB } from '../scripts/webpack/checks';
import type { Page } from 'playwright-core';
import { SCREENSHOTS, signIn, startApp, type E2EApp } from './helpers/app';

jest.setTimeout(120_000);

let app: E2EApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app?.close());

/** Counts React renderers registering with the devtools hook: one per React copy in the page. */
const COUNT_REACT_RENDERERS = () => {
  const w = window as unknown as { __renderers: number; __REACT_DEVTOOLS_GLOBAL_HOOK__: unknown };
  w.__renderers = 0;
  w.__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
    isDisabled: false,
    supportsFiber: true,
    renderers: new Map(),
    inject() {
      w.__renderers += 1;
      return w.__renderers;
    },
    onCommitFiberRoot() {},
    onCommitFiberUnmount() {},
    onPostCommitFiberRoot() {},
    checkDCE() {},
  };
};

/** Goes to each signed-in screen by its links, as a user does, ending on the dashboard. */
async function visitEachScreen(page: Page) {
  const nav = page.getByRole('navigation');
  const steps: [() => Promise<void>, string][] = [
    [() => nav.getByRole('link', { name: 'Market' }).click(), 'market'],
    [
      () =>
        page.getByTestId('market-row').filter({ hasText: 'Sarah Chen' }).getByRole('link', { name: 'Trade' }).click(),
      'trading',
    ],
    [() => nav.getByRole('link', { name: 'Profile' }).click(), 'portfolio'],
    [() => nav.getByRole('link', { name: 'Wallet' }).click(), 'wallet'],
    [() => nav.getByRole('link', { name: 'Dashboard' }).click(), 'portfolio'],
  ];
  for (const [go, remote] of steps) {
    await go();
    await page.locator(`[data-remote="${remote}"]`).first().waitFor();
  }
}

test('the landing page of section 2, at desktop and phone width, within its JavaScript budget', async () => {
  for (const width of [1280, 390]) {
    const context = await app.newContext({ width });
    const page = await context.newPage();
    const bodies: Promise<number>[] = [];
    const wire: Promise<number>[] = [];
    const encodings = new Set<string | undefined>();
    const measure = (r: import('playwright-core').Response) => {
      if (r.url().endsWith('.js') && r.status() === 200) {
        bodies.push(r.body().then((b) => zlib.gzipSync(b).length));
        // What really crosses the wire: the build's precompressed brotli copy.
        encodings.add(r.headers()['content-encoding']);
        wire.push(
          r
            .request()
            .sizes()
            .then((z) => z.responseBodySize),
        );
      }
    };
    page.on('response', measure);
    await page.goto(app.url, { waitUntil: 'networkidle' });
    page.off('response', measure);
    const gzipped = (await Promise.all(bodies)).reduce((a, b) => a + b, 0);
    expect(gzipped / 1024).toBeLessThanOrEqual(BUDGETS_KB.landing);
    await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toMatch(
      /The Future of\s+Reputation Trading/,
    );
    for (const figure of ['12,450+', '$2.4M', '8,920', '94.2%'])
      await page.getByText(figure, { exact: true }).waitFor();
    for (const label of ['Active Traders', 'Total Volume', 'Reputation Tokens', 'Success Rate']) {
      await page.getByText(label, { exact: true }).waitFor();
    }
    await expect(page.title()).resolves.toMatch(/RepX/);
    await page.screenshot({ path: path.join(SCREENSHOTS, `landing-${width}.png`), fullPage: true });
    const sent = (await Promise.all(wire)).reduce((a, b) => a + b, 0);
    expect([...encodings]).toEqual(['br']);
    console.log(
      `landing page at ${width}px: ${(gzipped / 1024).toFixed(1)} KB of gzipped JavaScript (budget ${BUDGETS_KB.landing} KB); ${(sent / 1024).toFixed(1)} KB sent as brotli`,
    );
    for (const link of ['Sign In', 'Get Started', 'Explore Market', 'Start Trading Now']) {
      await page.goto(app.url);
      await page.getByRole('link', { name: link }).click();
      await page.waitForURL('**/auth');
    }
    await context.close();
  }
});

test('each route loads its own remote, and the page holds one React', async () => {
  const context = await app.newContext();
  await context.addInitScript(COUNT_REACT_RENDERERS);
  const page = await context.newPage();
  const manifests = new Set<string>();
  page.on('request', (r) => {
    if (r.url().endsWith('mf-manifest.json')) manifests.add(new URL(r.url()).port);
  });
  await signIn(page, app);
  await visitEachScreen(page);
  const expected = ['market', 'portfolio', 'trading', 'wallet'].map((n) => String(app.ports.remotes[n as 'market']));
  expect([...manifests].sort()).toEqual(expected.sort());
  expect(manifests.has(String(app.ports.remotes.admin))).toBe(false);
  expect(await page.evaluate(() => (window as unknown as { __renderers: number }).__renderers)).toBe(1);
  await context.close();
});

test("a signed-in person's next screens are fetched while idle, never before the first screen, never the admin's", async () => {
  const context = await app.newContext();
  const page = await context.newPage();
  const fetched: { url: string; at: number }[] = [];
  page.on('request', (r) => fetched.push({ url: r.url(), at: Date.now() }));
  await signIn(page, app);
  await page.getByTestId('holding-row').first().waitFor();
  const remoteOf = (url: string) =>
    Object.entries(app.ports.remotes).find(([, port]) => new URL(url).port === String(port))?.[0];
  const wallet = () => fetched.filter((f) => remoteOf(f.url) === 'wallet' && f.url.endsWith('.js'));
  for (let waited = 0; wallet().length < 2 && waited < 15_000; waited += 200) await page.waitForTimeout(200);
  // The wallet's entry and its screen's chunk, before anyone opened it, after the dashboard's own code.
  expect(wallet().map((f) => f.url.split('/').pop())).toEqual(
    expect.arrayContaining(['remoteEntry.js', expect.stringMatching(/^__federation_expose_Wallet\./)]),
  );
  const dashboard = fetched.find((f) => /__federation_expose_Dashboard\./.test(f.url))!;
  expect(Math.min(...wallet().map((f) => f.at))).toBeGreaterThan(dashboard.at);
  expect(fetched.filter((f) => remoteOf(f.url) === 'admin' && f.url.endsWith('.js'))).toEqual([]);
  await context.close();
});

test('the page runs under its Content-Security-Policy: every screen works, nothing from elsewhere loads', async () => {
  const served = await fetch(`${app.url}/dashboard`);
  const policy = served.headers.get('content-security-policy') ?? '';
  expect(policy).toContain("frame-ancestors 'none'"); // no other site may frame an order button
  expect(policy).toContain(`img-src 'self' data: ${app.backend.url}`);
  expect(served.headers.get('x-content-type-options')).toBe('nosniff');

  const context = await app.newContext();
  await context.addInitScript(() => {
    const w = window as unknown as { __violations: string[] };
    w.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      w.__violations.push(`${e.effectiveDirective} ${e.blockedURI}`),
    );
  });
  const page = await context.newPage();
  await signIn(page, app);
  await visitEachScreen(page);
  await page.getByTestId('holding-row').first().waitFor(); // data over the API, live updates over the socket
  const violations = () => page.evaluate(() => (window as unknown as { __violations: string[] }).__violations);
  expect(await violations()).toEqual([]);

  // A picture from another host (a tracking pixel) and an inline script are refused.
  await page.evaluate(() => {
    const img = document.createElement('img');
    img.src = 'https://tracker.example/pixel.png';
    document.body.append(img);
    const script = document.createElement('script');
    script.textContent = 'window.__ran = true';
    document.body.append(script);
  });
  await page.waitForFunction(() => (window as unknown as { __violations: string[] }).__violations.length === 2);
  expect((await violations()).sort()).toEqual(['img-src https://tracker.example/pixel.png', 'script-src-elem inline']);
  expect(await page.evaluate(() => (window as unknown as { __ran?: boolean }).__ran)).toBeUndefined();
  await context.close();
});

test('every remote takes the platform from the shell and carries its own UI kit', () => {
  for (const dir of ['mf-market', 'mf-portfolio', 'mf-trading', 'mf-wallet', 'mf-admin']) {
    const built = path.join(__dirname, '..', dir, 'dist');
    const manifest = JSON.parse(fs.readFileSync(path.join(built, 'mf-manifest.json'), 'utf8')) as {
      shared: { name: string }[];
    };
    const shared = manifest.shared.map((s) => s.name);
    expect(shared).toContain('@repex/shared-ui/platform');
    expect(shared.filter((name) => name.startsWith('@repex/shared-ui/ui'))).toEqual([]);
    const code = fs
      .readdirSync(built)
      .filter((f) => f.endsWith('.js'))
      .map((f) => fs.readFileSync(path.join(built, f), 'utf8'))
      .join('\n');
    expect(code).toContain('data-build'); // the UI kit's Page, compiled in
    expect(code).not.toContain('configureSupabase() has not run'); // no copy of the platform's client
    expect(code).not.toContain('may be used only in the context of a <Router>'); // no copy of the router
  }
});

test('a stopped remote shows an error with Retry while the rest works; Retry recovers it', async () => {
  const context = await app.newContext();
  const page = await context.newPage();
  await signIn(page, app);
  await app.frontends.stopRemote('wallet');
  try {
    await page.getByRole('link', { name: 'Wallet' }).click();
    await page.getByTestId('remote-error').waitFor();
    await expect(page.getByTestId('remote-error').innerText()).resolves.toMatch(
      /The Wallet screen could not be loaded/,
    );
    await page.screenshot({ path: path.join(SCREENSHOTS, 'remote-down.png') });
    // Navigation and other remotes keep working.
    await page.getByRole('link', { name: 'Market' }).click();
    await page.locator('[data-remote="market"]').first().waitFor();
    await page.getByRole('link', { name: 'Wallet' }).click();
    await page.getByTestId('remote-error').waitFor();
  } finally {
    await app.frontends.startRemote('wallet');
  }
  await page.getByRole('button', { name: 'Retry' }).click();
  await page.locator('[data-remote="wallet"]').first().waitFor();
  await context.close();
});

test('a remote down at start-up: its links and pages are missing, said so with Retry, and back once it answers', async () => {
  const context = await app.newContext();
  const page = await context.newPage();
  await signIn(page, app);
  await app.frontends.stopRemote('wallet');
  try {
    await page.goto(`${app.url}/wallet`); // a fresh start: the shell reads every remote's routes.json
    await page.getByTestId('remote-error').waitFor();
    await expect(page.getByTestId('remote-error').innerText()).resolves.toMatch(
      /This page could not be loaded[\s\S]*wallet/,
    );
    await expect(page.getByRole('link', { name: 'Wallet' }).count()).resolves.toBe(0);
    await page.getByRole('link', { name: 'Market' }).click(); // the rest works
    await page.locator('[data-remote="market"]').first().waitFor();
    await page.goto(`${app.url}/wallet`);
    await page.getByTestId('remote-error').waitFor();
  } finally {
    await app.frontends.startRemote('wallet');
  }
  await page.getByRole('button', { name: 'Retry' }).click();
  await page.locator('[data-remote="wallet"]').first().waitFor();
  await page.getByRole('link', { name: 'Wallet' }).waitFor();
  await context.close();
});

// data-build is stamped by the UI kit's Page, which each remote bundles: the new value proves that
// a UI kit change reaches the browser by rebuilding the remote alone.
test('a rebuilt remote, with its UI kit, appears after a reload, without rebuilding the shell', async () => {
  const context = await app.newContext();
  const page = await context.newPage();
  await signIn(page, app);
  await page.goto(`${app.url}/wallet`);
  const before = await page.locator('[data-remote="wallet"]').first().getAttribute('data-build');
  const shellBefore = fs.readdirSync(path.join(__dirname, '../shell/dist')).sort();

  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'repex-wallet-'));
  await compile(configFor('mf-wallet', { mode: 'production', outDir: out, buildId: 'e2e-redeploy' }));
  await app.frontends.startRemote('wallet', out); // redeploy: same URL, new files

  await page.reload();
  await expect(page.locator('[data-remote="wallet"]').first().getAttribute('data-build')).resolves.toBe('e2e-redeploy');
  expect(before).not.toBe('e2e-redeploy');
  expect(fs.readdirSync(path.join(__dirname, '../shell/dist')).sort()).toEqual(shellBefore);
  await app.frontends.startRemote('wallet');
  fs.rmSync(out, { recursive: true, force: true });
  await context.close();
});

test('an unknown address shows the not-found page', async () => {
  const context = await app.newContext();
  const page = await context.newPage();
  await page.goto(`${app.url}/no/such/page`);
  await page.getByRole('heading', { name: 'Page not found' }).waitFor();
  await context.close();
});
