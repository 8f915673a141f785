import type { SupabaseClient } from '@supabase/supabase-js';
import type { Backend } from '../server/index';
import { totpCode } from '../server/auth/totp';
import { freshStep } from './harness/totp';
import { ENGINES, backendFor } from './harness/backends';
import { newUser, signedIn } from './harness/clients';
import { mailsTo } from './harness/mail';
import { freshToken, placeOrder, trader } from './harness/market';

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

  it('turns on with a first code, which ends password-only sessions, and tells the owner', async () => {
    const step = await freshStep(12_000);
    const { client: phone, email, id } = await newUser(backend.url, 'twostep');
    const laptop = await signedIn(backend.url, { email, password: 'password-123' });

    const enrolled = await phone.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Phone', issuer: 'RepX' });
    expect(enrolled.error).toBeNull();
    const { id: factorId, totp } = enrolled.data as {
      id: string;
      totp: { secret: string; uri: string; qr_code: string };
    };
    expect(totp.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(totp.uri).toBe(`otpauth://totp/RepX:${encodeURIComponent(email)}?secret=${totp.secret}&issuer=RepX`);
    expect(totp.qr_code).toMatch(/^data:image\/svg\+xml;utf-8,<svg /);
    // Not on until a code is entered: the laptop still works.
    expect((await aalOf(phone)).nextLevel).toBe('aal1');
    expect((await laptop.from('cash_accounts').select('available')).data).toHaveLength(1);

    const wrong = await phone.auth.mfa.challengeAndVerify({ factorId, code: totpCode(totp.secret, step + 5) });
    expect(wrong.error?.message).toBe('Invalid TOTP code entered');
    expect((await phone.auth.mfa.challengeAndVerify({ factorId, code: 'abcdef' })).error?.message).toBe(
      'Invalid TOTP code entered',
    );
    const right = await phone.auth.mfa.challengeAndVerify({ factorId, code: totpCode(totp.secret, step) });
    expect(right.error).toBeNull();
    expect(await aalOf(phone)).toMatchObject({ currentLevel: 'aal2', nextLevel: 'aal2' });
    const { data: factors } = await phone.auth.mfa.listFactors();
    expect(factors!.totp.map((f) => [f.id, f.status, f.friendly_name])).toEqual([[factorId, 'verified', 'Phone']]);

    // The laptop signed in with the password alone is out; the owner is mailed.
    expect((await laptop.from('cash_accounts').select('available')).error?.code).toBe('PGRST301');
    expect((await mailsTo(backend.db, email)).map((m) => m.subject)).toContain('Two-step verification is on');
    // A second app needs a code entered in the last minutes (a browser left signed in cannot add one).
    await backend.db.query(
      `update auth.sessions set mfa_verified_at = now() - interval '6 minutes' where user_id = $1`,
      [id],
    );
    const second = await phone.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Tablet' });
    expect(second.error?.message).toBe('Enter a code from your authenticator app to add another one.');
    const [row] = await backend.db.query<{ n: string }>('select count(*) n from auth.mfa_factors where user_id = $1', [
      id,
    ]);
    expect(Number(row!.n)).toBe(1);
  });

  it('a backup app: added after a code, signs in alone, and removes the lost first app and its sessions', async () => {
    const step = await freshStep(15_000);
    const { client: laptop, email, id } = await newUser(backend.url, 'backup');
    const first = await turnOn(laptop, step - 1);
    const subjects = async () => (await mailsTo(backend.db, email)).map((m) => m.subject);

    // The name tells the apps apart at sign-in: a second under the same name is refused.
    const same = await laptop.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Phone' });
    expect(same.error?.message).toBe('A factor with the friendly name "Phone" for this user already exists');
    const enrolled = await laptop.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Backup', issuer: 'RepX' });
    expect(enrolled.error).toBeNull();
    const backup = enrolled.data as { id: string; totp: { secret: string } };
    expect(
      (await laptop.auth.mfa.challengeAndVerify({ factorId: backup.id, code: totpCode(backup.totp.secret, step - 1) }))
        .error,
    ).toBeNull();
    const listed = (await laptop.auth.mfa.listFactors()).data!.totp.map((f) => [f.friendly_name, f.status]);
    expect(listed).toEqual([
      ['Phone', 'verified'],
      ['Backup', 'verified'],
    ]);
    expect(await subjects()).toContain('A second authenticator app was added');
    // Two is the most: a third is refused, even after a code.
    const third = await laptop.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Tablet' });
    expect(third.error?.message).toBe('You already have two authenticator apps. Remove one to add another.');

    // The phone is lost: whoever has it signs in with its code; the owner signs in with the backup's.
    const thief = await signedIn(backend.url, { email, password: 'password-123' });
    expect(
      (await thief.auth.mfa.challengeAndVerify({ factorId: first.factorId, code: totpCode(first.secret, step) })).error,
    ).toBeNull();
    const owner = await signedIn(backend.url, { email, password: 'password-123' });
    expect((await owner.rpc('my_positions')).error?.code).toBe('42501');
    expect(
      (await owner.auth.mfa.challengeAndVerify({ factorId: backup.id, code: totpCode(backup.totp.secret, step) }))
        .error,
    ).toBeNull();
    expect(await aalOf(owner)).toMatchObject({ currentLevel: 'aal2' });
    expect((await owner.rpc('my_positions')).error).toBeNull();

    // Removing one of two takes a code from the app that stays (it works), not from the one removed.
    const keepingTheLost = await owner.auth.mfa.unenroll({ factorId: backup.id });
    expect(keepingTheLost.error?.message).toBe('Enter a code from the app you keep to remove this one.');
    const removed = await owner.auth.mfa.unenroll({ factorId: first.factorId });
    expect(removed.error).toBeNull();
    // The thief's session, proven with the removed app, is over; the owner's and the laptop's go on.
    expect((await thief.from('cash_accounts').select('available')).status).toBe(401);
    await owner.auth.refreshSession();
    expect((await owner.rpc('my_positions')).error).toBeNull();
    expect((await laptop.rpc('my_positions')).error).toBeNull();
    expect(await subjects()).toContain('An authenticator app was removed');
    // Still on, with the backup alone.
    const later = await signedIn(backend.url, { email, password: 'password-123' });
    expect(await aalOf(later)).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal2' });
    const [row] = await backend.db.query<{ names: string[] }>(
      `select array_agg(friendly_name) names from auth.mfa_factors where user_id = $1 and status = 'verified'`,
      [id],
    );
    expect(row!.names).toEqual(['Backup']);
  });

  it('a password alone then opens nothing of the account until the code; the code once only', async () => {
    const step = await freshStep(12_000);
    const token = await freshToken(backend);
    const { client: first, id } = await trader(backend, { cash: 1_000 });
    const { data: user } = await first.auth.getUser();
    const email = user.user!.email!;
    const { secret, factorId } = await turnOn(first, step - 1);

    const other = await signedIn(backend.url, { email, password: 'password-123' });
    expect(await aalOf(other)).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal2' });
    const due = 'Enter the code from your authenticator app first: two-step verification is on for this account.';
    expect((await placeOrder(other, token, 'buy', 'limit', 1, 5)).error?.message).toBe(due);
    expect((await other.rpc('cancel_all_orders')).error?.message).toBe(due);
    expect((await other.rpc('my_positions')).error?.message).toBe(due);
    expect((await other.rpc('my_sessions')).error?.message).toBe(due);
    expect((await other.from('cash_accounts').select('available')).data).toEqual([]);
    expect((await other.from('wallet_transactions').select('id')).data).toEqual([]);
    const password = await other.auth.updateUser({ password: 'another-password-1' }, {});
    expect(password.error?.code).toBe('insufficient_aal');

    const ok = await other.auth.mfa.challengeAndVerify({ factorId, code: totpCode(secret, step) });
    expect(ok.error).toBeNull();
    expect(await aalOf(other)).toMatchObject({ currentLevel: 'aal2' });
    const { data: level } = await other.auth.mfa.getAuthenticatorAssuranceLevel();
    expect((level!.currentAuthenticationMethods[0] as { method: string }).method).toBe('totp');
    expect((await placeOrder(other, token, 'buy', 'limit', 1, 5)).error).toBeNull();
    const { data: cashRows } = await other.from('cash_accounts').select('available');
    expect(cashRows).toHaveLength(1);
    expect((cashRows![0] as { available: number }).available).toBeLessThan(995); // the order's price and fee reserved
    // A refresh keeps the level.
    const refreshed = await other.auth.refreshSession();
    expect(refreshed.error).toBeNull();
    expect(await aalOf(other)).toMatchObject({ currentLevel: 'aal2' });

    // The same code, or an earlier one, is refused to a third browser; wrong codes count toward
    // the account's lockout, as wrong passwords do.
    const third = await signedIn(backend.url, { email, password: 'password-123' });
    for (const used of [step, step - 1]) {
      const again = await third.auth.mfa.challengeAndVerify({ factorId, code: totpCode(secret, used) });
      expect(again.error?.message).toBe('That code was already used. Enter the next one your app shows.');
    }
    expect(await aalOf(third)).toMatchObject({ currentLevel: 'aal1' });
    // A challenge past its five minutes is refused.
    const { data: challenge } = await third.auth.mfa.challenge({ factorId });
    await backend.db.query(`update auth.mfa_challenges set created_at = now() - interval '6 minutes' where id = $1`, [
      challenge!.id,
    ]);
    const late = await third.auth.mfa.verify({
      factorId,
      challengeId: challenge!.id,
      code: totpCode(secret, step + 1),
    });
    expect(late.error?.code).toBe('mfa_challenge_expired');
    // Another user's factor is not found.
    const stranger = await newUser(backend.url, 'stranger');
    expect((await stranger.client.auth.mfa.challenge({ factorId })).error?.code).toBe('mfa_factor_not_found');
    expect(id).toBeTruthy();
  });
});
