import path from 'node:path';
import { totpCode } from '../server/auth/totp';
import { freshStep } from '../integration/harness/totp';
import { SCREENSHOTS, apiUser, submitSignIn, signUp, startApp, toastText, type E2EApp } from './helpers/app';

jest.setTimeout(120_000);

let app: E2EApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app?.close());

test('two-step verification: Settings turns it on with the key, sign-in then asks for the code, Settings turns it off', async () => {
  const user = { username: 'e2e_twostep', email: 'twostep@e2e.repx.dev', password: 'twostep-password' };
  const page = await app.newPage(390);
  await signUp(page, app, user);
  await page.goto(`${app.url}/profile`);
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByText('Two-step verification: off').waitFor();
  await page.getByRole('button', { name: 'Turn on' }).click();
  const dialog = page.getByRole('dialog', { name: 'Turn On Two-Step Verification' });
  await dialog.getByRole('img', { name: 'QR code to add RepX to an authenticator app' }).waitFor();
  const secret = (await dialog.getByLabel('Key for the authenticator app').innerText()).replace(/\s/g, '');
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'two-step-on-390.png') });
  const step = await freshStep(15_000);

  await page.fill('#two-step-code', totpCode(secret, step + 5));
  await dialog.getByRole('button', { name: 'Turn On' }).click();
  await dialog.getByText('The code is wrong. Enter the one your app shows now.').waitFor();
  await page.fill('#two-step-code', totpCode(secret, step - 1));
  await dialog.getByRole('button', { name: 'Turn On' }).click();
  await expect(toastText(page, 'Two-Step Verification On')).resolves.toMatchObject({
    description: 'Signing in now asks for a code from your authenticator app.',
  });
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByText('Two-step verification: on, with an authenticator app').waitFor();
  await page.screenshot({ path: path.join(SCREENSHOTS, 'settings-two-step-390.png') });
  await page.keyboard.press('Escape');

  // Another browser: the password leads to the code step, and every page waits behind it.
  const laptop = await app.newPage(1280);
  await submitSignIn(laptop, app, { email: user.email, password: user.password });
  await laptop.waitForURL('**/auth/verify');
  await laptop.getByRole('heading', { name: 'Two-Step Verification' }).waitFor();
  await laptop.screenshot({ path: path.join(SCREENSHOTS, 'two-step-1280.png') });
  await laptop.goto(`${app.url}/wallet`);
  await laptop.waitForURL('**/auth/verify');
  // A wrong code (a code already used is refused too: the integration test checks it, as its
  // refusal depends on the code still being within the window when it arrives).
  await laptop.fill('#two-step-code', totpCode(secret, step + 5));
  await laptop.getByRole('button', { name: 'Verify' }).click();
  await expect(toastText(laptop, 'Verification Failed')).resolves.toMatchObject({
    description: 'The code is wrong. Enter the one your app shows now.',
  });
  await laptop.fill('#two-step-code', totpCode(secret, step));
  await laptop.getByRole('button', { name: 'Verify' }).click();
  await laptop.waitForURL('**/wallet');
  await expect(toastText(laptop, 'Signed In Successfully!')).resolves.toMatchObject({ description: 'Welcome back!' });
  await laptop.reload();
  await laptop.getByRole('heading', { name: 'Wallet' }).first().waitFor();
  expect(new URL(laptop.url()).pathname).toBe('/wallet');

  // Off again, with a code.
  await laptop.goto(`${app.url}/profile`);
  await laptop.getByRole('button', { name: 'Settings' }).click();
  await laptop.getByRole('button', { name: 'Manage' }).click();
  await laptop.getByRole('list', { name: 'Authenticator apps' }).getByRole('button', { name: 'Turn off' }).click();
  const off = laptop.getByRole('dialog', { name: 'Turn Off Two-Step Verification' });
  await laptop.fill('#two-step-code', totpCode(secret, step + 1));
  await laptop.screenshot({ path: path.join(SCREENSHOTS, 'two-step-off-1280.png') });
  await off.getByRole('button', { name: 'Turn Off' }).click();
  await expect(toastText(laptop, 'Two-Step Verification Off')).resolves.toMatchObject({
    description: 'Signing in now asks for your password only.',
  });
  const again = await app.newPage(390);
  await submitSignIn(again, app, { email: user.email, password: user.password });
  await again.waitForURL('**/dashboard');
  for (const p of [page, laptop, again]) await p.context().close();
});

