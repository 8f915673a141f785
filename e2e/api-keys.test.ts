import path from 'node:path';
import { createClient } from '@supabase/supabase-js';
import { SCREENSHOTS, apiUser, signIn, startApp, toastText, type E2EApp } from './helpers/app';

jest.setTimeout(240_000);

let app: E2EApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app?.close());

for (const width of [1280, 390] as const) {
  test(`a person makes an API key in Settings, sees it once, a script trades with it, and it is revoked (${width} px)`, async () => {
    const person = { username: `bot_${width}`, email: `bot.${width}@example.com`, password: 'bot-owner-2026' };
    await apiUser(app, person);
    const [{ id }] = (await app.backend.db.query('select id from profiles where username = $1', [person.username])) as [
      { id: string },
    ];
    await app.backend.db.query('select private.record_deposit($1, 500)', [id]);
    const [{ token }] = (await app.backend.db.query(
      `select id as token from tokens where halt_reason is null order by name limit 1`,
    )) as [{ token: string }];

    const page = await (await app.newContext({ width })).newPage();
    await signIn(page, app, person);
    await page.goto(`${app.url}/profile`);
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'API keys' }).click();
    const list = page.getByRole('dialog', { name: 'API Keys' });
    await list.getByText('You have no API keys.').waitFor();
    await list.getByRole('button', { name: 'Create Key' }).click();

    const form = page.getByRole('dialog', { name: 'New API Key' });
    await form.locator('#api-key-name').fill('Market maker');
    await form.locator('#api-key-scope').selectOption('trade');
    await form.locator('#api-key-expiry').selectOption('365');
    await form.screenshot({ path: path.join(SCREENSHOTS, `api-key-new-${width}.png`) });
    await form.getByRole('button', { name: 'Create Key' }).click();

    // Shown once.
    const shown = page.getByRole('dialog', { name: 'Your New API Key' });
    const key = await shown.getByLabel('New API key').innerText();
    expect(key).toMatch(/^repx_[A-Za-z0-9_-]{40,}$/);
    await shown.screenshot({ path: path.join(SCREENSHOTS, `api-key-shown-${width}.png`) });
    await shown.getByRole('button', { name: 'Done' }).click();
    const listed = page.getByRole('dialog', { name: 'API Keys' });
    await listed.getByText('Market maker').waitFor();
    await listed.getByText(`${key.slice(0, 12)}…`).waitFor();
    expect(await page.content()).not.toContain(key);
    await listed.screenshot({ path: path.join(SCREENSHOTS, `api-keys-${width}.png`) });

    // A script trades with it, as its owner, through the unmodified supabase-js.
    const bot = createClient(app.backend.url, app.backend.anonKey, { accessToken: () => Promise.resolve(key) });
    const placed = await bot.rpc('place_order', {
      p_token: token,
      p_side: 'buy',
      p_type: 'limit',
      p_amount: 1,
      p_price: 1,
      p_client_order_id: `e2e-${width}`,
    });
    expect(placed.error).toBeNull();
    const [order] = (await app.backend.db.query('select user_id from orders where id = $1', [
      (placed.data as { order_id: number }).order_id,
    ])) as [{ user_id: string }];
    expect(order.user_id).toBe(id);
    const withdraw = await bot.rpc('create_withdrawal', { p_amount: 10, p_destination: null, p_idempotency_key: 'x' });
    expect(withdraw.error?.message).toBe('An API key cannot withdraw money. Sign in to RepX to do it.');

    // Revoked from the same list: the script is refused from its next request.
    await listed.getByRole('button', { name: 'Revoke Market maker' }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke API Key' });
    await confirm.getByRole('button', { name: 'Revoke Key' }).click();
    expect((await toastText(page, 'API Key Revoked')).description).toBe('"Market maker" no longer works.');
    await page.getByRole('dialog', { name: 'API Keys' }).getByText('Revoked', { exact: true }).waitFor();
    const refused = await bot.from('orders').select('id');
    expect(refused.status).toBe(401);
    expect(refused.error?.message).toMatch(/revoked/);
  });
}
