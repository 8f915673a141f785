import path from 'node:path';
import { SCREENSHOTS, startApp, type E2EApp } from './helpers/app';

jest.setTimeout(120_000);

let app: E2EApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app?.close());

/** A page whose JavaScript never arrives: what a visitor sees before the app has started. */
async function withoutScripts(width: number, storedSession = false) {
  const context = await app.newContext({ width });
  await context.route(/\.js(\?|$)/, (route) => route.abort());
  if (storedSession)
    await context.addInitScript(() => localStorage.setItem('sb-127-auth-token', '{"access_token":"stored"}'));
  const page = await context.newPage();
  const refused: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) refused.push(m.text());
  });
  await page.goto(app.url);
  return { page, refused, close: () => context.close() };
}

test('the landing page is in the HTML served at /, at desktop and phone width', async () => {
  for (const width of [1280, 390]) {
    const { page, refused, close } = await withoutScripts(width);
    await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toMatch(
      /The Future of\s+Reputation Trading/,
    );
    for (const figure of ['12,450+', 'Active Traders', 'How It Works', 'Start Trading Now'])
      await expect(page.getByText(figure, { exact: true }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('link', { name: 'Get Started' }).getAttribute('href')).resolves.toBe('/auth');
    await page.screenshot({ path: path.join(SCREENSHOTS, `landing-html-${width}.png`), fullPage: true });
    expect(refused).toEqual([]);
    await close();
  }
});

test('a visitor with a stored session is not shown it: the inline probe runs under the CSP', async () => {
  const { page, refused, close } = await withoutScripts(1280, true);
  await expect(page.evaluate(() => document.documentElement.classList.contains('signed-in'))).resolves.toBe(true);
  await expect(page.getByRole('heading', { level: 1 }).isVisible()).resolves.toBe(false);
  expect(refused).toEqual([]);
  await close();
});

test('every other address gets the page without it, and the app renders the same landing page', async () => {
  for (const route of ['/dashboard', '/auth', '/market'])
    await expect((await fetch(`${app.url}${route}`)).text()).resolves.not.toContain('id="landing"');
  const context = await app.newContext({ width: 390 });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(app.url, { waitUntil: 'networkidle' });
  // React has replaced the written page with its own (the #landing wrapper is gone), and it reads alike.
  await expect(page.locator('#landing').count()).resolves.toBe(0);
  await expect(page.getByRole('heading', { level: 1 }).isVisible()).resolves.toBe(true);
  await page.getByRole('link', { name: 'Sign In' }).click();
  await page.waitForURL('**/auth');
  expect(errors).toEqual([]);
  await context.close();
});

test("on the sign-in page, the dashboard's code is fetched while idle; on the landing page, no screen's", async () => {
  const context = await app.newContext();
  const page = await context.newPage();
  const fetched: string[] = [];
  page.on('request', (r) => fetched.push(r.url()));
  const remoteOf = (url: string) =>
    Object.entries(app.ports.remotes).find(([, port]) => new URL(url).port === String(port))?.[0];
  const scripts = () => fetched.filter((u) => remoteOf(u) && u.endsWith('.js'));
  await page.goto(app.url, { waitUntil: 'networkidle' });
  await page.waitForTimeout(1_000);
  expect(scripts()).toEqual([]);
  await page.getByRole('link', { name: 'Sign In' }).click();
  await page.waitForURL('**/auth');
  for (let waited = 0; scripts().length < 2 && waited < 15_000; waited += 200) await page.waitForTimeout(200);
  // Only the portfolio remote's entry and its Dashboard screen: nobody has signed in yet.
  expect(new Set(scripts().map(remoteOf))).toEqual(new Set(['portfolio']));
  expect(scripts().map((u) => u.split('/').pop())).toEqual(
    expect.arrayContaining(['remoteEntry.js', expect.stringMatching(/^__federation_expose_Dashboard\./)]),
  );
  await context.close();
});
