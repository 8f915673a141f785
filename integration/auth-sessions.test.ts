import { SignJWT } from 'jose';
import type { Backend } from '../server/index';
import { authConfig } from '../server/authConfig';
import { ENGINES, backendFor, eventually } from './harness/backends';
import { ADMIN, ANON_KEY, DEMO, JWT_SECRET, client, newUser, signedIn } from './harness/clients';
import { confirmSignUp, mailsTo } from './harness/mail';

describe.each(ENGINES)('auth on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());
  /** The subjects of the mail the server caught for an address, oldest first. */
  const subjectsTo = async (email: string) => (await mailsTo(backend.db, email)).map((m) => m.subject);

  it('signs in with the right password only', async () => {
    const c = client(backend.url);
    const wrong = await c.auth.signInWithPassword({ email: DEMO.email, password: 'wrong-password' });
    expect(wrong.error?.message).toBe('Invalid login credentials');
    expect(wrong.error?.status).toBe(400);
    const unknown = await c.auth.signInWithPassword({ email: 'nobody@repx.dev', password: 'whatever1' });
    expect(unknown.error?.message).toBe('Invalid login credentials');
    const ok = await c.auth.signInWithPassword(DEMO);
    expect(ok.error).toBeNull();
    expect(ok.data.user?.email).toBe(DEMO.email);
    expect(ok.data.session?.expires_in).toBe(3600);
  });

  it('reads the role from profiles: admin for the admin, user for the demo user', async () => {
    for (const [creds, role] of [
      [ADMIN, 'admin'],
      [DEMO, 'user'],
    ] as const) {
      const c = await signedIn(backend.url, creds);
      const { data: user } = await c.auth.getUser();
      const { data } = await c.from('profiles').select('role').eq('id', user.user!.id).single();
      expect(data).toEqual({ role });
    }
  });

  it("carries the sign-in's method and time in every token of the session (amr), also after a refresh", async () => {
    const c = await signedIn(backend.url, DEMO);
    const claimsOf = async () =>
      JSON.parse(
        Buffer.from((await c.auth.getSession()).data.session!.access_token.split('.')[1]!, 'base64url').toString(),
      ) as { iat: number; amr: { method: string; timestamp: number }[] };
    const first = await claimsOf();
    expect(first.amr).toEqual([{ method: 'password', timestamp: expect.any(Number) }]);
    expect(Math.abs(first.amr[0]!.timestamp - first.iat)).toBeLessThanOrEqual(1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await c.auth.refreshSession()).error).toBeNull();
    const later = await claimsOf();
    expect(later.iat).toBeGreaterThan(first.iat);
    expect(later.amr).toEqual(first.amr);
  });

  it('rotates refresh tokens; an old one is refused once the reuse window has passed', async () => {
    const c = await signedIn(backend.url, DEMO);
    const first = (await c.auth.getSession()).data.session!;
    const { data, error } = await c.auth.refreshSession();
    expect(error).toBeNull();
    expect(data.session!.refresh_token).not.toBe(first.refresh_token);
    // Within the window the old token still answers with the active one (several tabs at once).
    const again = await client(backend.url).auth.refreshSession({ refresh_token: first.refresh_token });
    expect(again.data.session?.refresh_token).toBe(data.session!.refresh_token);
    // Outside it, reuse ends the session.
    await backend.db.query(`update auth.refresh_tokens set updated_at = now() - interval '1 minute' where token = $1`, [
      first.refresh_token,
    ]);
    const stale = await client(backend.url).auth.refreshSession({ refresh_token: first.refresh_token });
    expect(stale.error?.message).toBe('Invalid Refresh Token: Already Used');
    const { error: gone } = await c.auth.refreshSession();
    expect(gone).not.toBeNull();
  });

  it('signs out: the session is gone on the server too', async () => {
    const c = await signedIn(backend.url, DEMO);
    const token = (await c.auth.getSession()).data.session!.access_token;
    expect((await c.auth.signOut()).error).toBeNull();
    expect((await c.auth.getSession()).data.session).toBeNull();
    const { error } = await client(backend.url).auth.getUser(token);
    expect(error?.message).toBe('Auth session missing!');
  });

  it('updates the user: metadata merged, password changed with the current one, same password refused', async () => {
    const { client: c, email } = await newUser(backend.url, 'upd');
    const otherDevice = await signedIn(backend.url, { email, password: 'password-123' });
    const meta = await c.auth.updateUser({ data: { theme: 'dark' } });
    expect(meta.data.user?.user_metadata).toMatchObject({ theme: 'dark' });
    const same = await c.auth.updateUser({ password: 'password-123', current_password: 'password-123' });
    expect(same.error?.message).toBe('New password should be different from the old password.');
    // The current password is asked for, so that a browser left signed in cannot lock its owner out.
    const without = await c.auth.updateUser({ password: 'password-456' });
    expect([without.error?.code, without.error?.message]).toEqual([
      'current_password_required',
      'Enter your current password to choose a new one.',
    ]);
    const wrong = await c.auth.updateUser({ password: 'password-456', current_password: 'password-999' });
    expect([wrong.error?.code, wrong.error?.message]).toEqual([
      'current_password_mismatch',
      'Your current password is not right.',
    ]);
    expect((await c.auth.updateUser({ password: 'password-456', current_password: 'password-123' })).error).toBeNull();
    expect(await subjectsTo(email)).toEqual(['Your RepX password was changed']);
    const signIn = await client(backend.url).auth.signInWithPassword({ email, password: 'password-456' });
    expect(signIn.error).toBeNull();
    // The new password ended the other sessions, not this one.
    expect((await otherDevice.from('profiles').select('id').limit(1)).status).toBe(401);
    expect((await c.from('profiles').select('id').limit(1)).status).toBe(200);
  });

  it('refuses a forged or expired JWT on the data API', async () => {
    const forged = await new SignJWT({ role: 'authenticated', sub: '00000000-0000-0000-0000-000000000000' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('another-secret-that-is-at-least-32-chars'));
    const expired = await new SignJWT({ role: 'authenticated', sub: '00000000-0000-0000-0000-000000000000' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(new TextEncoder().encode(JWT_SECRET));
    for (const [token, message] of [
      [forged, 'JWT could not be decoded or verified'],
      [expired, 'JWT expired'],
    ]) {
      const res = await fetch(`${backend.url}/rest/v1/profiles?select=id`, {
        headers: { apikey: ANON_KEY, Authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { message: string }).message).toBe(message);
    }
    const noKey = await fetch(`${backend.url}/rest/v1/profiles`);
    expect(noKey.status).toBe(401);
  });

  it('a suspended account cannot sign in; reactivated, it can', async () => {
    const { id, email } = await newUser(backend.url, 'susp');
    const admin = await signedIn(backend.url, ADMIN);
    expect(
      (
        await admin.rpc('admin_set_account_status', {
          p_user: id,
          p_status: 'suspended',
          p_reason: 'Testing suspension.',
        })
      ).error,
    ).toBeNull();
    const refused = await client(backend.url).auth.signInWithPassword({ email, password: 'password-123' });
    expect(refused.error?.message).toBe('User is banned');
    expect((await admin.rpc('admin_set_account_status', { p_user: id, p_status: 'active' })).error).toBeNull();
    expect((await client(backend.url).auth.signInWithPassword({ email, password: 'password-123' })).error).toBeNull();
  });

  it('says which endpoints it does not serve', async () => {
    const res = await fetch(`${backend.url}/auth/v1/sso`, { method: 'POST', headers: { apikey: ANON_KEY } });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { message: string }).message).toMatch(/not supported/);
  });

  it('mails the owner a sign-in from a browser the account has not used, once per browser', async () => {
    const chrome = (version: string) =>
      `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${version} Safari/537.36`;
    const as = (agent: string) => client(backend.url, ANON_KEY, { 'User-Agent': agent });
    const email = `browsers-${Date.now()}@test.repx.dev`;
    const password = 'password-123';
    // The sign-up's own browser is only remembered.
    const laptop = as(chrome('140.0.1.2'));
    expect(
      (await laptop.auth.signUp({ email, password, options: { data: { username: `br${Date.now()}` } } })).error,
    ).toBeNull();
    await confirmSignUp(backend.db, laptop, email);
    // Signing in again there, after its update too, is nothing new.
    expect((await as(chrome('140.0.1.2')).auth.signInWithPassword({ email, password })).error).toBeNull();
    expect((await as(chrome('141.0.7.0')).auth.signInWithPassword({ email, password })).error).toBeNull();
    // Another browser is mailed, with when and from where; a second time from it is not.
    const phone =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 Version/18.1 Mobile Safari/604.1';
    expect((await as(phone).auth.signInWithPassword({ email, password })).error).toBeNull();
    expect((await as(phone).auth.signInWithPassword({ email, password })).error).toBeNull();
    const mails = await eventually(async () => {
      const all = await mailsTo(backend.db, email);
      return all.length > 1 ? all : undefined;
    });
    await new Promise((r) => setTimeout(r, 300)); // time for a second mail, were there one
    expect(await subjectsTo(email)).toEqual(['Confirm your RepX account', 'A new sign-in to your RepX account']);
    expect(mails.at(-1)!.body).toMatch(
      /^Your RepX account was signed in from a browser it had not used before, on [A-Z][a-z]{2} \d{1,2}, \d{4}, \d\d:\d\d UTC, from the address 127\.0\.0\.1\.\nIf it was you, there is nothing to do\. If it was not, reset your password now/,
    );
    // Nobody but the database reads or writes what browsers an account used.
    expect((await laptop.from('known_browsers').select('*')).error).not.toBeNull();
    // A browser unused for a year is forgotten: its next sign-in is mailed as new again.
    await backend.db.query(
      `update private.known_browsers set last_seen = now() - interval '400 days'
        where user_id = (select id from auth.users where email = $1) and browser like '%iPhone%'`,
      [email],
    );
    await backend.db.query('select private.prune()');
    expect((await as(phone).auth.signInWithPassword({ email, password })).error).toBeNull();
    await eventually(async () => ((await subjectsTo(email)).length === 3 ? true : undefined));
  });
});

describe('the password rule, owned by the auth server', () => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor('pglite', { passwordMinLength: 8 })();
  });
  afterAll(() => backend.close());

  it('refuses a password shorter than PASSWORD_MIN_LENGTH at sign-up and on a change', async () => {
    const c = client(backend.url);
    const short = await c.auth.signUp({ email: 'seven@test.repx.dev', password: '1234567' });
    expect(short.error?.message).toBe('Password should be at least 8 characters.');
    const { client: user } = await newUser(backend.url, 'rule');
    expect((await user.auth.updateUser({ password: 'seven-7', current_password: 'password-123' })).error?.message).toBe(
      'Password should be at least 8 characters.',
    );
    expect((await user.auth.updateUser({ password: 'eight-88', current_password: 'password-123' })).error).toBeNull();
  });

  it('refuses a setting below the specification minimum', () => {
    expect(() => authConfig({ PASSWORD_MIN_LENGTH: '5' })).toThrow(/PASSWORD_MIN_LENGTH/);
    expect(authConfig({}).minimumPasswordLength).toBe(6);
  });
});
