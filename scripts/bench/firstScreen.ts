/**
 * npm run bench:first-screen: how soon a person sees each screen, in headless Chromium on this
 * machine, cold cache (a new browser context per run), the median of five runs:
 *
 *   landing LCP                      the landing page's largest contentful paint, and its JavaScript;
 *   sign-in → dashboard content      from the Sign In click to the first holding on the dashboard;
 *   content after a click            from a click in the navigation (or Trade on the market) to the
 *                                    screen's content, on its first visit in that browser, once the
 *                                    shell has preloaded the screens' code; timed from the click
 *                                    event itself.
 *
 *   npm run bench:first-screen                         # the current build (npm run build)
 *   npm run bench:first-screen -- --before /tmp/prev   # and another build beside it, in the same run
 *
 * `--before` names a checkout whose packages are built (<dir>/<package>/dist): both builds are
 * measured against one backend, turn by turn, so the machine's noise falls on both alike. The table
 * is printed and written to docs/benchmarks.md, between its first-screen markers.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startBackend } from '../../server/index';
import { NO_RATE_LIMITS } from '../../server/http/rateLimit';
import { DEMO_ACCOUNTS } from '../../server/demo';
import { headlessChromium } from '../lib/chromium';
import { startFrontends, type Stack } from '../lib/stack';
import type { StackPorts } from '../lib/config';
import { ROOT } from '../webpack/config';
import { REMOTE_NAMES, type RemoteName } from '../webpack/packages';

const RUNS = 5;
const DOC = path.join(ROOT, 'docs/benchmarks.md');
const [START, END] = ['<!-- first-screen:start -->', '<!-- first-screen:end -->'];

interface Figures {
  landingLcp: number;
  landingJsKb: number;
  signInToDashboard: number;
  market: number;
  wallet: number;
  profile: number;
  trading: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * The page's clock when an element matching `selector` (and holding `text`) is first in the page.
 * Checked at every frame: Playwright's own waits retry at growing intervals (up to 500 ms), which
 * would be measured as the screen's time.
 */
async function shown(page: Page, selector: string, text = ''): Promise<number> {
  const found = await page.waitForFunction(
    ([sel, txt]) => [...document.querySelectorAll(sel)].some((e) => e.textContent?.includes(txt)) && performance.now(),
    [selector, text] as const,
    { polling: 'raf', timeout: 30_000 },
  );
  return (await found.jsonValue()) as number;
}

/**
 * Milliseconds from the click that `act` makes until `ready` resolves with the page's clock, in the
 * page's own clock. The start is the click event's own time: Playwright first waits for the
 * element to hold still over animation frames, which a person's click does not.
 */
async function timed(page: Page, act: () => Promise<unknown>, ready: () => Promise<number>): Promise<number> {
  await page.evaluate(() =>
    document.addEventListener('click', (e) => ((window as unknown as { clickedAt: number }).clickedAt = e.timeStamp), {
      capture: true,
      once: true,
    }),
  );
  await act();
  const shownAt = await ready();
  return shownAt - (await page.evaluate(() => (window as unknown as { clickedAt: number }).clickedAt));
}

async function landing(browser: Browser, url: string): Promise<{ lcp: number; jsKb: number }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const scripts: Promise<number>[] = [];
  page.on('requestfinished', (request) => {
    if (request.resourceType() === 'script')
      scripts.push(request.sizes().then((s) => s.responseBodySize + s.responseHeadersSize));
  });
  await page.goto(url, { waitUntil: 'networkidle' });
  const lcp = await page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        new PerformanceObserver((list) => {
          const entries = list.getEntries();
          resolve(entries[entries.length - 1]!.startTime);
        }).observe({ type: 'largest-contentful-paint', buffered: true });
      }),
  );
  const js = (await Promise.all(scripts)).reduce((a, b) => a + b, 0);
  await context.close();
  return { lcp, jsKb: js / 1024 };
}

