import fs from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { type Backend, type BackendOptions } from '../../server/index';
import { NO_RATE_LIMITS } from '../../server/http/rateLimit';
import { startMigratedPglite } from '../../integration/harness/backends';
import { headlessChromium } from '../../scripts/lib/chromium';
import { startFrontends, type Stack } from '../../scripts/lib/stack';
import type { StackPorts } from '../../scripts/lib/config';
import { ROOT } from '../../scripts/webpack/config';
import { PACKAGE_DIRS, REMOTE_NAMES, type RemoteName } from '../../scripts/webpack/packages';
import { DEMO_ACCOUNTS } from '../../server/demo';
import { confirmSignUp, lastCodeFor } from '../../integration/harness/mail';

type StorageState = Awaited<ReturnType<BrowserContext['storageState']>>;

export const SCREENSHOTS = path.join(ROOT, 'test-results', 'screenshots');

/** The browser every end-to-end file drives (scripts/lib/chromium.ts), the screenshots' folder made. */
export async function launchChromium(): Promise<Browser> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  return headlessChromium();
}

export interface E2EApp {
  url: string;
  ports: StackPorts;
  backend: Backend;
  frontends: Stack;
  browser: Browser;
  /** A new browser profile (own storage, or `storageState` kept from a closed one), like a second person on another machine. */
  newContext: (opts?: { width?: number; storageState?: StorageState }) => Promise<BrowserContext>;
  /** A page in a new browser profile, `width` px wide: a person who has not signed in here. */
  newPage: (width?: number) => Promise<Page>;
  close: () => Promise<void>;
}

/** The built app, served as in production, on free ports, over a fresh seeded database; `project` sets what a
 * project's config.toml would (confirmations off, a smaller max_rows, say) for the backend. */
export async function startApp(project: Pick<BackendOptions, 'emailConfirmations' | 'maxRows'> = {}): Promise<E2EApp> {
  for (const dir of PACKAGE_DIRS) {
    if (!fs.existsSync(path.join(ROOT, dir, 'dist')))
      throw new Error(`${dir}/dist is missing: run npm run build first`);
  }
  // Every server on a free port it takes as it starts, so files running side by side never meet.
  const backend = await startMigratedPglite({ port: 0, rateLimits: NO_RATE_LIMITS, ...project });
  const anyPort: StackPorts = {
    shell: 0,
    supabase: backend.port,
    remotes: Object.fromEntries(REMOTE_NAMES.map((n) => [n, 0])) as Record<RemoteName, number>,
  };
  // The build under test (npm run build), whatever release a developer has deployed.
  const frontends = await startFrontends(anyPort, backend.anonKey, (pkg) => path.join(ROOT, pkg, 'dist'));
  const browser = await launchChromium();
  const newContext: E2EApp['newContext'] = ({ width = 1280, storageState } = {}) =>
    browser.newContext({ viewport: { width, height: 900 }, storageState });
  return {
    url: frontends.shell.url,
    ports: frontends.ports,
    backend,
    frontends,
    browser,
    newContext,
    newPage: async (width = 1280) => (await newContext({ width })).newPage(),
    close: async () => {
      await browser.close();
      await frontends.close();
      await backend.close();
    },
  };
}

/** An unmodified supabase-js client in the test's process, for what a test sets up through the API. */
export function nodeClient(app: E2EApp): SupabaseClient {
  return createClient(app.backend.url, app.backend.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
  });
}

/**
 * The visible toast's texts. With `title`, waits for the toast of that title: a page shared by
 * several tests may still show the previous action's toast (they last 5 s) when the next one is due.
 */
export async function toastText(
  page: Page,
  title?: string,
  /** Part of the description: tells this toast from an earlier one with the same title still shown. */
  saying?: RegExp,
): Promise<{ title: string; description: string; variant: string | null }> {
  let toasts = page.getByTestId('toast');
  if (title) toasts = toasts.filter({ has: page.getByTestId('toast-title').getByText(title, { exact: true }) });
  if (saying) toasts = toasts.filter({ has: page.getByTestId('toast-description').getByText(saying) });
  const toast = toasts.first();
  await toast.waitFor();
  return {
    title: await toast.getByTestId('toast-title').innerText(),
    description: (await toast.getByTestId('toast-description').count())
      ? await toast.getByTestId('toast-description').innerText()
      : '',
    variant: await toast.getAttribute('data-variant'),
  };
}

