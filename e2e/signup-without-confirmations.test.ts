import path from 'node:path';
import { SCREENSHOTS, startApp, toastText, type E2EApp } from './helpers/app';

jest.setTimeout(120_000);

/*
 * A project whose supabase/config.toml turns confirmations off ([auth.email]
 * enable_confirmations = false): the sign-up form signs the new account in at once.
 */
let app: E2EApp;
beforeAll(async () => {
  app = await startApp({ emailConfirmations: false });
});
afterAll(() => app?.close());

async function signUpWith(width: number, email: string, username: string) {
  const page = await (await app.newContext({ width })).newPage();
  await page.goto(`${app.url}/auth`);
  await page.getByRole('tab', { name: 'Sign Up' }).click();
  await page.fill('#signup-username', username);
  await page.fill('#signup-email', email);
  await page.fill('#signup-password', 'open-sesame');
  await page.getByRole('button', { name: 'Create Account' }).click();
  return page;
}

test('sign-up signs in at once and leads to the dashboard; the same address again is refused in words', async () => {
  const email = 'open@e2e.repx.dev';
  const page = await signUpWith(1280, email, 'e2e_open');
  await expect(toastText(page, 'Sign Up Successful!')).resolves.toEqual({
    title: 'Sign Up Successful!',
    description: 'Welcome to RepX.',
    variant: 'default',
  });
  await page.waitForURL('**/dashboard');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'signup-open-1280.png') });

  const again = await signUpWith(390, email, 'e2e_open_again');
  await expect(toastText(again, 'Sign up Failed')).resolves.toEqual({
    title: 'Sign up Failed',
    description: 'An account with this email already exists. Sign in, or reset your password.',
    variant: 'destructive',
  });
  expect(again.url()).toBe(`${app.url}/auth`);
  await again.screenshot({ path: path.join(SCREENSHOTS, 'signup-open-taken-390.png') });
  const [{ accounts }] = await app.backend.db.query<{ accounts: number }>(
    'select count(*)::int as accounts from auth.users where email = $1',
    [email],
  );
  expect(accounts).toBe(1);
  for (const p of [page, again]) await p.context().close();
});
