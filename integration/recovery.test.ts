import type { Backend } from '../server/index';
import { NO_RATE_LIMITS } from '../server/http/rateLimit';
import { MAILED_CODE } from '../server/auth/codes';
import { ENGINES, backendFor } from './harness/backends';
import { ANON_KEY, client, newUser, signedIn } from './harness/clients';
import { lastCodeFor, mailsTo as mailOf } from './harness/mail';

describe.each(ENGINES)('password recovery on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    // One recovery mail a minute per address (the default), an account locked after six wrong
    // codes or passwords; the other limits off, as elsewhere.
    backend = await backendFor(engine, {
      rateLimits: {
        ...NO_RATE_LIMITS,
        recoveryEmail: { capacity: 1, perSeconds: 60 },
        accountFailures: { capacity: 6, perSeconds: 900 },
      },
    })();
  });
  afterAll(() => backend.close());

  const mailsTo = (email: string) => mailOf(backend.db, email);
  const codeFor = (email: string) => lastCodeFor(backend.db, email);
  const newPassword = 'new-password-456';

  it('mails a code that signs in once, to set a new password; the old password and the other sessions end', async () => {
    const { email, client: elsewhere } = await newUser(backend.url, 'forgot');
    const elsewhereToken = (await elsewhere.auth.getSession()).data.session!.access_token;
    const c = client(backend.url);
    expect((await c.auth.resetPasswordForEmail(email)).error).toBeNull();
    const [mail] = await mailsTo(email);
    expect(mail!.subject).toBe('Your RepX password reset code');
    const code = await codeFor(email);
    expect(code).toMatch(new RegExp(`^\\d{${MAILED_CODE.digits}}$`));
    // Only the code's hash is kept.
    const [held] = await backend.db.query<{ token_hash: string }>(
      'select token_hash from auth.one_time_tokens t join auth.users u on u.id = t.user_id where u.email = $1',
      [email],
    );
    expect(held!.token_hash).not.toContain(code!);

    const events: string[] = [];
    c.auth.onAuthStateChange((event) => events.push(event));
    const verified = await c.auth.verifyOtp({ email, token: code!, type: 'recovery' });
    expect(verified.error).toBeNull();
    expect(verified.data.session?.user.email).toBe(email);
    expect(events).toContain('PASSWORD_RECOVERY');
    expect((await c.auth.updateUser({ password: newPassword })).error).toBeNull();

    const old = await client(backend.url).auth.signInWithPassword({ email, password: 'password-123' });
    expect(old.error?.message).toBe('Invalid login credentials');
    await signedIn(backend.url, { email, password: newPassword });
    // The session that knew the old password is over: its next request is refused.
    // (Read with its token as sent, since clients in one process share auth-js's cross-tab channel.)
    const asElsewhere = { apikey: ANON_KEY, Authorization: `Bearer ${elsewhereToken}` };
    const user = await fetch(`${backend.url}/auth/v1/user`, { headers: asElsewhere });
    expect([user.status, ((await user.json()) as { error_code: string }).error_code]).toEqual([
      403,
      'session_not_found',
    ]);
    const rest = await fetch(`${backend.url}/rest/v1/cash_accounts?select=available`, { headers: asElsewhere });
    expect(rest.status).toBe(401);
    // The code worked once.
    const again = await client(backend.url).auth.verifyOtp({ email, token: code!, type: 'recovery' });
    expect(again.error?.message).toBe('Token has expired or is invalid');
  });

  it('outside a recovery session a new password needs the current one, and wrong ones lock the account', async () => {
    const { client: c, email } = await newUser(backend.url, 'current');
    for (let i = 0; i < 6; i++) {
      const wrong = await c.auth.updateUser({ password: newPassword, current_password: `not-it-${i}` });
      expect(wrong.error?.message).toBe('Your current password is not right.');
    }
    const locked = await c.auth.updateUser({ password: newPassword, current_password: 'password-123' });
    expect(locked.error?.status).toBe(429);
    expect((await client(backend.url).auth.signInWithPassword({ email, password: 'password-123' })).error?.status).toBe(
      429,
    );
  });

  it('answers an unknown address as a known one, and mails nothing; refuses a malformed address', async () => {
    const c = client(backend.url);
    expect((await c.auth.resetPasswordForEmail('nobody-here@test.repx.dev')).error).toBeNull();
    expect(await mailsTo('nobody-here@test.repx.dev')).toEqual([]);
    const bad = await c.auth.resetPasswordForEmail('not-an-email');
    expect(bad.error?.message).toBe('Unable to validate email address: invalid format');
    // Nor does a code for an address without an account sign anyone in.
    const none = await c.auth.verifyOtp({ email: 'nobody-here@test.repx.dev', token: '12345678', type: 'recovery' });
    expect(none.error?.message).toBe('Token has expired or is invalid');
  });

  it('mails an address one code a minute, and a new code replaces the last', async () => {
    const { email } = await newUser(backend.url, 'twice');
    const c = client(backend.url);
    expect((await c.auth.resetPasswordForEmail(email)).error).toBeNull();
    const soon = await c.auth.resetPasswordForEmail(email);
    expect(soon.error?.status).toBe(429);
    expect(soon.error?.message).toMatch(/^For security purposes, you can only request this after \d+ seconds\.$/);
    expect(await mailsTo(email)).toHaveLength(1);

    const first = await codeFor(email);
    await backend.db.query(`delete from local_server.rate_buckets where key = $1`, [`recoveryEmail:${email}`]);
    expect((await c.auth.resetPasswordForEmail(email)).error).toBeNull();
    const second = await codeFor(email);
    if (first !== second) {
      const old = await c.auth.verifyOtp({ email, token: first!, type: 'recovery' });
      expect(old.error?.message).toBe('Token has expired or is invalid');
    }
    expect((await c.auth.verifyOtp({ email, token: second!, type: 'recovery' })).error).toBeNull();
  });

  it('spends a code after five wrong tries, locks the account as wrong passwords do, and refuses a code older than an hour', async () => {
    const { email } = await newUser(backend.url, 'guess');
    const c = client(backend.url);
    await c.auth.resetPasswordForEmail(email);
    const code = (await codeFor(email))!;
    const wrong = String((Number(code) + 1) % 10 ** MAILED_CODE.digits).padStart(MAILED_CODE.digits, '0');
    for (let i = 0; i < MAILED_CODE.tries; i++) {
      expect((await c.auth.verifyOtp({ email, token: wrong, type: 'recovery' })).error?.message).toBe(
        'Token has expired or is invalid',
      );
    }
    expect((await c.auth.verifyOtp({ email, token: code, type: 'recovery' })).error?.status).toBe(403);
    // Six failures: the account is locked for codes and passwords alike.
    const locked = await c.auth.verifyOtp({ email, token: code, type: 'recovery' });
    expect([locked.error?.status, locked.error?.message]).toEqual([
      429,
      'Too many failed attempts for this account. Try again later.',
    ]);
    expect((await c.auth.signInWithPassword({ email, password: 'password-123' })).error?.status).toBe(429);

    const { email: late } = await newUser(backend.url, 'late');
    await c.auth.resetPasswordForEmail(late);
    await backend.db.query(
      `update auth.one_time_tokens set created_at = now() - interval '61 minutes'
       where user_id = (select id from auth.users where email = $1)`,
      [late],
    );
    const expired = await c.auth.verifyOtp({ email: late, token: (await codeFor(late))!, type: 'recovery' });
    expect(expired.error?.message).toBe('Token has expired or is invalid');
  });

  it('mails no code to a suspended account, and a code asked for before the suspension does not sign it in', async () => {
    const { email, id } = await newUser(backend.url, 'banned');
    const c = client(backend.url);
    await c.auth.resetPasswordForEmail(email);
    const code = (await codeFor(email))!;
    await backend.db.query(`update auth.users set banned_until = 'infinity' where id = $1`, [id]);
    const refused = await c.auth.verifyOtp({ email, token: code, type: 'recovery' });
    expect(refused.error?.message).toBe('User is banned');
    await backend.db.query(`delete from local_server.rate_buckets where key = $1`, [`recoveryEmail:${email}`]);
    expect((await c.auth.resetPasswordForEmail(email)).error).toBeNull();
    expect(await mailsTo(email)).toHaveLength(1);
  });
});