export async function signIn(
  page: Page,
  app: Pick<E2EApp, 'url'>,
  creds: { email: string; password: string } = DEMO_ACCOUNTS.user,
) {
  await submitSignIn(page, app, creds);
  await page.waitForURL('**/dashboard');
}

/** Fills the Sign In form and sends it, without waiting for where it leads (a second step, say). */
export async function submitSignIn(page: Page, app: Pick<E2EApp, 'url'>, creds: { email: string; password: string }) {
  await page.goto(`${app.url}/auth`);
  await page.fill('#signin-email', creds.email);
  await page.fill('#signin-password', creds.password);
  await page.click('form[aria-label="Sign In"] button[type=submit]');
}

/** A full-page screenshot named `name` at desktop width, then at phone width, back to desktop. */
export async function shootBoth(page: Page, name: string) {
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(150);
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-390.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** Opens a route and waits for the remote that renders it. */
export async function openScreen(page: Page, app: Pick<E2EApp, 'url'>, route: string, remote: string) {
  await page.goto(`${app.url}${route}`);
  await page.locator(`[data-remote="${remote}"]`).first().waitFor();
}

/**
 * Creates an account through the Sign Up form, enters the code mailed to it on the confirmation
 * page, as its person would, and waits for the dashboard.
 */
export async function signUp(page: Page, app: E2EApp, user: { username: string; email: string; password: string }) {
  await page.goto(`${app.url}/auth`);
  await page.getByRole('tab', { name: 'Sign Up' }).click();
  await page.fill('#signup-username', user.username);
  await page.fill('#signup-email', user.email);
  await page.fill('#signup-password', user.password);
  await page.getByRole('button', { name: 'Create Account' }).click();
  await page.waitForURL('**/auth/confirm');
  await page.fill('#confirm-code', await mailedCode(app, user.email));
  await page.getByRole('button', { name: 'Confirm Email' }).click();
  await page.waitForURL('**/dashboard');
}

/** The code in the last mail to `email` that carries one, read off the local server's outbox. */
export async function mailedCode(app: E2EApp, email: string): Promise<string> {
  const code = await lastCodeFor(app.backend.db, email.toLowerCase());
  if (!code) throw new Error(`no code was mailed to ${email}`);
  return code;
}

/** An account made and confirmed through the API (sign-up, then its mailed code), signed in on a Node client. */
export async function apiUser(app: E2EApp, user: { username: string; email: string; password: string }) {
  const api = nodeClient(app);
  const { error } = await api.auth.signUp({
    email: user.email,
    password: user.password,
    options: { data: { username: user.username } },
  });
  if (error) throw new Error(`sign-up of ${user.email} failed: ${error.message}`);
  await confirmSignUp(app.backend.db, api, user.email);
  return api;
}

/** Places an order through the trading screen's order panel and its confirmation step. */
export async function placeOrder(
  page: Page,
  o: {
    side: 'Buy' | 'Sell';
    type: 'Market' | 'Limit' | 'Stop';
    amount: number;
    price?: string;
    /** A stop's trigger; with `price`, a stop-limit. */
    trigger?: string;
    /** A sell stop's take-profit: the pair. */
    takeProfit?: string;
    /** The time in force, as the panel names it ('Immediate or cancel'). */
    timeInForce?: string;
    postOnly?: boolean;
  },
) {
  await page.getByRole('button', { name: o.side, exact: true }).click();
  await page.getByRole('button', { name: o.type, exact: true }).click();
  await page.locator('#order-amount').fill(String(o.amount));
  if (o.trigger) await page.locator('#order-stop').fill(o.trigger);
  if (o.type === 'Stop' && o.price) await page.getByRole('button', { name: 'At a limit', exact: true }).click();
  if (o.price) await page.locator('#order-limit').fill(o.price);
  if (o.takeProfit) {
    await page.getByLabel('Also take profit above the market').check();
    await page.locator('#order-take-profit').fill(o.takeProfit);
  }
  if (o.timeInForce) await page.locator('#order-tif').selectOption({ label: o.timeInForce });
  if (o.postOnly) await page.getByLabel('Post-only (refuse it if it would trade at once)').check();
  await page.getByRole('button', { name: `Place ${o.side} Order` }).click();
  const confirm = page.getByRole('region', { name: 'Confirm order' });
  await confirm.waitFor();
  await confirm.getByRole('button', { name: `Confirm ${o.side}` }).click();
}

/** The exchange's fee on `value`, as its settings say now (rounded half up to the cent, as the database does). */
export async function feeOn(app: E2EApp, value: number): Promise<number> {
  const [{ fee_bps: bps }] = await app.backend.db.query<{ fee_bps: number }>('select fee_bps from exchange_settings');
  return Math.round((value * bps) / 100) / 100;
}

/** Text for a regular expression, matched literally. */
export const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Expects `read` to give `expected` once the screen has settled: a screen's queries land in any
 * order, so a part can still be loading when another is shown. Reads again for up to 5 seconds.
 */
export async function eventually<T>(read: () => Promise<T>, expected: T): Promise<void> {
  const until = Date.now() + 5_000;
  let value = await read();
  while (!isDeepStrictEqual(value, expected) && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  expect(value).toEqual(expected);
}

/** A field's hint is shown whole: its text, in the placeholder's own font, fits inside the padding. */
export async function placeholderWhole(page: Page, label: string, screen: string) {
  const [text, textWidth, room] = await page.getByLabel(label).evaluate((el: HTMLInputElement) => {
    const hint = getComputedStyle(el, '::placeholder');
    const box = getComputedStyle(el);
    const ctx = document.createElement('canvas').getContext('2d')!;
    ctx.font = `${hint.fontWeight} ${hint.fontSize} ${hint.fontFamily}`;
    const padding = parseFloat(box.paddingLeft) + parseFloat(box.paddingRight);
    return [el.placeholder, ctx.measureText(el.placeholder).width, el.clientWidth - padding] as const;
  });
  expect({ screen, text, whole: text.length > 0 && textWidth <= room }).toEqual({ screen, text, whole: true });
}

/** A screen's tabs share one row, at any width (a wrapped tab reads as a second menu). */
export async function tabsInOneRow(page: Page, screen: string) {
  const tops = await page.getByRole('tab').evaluateAll((tabs) => tabs.map((t) => t.getBoundingClientRect().top));
  expect({ screen, rows: new Set(tops).size }).toEqual({ screen, rows: 1 });
}

/**
 * Taps a tab where a finger would, on the part of it that shows in its row (Playwright's click would
 * scroll it whole into view first), then waits for it to be active and whole in the row, clear of
 * the faded edge that marks more tabs beyond.
 */
export async function tapTab(page: Page, name: string) {
  const tab = page.getByRole('tab', { name, exact: true });
  const [x, y] = await tab.evaluate((t) => {
    const r = t.getBoundingClientRect();
    const row = t.parentElement!.getBoundingClientRect();
    return [(Math.max(r.left, row.left) + Math.min(r.right, row.right)) / 2, (r.top + r.bottom) / 2];
  });
  await page.mouse.click(x, y);
  const place = () =>
    tab.evaluate((t) => {
      const r = t.getBoundingClientRect();
      const row = t.parentElement!;
      const box = row.getBoundingClientRect();
      // The fade is 28 px (Tabs.tsx); a pixel's rounding either way.
      const start = box.left + (row.hasAttribute('data-more-start') ? 27 : 0);
      const end = box.right - (row.hasAttribute('data-more-end') ? 27 : 0);
      return { active: t.getAttribute('data-state') === 'active', whole: r.left >= start && r.right <= end };
    });
  await eventually(place, { active: true, whole: true });
}
