import type { Page } from 'playwright-core';
import { signUp, type E2EApp } from './app';

/**
 * A new account at `width`, signed up as `name` (`name@e2e.repx.dev`), with `cash` deposited and
 * `tokens` Sarah Chen tokens, on `tradingUrl` once its balance shows them.
 */
export async function sarahTrader(
  app: E2EApp,
  tradingUrl: string,
  { name, width, cash, tokens }: { name: string; width: number; cash: number; tokens: number },
): Promise<Page> {
  const page = await (await app.newContext({ width })).newPage();
  const email = `${name}@e2e.repx.dev`;
  await signUp(page, app, { username: name, email, password: `${name}-password-1` });
  await app.backend.db.query(`select private.record_deposit(id, $2) from auth.users where email = $1`, [email, cash]);
  await app.backend.db.query(
    `select private.issue_tokens(t.id, u.id, $2) from tokens t, auth.users u where t.username = 'sarahchen' and u.email = $1`,
    [email, tokens],
  );
  await page.goto(tradingUrl);
  await page
    .getByTestId('your-balance')
    .filter({ hasText: `${tokens} tokens` })
    .waitFor();
  return page;
}
