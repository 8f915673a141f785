import crypto from 'node:crypto';
import type { SupabaseClient } from '@supabase/supabase-js';
import type { Backend } from '../server/index';
import { totpCode } from '../server/auth/totp';
import { freshStep } from './harness/totp';
import { ENGINES, backendFor } from './harness/backends';
import { ADMIN, newUser, signedIn } from './harness/clients';
import { mailsTo } from './harness/mail';
import { bankAccount, cash, trader } from './harness/market';

const aalOf = async (c: SupabaseClient) =>
  (await c.auth.mfa.getAuthenticatorAssuranceLevel()).data ?? { currentLevel: null, nextLevel: null };

/** Turns two-step verification on for a signed-in client, answering with the code of `step`. */
async function turnOn(c: SupabaseClient, step: number) {
  const enrolled = await c.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Phone', issuer: 'RepX' });
  expect(enrolled.error).toBeNull();
  const { id, totp } = enrolled.data! as { id: string; totp: { secret: string; uri: string; qr_code: string } };
  const verified = await c.auth.mfa.challengeAndVerify({ factorId: id, code: totpCode(totp.secret, step) });
  expect(verified.error).toBeNull();
  return { factorId: id, secret: totp.secret, uri: totp.uri, qr: totp.qr_code };
}

describe.each(ENGINES)('two-step verification with an authenticator app, on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  it('a withdrawal long after the sign-in asks for a fresh code from the app, which renews the same session', async () => {
    const step = await freshStep(12_000);
    const t = await trader(backend, { cash: 300 });
    const { secret, factorId } = await turnOn(t.client, step - 1);
    const dest = await bankAccount(backend, t);
    await backend.db.query(
      `update auth.sessions set created_at = now() - interval '16 minutes', mfa_verified_at = now() - interval '16 minutes'
       where user_id = $1`,
      [t.id],
    );
    expect((await t.client.auth.refreshSession()).error).toBeNull();
    const withdraw = () =>
      t.client.rpc('create_withdrawal', {
        p_amount: 100,
        p_destination: dest,
        p_idempotency_key: crypto.randomUUID(),
      });
    const stale = await withdraw();
    expect([stale.error?.message, stale.error?.hint]).toEqual([
      'For your security, enter a code from your authenticator app to withdraw.',
      'reauthenticate',
    ]);
    expect(await cash(backend, t.id)).toMatchObject({ available: 300 });
    const { data: before } = await t.client.auth.getSession();
    expect((await t.client.auth.mfa.challengeAndVerify({ factorId, code: totpCode(secret, step) })).error).toBeNull();
    expect((await withdraw()).error).toBeNull();
    expect(await cash(backend, t.id)).toMatchObject({ available: 200 });
    // The same session, its proof renewed: no new sign-in.
    const { data: after } = await t.client.auth.getSession();
    expect(after.session!.refresh_token).not.toBe(before.session!.refresh_token);
    const [{ n }] = (await backend.db.query<{ n: number }>(
      'select count(*)::int as n from auth.sessions where user_id = $1',
      [t.id],
    )) as [{ n: number }];
    expect(n).toBe(1);
  });

  it('turns off only with a code entered in the last minutes; sessions fall back to the password alone', async () => {
    const step = await freshStep(12_000);
    const { client: c, email } = await newUser(backend.url, 'off');
    const { factorId, secret } = await turnOn(c, step - 1);
    await backend.db.query(
      `update auth.sessions set mfa_verified_at = now() - interval '10 minutes'
        where user_id = (select id from auth.users where email = $1)`,
      [email],
    );
    const stale = await c.auth.mfa.unenroll({ factorId });
    expect(stale.error?.message).toBe('Enter a code from your authenticator app to turn off two-step verification.');
    expect((await c.auth.mfa.challengeAndVerify({ factorId, code: totpCode(secret, step) })).error).toBeNull();
    expect((await c.auth.mfa.unenroll({ factorId })).error).toBeNull();
    expect((await mailsTo(backend.db, email)).map((m) => m.subject)).toContain('Two-step verification is off');

    const later = await signedIn(backend.url, { email, password: 'password-123' });
    expect(await aalOf(later)).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal1' });
    expect((await later.rpc('my_sessions')).error).toBeNull();
  });

  it('an admin with an app turned on is no admin until the code', async () => {
    const step = await freshStep(12_000);
    const admin = await signedIn(backend.url, ADMIN);
    const { factorId, secret } = await turnOn(admin, step - 1);
    const again = await signedIn(backend.url, ADMIN);
    expect((await again.rpc('admin_list_users', {})).error?.code).toBe('42501');
    expect((await again.auth.mfa.challengeAndVerify({ factorId, code: totpCode(secret, step) })).error).toBeNull();
    expect((await again.rpc('admin_list_users', {})).error).toBeNull();
    // Left as found for the suite's other tests: turned off again.
    expect((await again.auth.mfa.unenroll({ factorId })).error).toBeNull();
  });

  it('the exchange may ask every admin for an app: one without is refused in words, one with it acts', async () => {
    const step = await freshStep(15_000);
    const demoAdmin = await signedIn(backend.url, ADMIN);
    const ask = (c: SupabaseClient, on: boolean) =>
      c.rpc('admin_update_settings', { p_changes: { admins_need_two_step: on }, p_reason: 'Admins use an app.' });
    const asked = async () =>
      (await backend.db.query<{ on: boolean }>('select admins_need_two_step as on from exchange_settings'))[0]!.on;

    // The demo admin has no app: asking it of admins would lock them out, so it is refused.
    expect((await ask(demoAdmin, true)).error?.message).toBe(
      'Turn on two-step verification for your own account first (Profile › Settings): asking it of admins would lock you out of the admin area.',
    );
    expect(await asked()).toBe(false);

    // A second admin with an app turned on asks it.
    const { client: second, id } = await newUser(backend.url, 'secondadmin');
    await backend.db.query(`update profiles set role = 'admin' where id = $1`, [id]);
    await turnOn(second, step - 1);
    expect((await ask(second, true)).error).toBeNull();
    expect(await asked()).toBe(true);

    // From now on the admin without an app is refused every admin act, in words; the one with it acts.
    const refused = await demoAdmin.rpc('admin_list_users', {});
    expect(refused.error).toMatchObject({
      code: '42501',
      message:
        'Administrators must use two-step verification: turn it on in Profile › Settings, then sign in at the admin page again.',
      hint: 'admin_two_step_required',
    });
    // Row-level security asks the same: the audit log is no longer theirs to read.
    expect((await demoAdmin.from('audit_log').select('id')).data).toEqual([]);
    expect((await second.from('audit_log').select('id')).data?.length).toBeGreaterThan(0);
    expect((await second.rpc('admin_list_users', {})).error).toBeNull();
    const { client: user } = await newUser(backend.url, 'notadmin');
    expect((await user.rpc('admin_list_users', {})).error?.message).toBe('Admin privileges required.');

    // Audited, and left as found for the suite's other tests.
    const { data: log } = await second.rpc('admin_audit_log', {});
    expect((log as { action: string; after: unknown }[]).find((l) => l.action === 'settings.update')).toMatchObject({
      after: { admins_need_two_step: true },
    });
    expect((await ask(second, false)).error).toBeNull();
    expect((await demoAdmin.rpc('admin_list_users', {})).error).toBeNull();
  });

  it('the admin removes a lost app: sessions end, the password alone signs in, audited', async () => {
    const step = await freshStep(12_000);
    const { client: c, email, id } = await newUser(backend.url, 'lostphone');
    await turnOn(c, step - 1);
    const admin = await signedIn(backend.url, ADMIN);
    const details = async () =>
      ((await admin.rpc('admin_account_details', { p_user: id })).data as { profile: { two_step: boolean } }).profile;
    expect(await details()).toMatchObject({ two_step: true });
    expect((await c.rpc('admin_remove_two_step', { p_user: id, p_reason: 'Lost my phone.' })).error?.code).toBe(
      '42501',
    );
    expect((await admin.rpc('admin_remove_two_step', { p_user: id, p_reason: '' })).error?.message).toBe(
      'Give a reason of 3 to 500 characters for removing the authenticator app.',
    );
    const removed = await admin.rpc('admin_remove_two_step', { p_user: id, p_reason: 'Phone lost; ID checked.' });
    expect(removed.error).toBeNull();
    expect((await c.from('cash_accounts').select('available')).status).toBe(401);
    expect(await details()).toMatchObject({ two_step: false });
    const back = await signedIn(backend.url, { email, password: 'password-123' });
    expect(await aalOf(back)).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal1' });
    expect((await back.rpc('my_positions')).error).toBeNull();
    const { data: log } = await admin.rpc('admin_audit_log', { p_target: id });
    expect((log as { action: string; reason: string }[]).map((l) => [l.action, l.reason])).toEqual([
      ['account.two_step_off', 'Phone lost; ID checked.'],
    ]);
    const again = await admin.rpc('admin_remove_two_step', { p_user: id, p_reason: 'Again.' });
    expect(again.error?.message).toBe('Two-step verification is not on for this account.');
  });
});
