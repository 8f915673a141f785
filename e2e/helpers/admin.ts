import type { Page } from 'playwright-core';
import { DEMO_ACCOUNTS } from '../../server/demo';
import { signUp, type E2EApp } from './app';

/** A browser signed in as the demo admin at /auth/nra, on the admin dashboard. */
export async function adminPage(app: E2EApp): Promise<Page> {
  const admin = await app.newPage();
  await admin.goto(`${app.url}/auth/nra`);
  await admin.fill('#admin-email', DEMO_ACCOUNTS.admin.email);
  await admin.fill('#admin-password', DEMO_ACCOUNTS.admin.password);
  await admin.getByRole('button', { name: 'Sign In' }).click();
  await admin.locator('[data-remote="admin"]').first().waitFor();
  return admin;
}

/** A new account signed up in its own browser, with `cash` deposited. */
export async function fundedUser(app: E2EApp, username: string, cash: number): Promise<Page> {
  const page = await app.newPage();
  await signUp(page, app, { username, email: `${username}@e2e.repx.dev`, password: 'e2e-pass-1' });
  await app.backend.db.query(`select private.record_deposit(id, $2) from auth.users where email = $1`, [
    `${username}@e2e.repx.dev`,
    cash,
  ]);
  return page;
}
