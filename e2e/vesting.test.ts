import path from 'node:path';
import { formatInteger } from '@repex/shared-ui/ui';
import { DEMO_ACCOUNTS } from '../server/demo';
import { SCREENSHOTS, apiUser, nodeClient, signIn, startApp, type E2EApp } from './helpers/app';

jest.setTimeout(180_000);

let app: E2EApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app?.close());

test("an approved person sees their founder allocation's vesting on their profile and trading screen, at both widths", async () => {
  const person = { username: 'vesta_e2e', email: 'vesta.e2e@example.com', password: 'vesta-e2e-2026' };
  const api = await apiUser(app, person);
  const { data: application, error } = await api.rpc('apply_for_token', {
    p_display_name: 'Vesta E2E',
    p_category: 'Designer',
  });
  expect(error).toBeNull();
  const admin = nodeClient(app);
  await admin.auth.signInWithPassword(DEMO_ACCOUNTS.admin);
  const approved = await admin.rpc('admin_approve_application', { p_id: (application as { id: number }).id });
  expect(approved.error).toBeNull();
  const { token_id: tokenId, founder_allocation: founder } = approved.data as {
    token_id: string;
    founder_allocation: number;
  };

  for (const width of [1280, 390]) {
    const page = await (await app.newContext({ width })).newPage();
    await signIn(page, app, person);
    await page.goto(`${app.url}/profile`);
    const onProfile = page.getByTestId('profile-vesting');
    await onProfile.getByText(`0 of ${formatInteger(founder)}`).waitFor();
    await onProfile.screenshot({ path: path.join(SCREENSHOTS, `vesting-profile-${width}.png`) });

    await page.goto(`${app.url}/trading/${tokenId}`);
    await page
      .getByTestId('founder-vesting')
      .getByText(`0 of ${formatInteger(founder)} released`)
      .waitFor();
    // Their balance to sell leaves out what is still vesting.
    await page.getByTestId('your-balance').getByText('0 tokens').waitFor();
    await page
      .getByRole('region', { name: 'Token Info' })
      .screenshot({ path: path.join(SCREENSHOTS, `vesting-trading-${width}.png`) });
    await page.context().close();
  }
});