/** A new browser (cold cache), signed in through the form: the time to the dashboard's content. */
async function signedIn(
  browser: Browser,
  url: string,
): Promise<{ page: Page; ms: number; close: () => Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${url}/auth`, { waitUntil: 'networkidle' });
  await page.fill('#signin-email', DEMO_ACCOUNTS.user.email);
  await page.fill('#signin-password', DEMO_ACCOUNTS.user.password);
  const ms = await timed(
    page,
    () => page.click('form[aria-label="Sign In"] button[type=submit]'),
    () => shown(page, '[data-testid=holding-row]'),
  );
  return { page, ms, close: () => context.close() };
}

/** The screens the shell preloads once the first one has loaded and the browser is idle (usePreloadScreens). */
const PRELOADED = ['Market', 'Trading', 'Wallet'];

/**
 * After the dashboard and an idle moment in which the shell preloads the other screens' code, a
 * first visit by a click: the visit of someone who looked at their dashboard for a moment first.
 */
async function firstVisit(browser: Browser, url: string, screen: keyof Figures): Promise<number> {
  const { page, close } = await signedIn(browser, url);
  // A build from before the preload never asks: its visits go on after the wait.
  await Promise.all(
    PRELOADED.map((module) =>
      page
        .waitForRequest((r) => r.url().includes(`__federation_expose_${module}.`), { timeout: 5_000 })
        .catch(() => undefined),
    ),
  );
  await page.waitForLoadState('networkidle');
  const nav = (label: string) => page.getByRole('navigation').getByRole('link', { name: label, exact: true });
  let ms: number;
  if (screen === 'trading') {
    await nav('Market').click();
    await page.getByTestId('market-row').first().waitFor();
    await page.waitForLoadState('networkidle');
    ms = await timed(
      page,
      () =>
        page.getByTestId('market-row').filter({ hasText: 'Sarah Chen' }).getByRole('link', { name: 'Trade' }).click(),
      () => shown(page, 'summary', 'How is the reputation score computed?'),
    );
  } else {
    const [label, content] = {
      market: ['Market', () => shown(page, '[data-testid=market-row]')],
      wallet: ['Wallet', () => shown(page, '[data-testid=available-balance]', '$')],
      profile: ['Profile', () => shown(page, '[data-remote=portfolio]', '@alexrivera')],
    }[screen as 'market' | 'wallet' | 'profile'] as [string, () => Promise<number>];
    ms = await timed(page, () => nav(label).click(), content);
  }
  await close();
  return ms;
}

async function measure(browser: Browser, url: string): Promise<Figures> {
  const runs: Figures[] = [];
  for (let i = 0; i < RUNS; i++) {
    const land = await landing(browser, url);
    const sign = await signedIn(browser, url);
    await sign.close();
    runs.push({
      landingLcp: land.lcp,
      landingJsKb: land.jsKb,
      signInToDashboard: sign.ms,
      market: await firstVisit(browser, url, 'market'),
      wallet: await firstVisit(browser, url, 'wallet'),
      profile: await firstVisit(browser, url, 'profile'),
      trading: await firstVisit(browser, url, 'trading'),
    });
  }
  return Object.fromEntries(
    (Object.keys(runs[0]!) as (keyof Figures)[]).map((k) => [k, median(runs.map((r) => r[k]))]),
  ) as unknown as Figures;
}

function table(builds: { name: string; figures: Figures }[]): string {
  const ms = (n: number) => `${Math.round(n)} ms`;
  const rows: [string, (f: Figures) => string, string][] = [
    ['landing LCP', (f) => `${ms(f.landingLcp)} (${f.landingJsKb.toFixed(0)} KB of JavaScript sent)`, '≤ 250 ms'],
    ['sign-in → dashboard content', (f) => ms(f.signInToDashboard), '≤ 400 ms'],
    ['market, after a click, first visit', (f) => ms(f.market), '≤ 150 ms'],
    ['wallet, after a click, first visit', (f) => ms(f.wallet), '≤ 150 ms'],
    ['profile, after a click, first visit', (f) => ms(f.profile), '≤ 150 ms'],
    ['trading, after a click, first visit', (f) => ms(f.trading), '≤ 150 ms'],
  ];
  return [
    `| figure | ${builds.map((b) => b.name).join(' | ')} | goal |`,
    `|---|${builds.map(() => '---|').join('')}---|`,
    ...rows.map(([label, cell, goal]) => `| ${label} | ${builds.map((b) => cell(b.figures)).join(' | ')} | ${goal} |`),
  ].join('\n');
}

async function main() {
  const at = process.argv.indexOf('--before');
  const before = at > 0 ? path.resolve(process.argv[at + 1]!) : undefined;
  const backend = await startBackend({ port: 0, rateLimits: NO_RATE_LIMITS });
  const anyPort: StackPorts = {
    shell: 0,
    supabase: backend.port,
    remotes: Object.fromEntries(REMOTE_NAMES.map((n) => [n, 0])) as Record<RemoteName, number>,
  };
  const builds: { name: string; root: string }[] = [
    ...(before ? [{ name: 'before', root: before }] : []),
    { name: before ? 'after' : 'now', root: ROOT },
  ];
  const stacks: Stack[] = [];
  for (const b of builds)
    stacks.push(await startFrontends(anyPort, backend.anonKey, (pkg) => path.join(b.root, pkg, 'dist')));
  const browser = await headlessChromium();
  try {
    const figures = [];
    for (const [i, b] of builds.entries())
      figures.push({ name: b.name, figures: await measure(browser, stacks[i]!.shell.url) });
    const text = `Headless Chromium on this machine, cold cache, median of ${RUNS} (npm run bench:first-screen, ${new Date().toISOString().slice(0, 10)}):\n\n${table(figures)}`;
    console.log(text);
    const doc = fs.readFileSync(DOC, 'utf8');
    if (doc.includes(START))
      fs.writeFileSync(
        DOC,
        `${doc.slice(0, doc.indexOf(START) + START.length)}\n${text}\n${doc.slice(doc.indexOf(END))}`,
      );
  } finally {
    await browser.close();
    for (const s of stacks) await s.close();
    await backend.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