test('a backup app: added from Settings, the lost first app removed with its code, whose sessions end', async () => {
  const email = 'backup-app@e2e.repx.dev';
  const password = 'backup-password';
  const api = await apiUser(app, { email, password, username: 'e2e_backup' });
  const { data } = await api.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Authenticator app', issuer: 'RepX' });
  const { id: factorId, totp } = data as { id: string; totp: { secret: string } };
  const step = await freshStep(40_000);
  expect((await api.auth.mfa.challengeAndVerify({ factorId, code: totpCode(totp.secret, step - 1) })).error).toBeNull();
  // The API client is whoever will hold the lost laptop, signed in with its code. A laptop signs in too.
  const laptop = await app.newPage(1280);
  await submitSignIn(laptop, app, { email: email, password: password });
  await laptop.waitForURL('**/auth/verify');
  expect(await laptop.locator('#two-step-app').count()).toBe(0);
  await laptop.fill('#two-step-code', totpCode(totp.secret, step));
  await laptop.getByRole('button', { name: 'Verify' }).click();
  await laptop.waitForURL('**/dashboard');

  // Settings > Manage > Add Backup App: a code from the first app, then the new app's key and code.
  await laptop.goto(`${app.url}/profile`);
  await laptop.getByRole('button', { name: 'Settings' }).click();
  await laptop.getByRole('button', { name: 'Manage' }).click();
  const apps = laptop.getByRole('dialog', { name: 'Two-Step Verification' });
  await apps.getByRole('list', { name: 'Authenticator apps' }).getByText('Authenticator app').waitFor();
  await laptop.screenshot({ path: path.join(SCREENSHOTS, 'two-step-apps-1280.png') });
  await apps.getByRole('button', { name: 'Add Backup App' }).click();
  const add = laptop.getByRole('dialog', { name: 'Add a Backup App' });
  await laptop.fill('#two-step-code', totpCode(totp.secret, step + 1));
  await add.getByRole('button', { name: 'Continue' }).click();
  await add.getByRole('img', { name: 'QR code to add RepX to an authenticator app' }).waitFor();
  const backup = (await add.getByLabel('Key for the authenticator app').innerText()).replace(/\s/g, '');
  await laptop.fill('#two-step-code', totpCode(backup, step - 1));
  await add.getByRole('button', { name: 'Add App' }).click();
  await expect(toastText(laptop, 'Backup App Added')).resolves.toMatchObject({
    description: 'Signing in now accepts a code from either app.',
  });
  const listed = apps.getByRole('list', { name: 'Authenticator apps' }).getByRole('listitem');
  await expect(listed.allInnerTexts().then((t) => t.map((x) => x.split('\n')[0]))).resolves.toEqual([
    'Authenticator app',
    'Backup app',
  ]);
  await laptop.keyboard.press('Escape');

  // The laptop is lost: the owner signs in elsewhere with the backup app, chosen at the code step.
  const owner = await app.newPage(390);
  await submitSignIn(owner, app, { email: email, password: password });
  await owner.waitForURL('**/auth/verify');
  await owner.selectOption('#two-step-app', { label: 'Backup app' });
  await owner.fill('#two-step-code', totpCode(backup, step));
  await owner.screenshot({ path: path.join(SCREENSHOTS, 'two-step-choose-app-390.png') });
  await owner.setViewportSize({ width: 1280, height: 800 });
  await owner.screenshot({ path: path.join(SCREENSHOTS, 'two-step-choose-app-1280.png') });
  await owner.setViewportSize({ width: 390, height: 800 });
  await owner.getByRole('button', { name: 'Verify' }).click();
  await owner.waitForURL('**/dashboard');
  await owner.goto(`${app.url}/profile`);
  await owner.getByRole('button', { name: 'Settings' }).click();
  await owner.getByText('Two-step verification: on, with two authenticator apps').waitFor();
  await owner.getByRole('button', { name: 'Manage' }).click();
  await owner
    .getByRole('listitem')
    .filter({ hasText: 'Authenticator app' })
    .getByRole('button', { name: 'Remove' })
    .click();
  const remove = owner.getByRole('dialog', { name: 'Remove an Authenticator App' });
  await remove
    .getByText('To remove “Authenticator app”, enter the code from “Backup app”, the app you keep.', { exact: false })
    .waitFor();
  await owner.fill('#two-step-code', totpCode(backup, step + 1));
  await owner.screenshot({ path: path.join(SCREENSHOTS, 'two-step-remove-app-390.png') });
  await remove.getByRole('button', { name: 'Remove' }).click();
  await expect(toastText(owner, 'Authenticator App Removed')).resolves.toMatchObject({
    description: 'Two-step verification stays on with “Backup app”.',
  });
  await owner
    .getByRole('dialog', { name: 'Two-Step Verification' })
    .getByText('Signing in asks for a code from this app.', { exact: false })
    .waitFor();
  // Whoever signed in with the lost phone's code is signed out; the owner is not, nor the laptop,
  // whose last code came from the backup app when it was added.
  expect((await api.from('cash_accounts').select('available')).status).toBe(401);
  for (const p of [owner, laptop]) {
    await p.goto(`${app.url}/wallet`);
    await p.getByRole('heading', { name: 'Wallet' }).first().waitFor();
  }
  for (const p of [laptop, owner]) await p.context().close();
});
