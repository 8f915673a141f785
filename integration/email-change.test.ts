import type { Backend } from '../server/index';
import { NO_RATE_LIMITS } from '../server/http/rateLimit';
import { MAILED_CODE } from '../server/auth/codes';
import { ENGINES, backendFor } from './harness/backends';
import { client, newUser } from './harness/clients';
import { lastCodeFor, mailsTo } from './harness/mail';

describe.each(ENGINES)('email change on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    // One code mail a minute per address (the default); the other limits off, as elsewhere.
    backend = await backendFor(engine, {
      rateLimits: { ...NO_RATE_LIMITS, recoveryEmail: { capacity: 1, perSeconds: 60 } },
    })();
  });
  afterAll(() => backend.close());

  const subjectsTo = async (email: string) => (await mailsTo(backend.db, email)).map((m) => m.subject);
  const signsIn = async (email: string) =>
    (await client(backend.url).auth.signInWithPassword({ email, password: 'password-123' })).error?.message ?? 'ok';
  /** Lets the next code mail to `email` go at once (the per-address limit is a minute). */
  const mailAgain = (email: string) =>
    backend.db.query('delete from local_server.rate_buckets where key = $1', [`recoveryEmail:${email}`]);

  it('a new email needs the current password and takes effect only with the code mailed to it', async () => {
    const { client: c, email } = await newUser(backend.url, 'mail');
    const moved = `moved-${email}`;
    const without = await c.auth.updateUser({ email: moved });
    expect(without.error?.message).toBe('Enter your current password to change your email.');
    const wrong = await c.auth.updateUser({ email: moved, current_password: 'password-999' });
    expect(wrong.error?.message).toBe('Your current password is not right.');
    expect(await subjectsTo(moved)).toEqual([]);

    const asked = await c.auth.updateUser({ email: moved, current_password: 'password-123' });
    expect(asked.error).toBeNull();
    expect(asked.data.user).toMatchObject({ email, new_email: moved });
    expect(await subjectsTo(moved)).toEqual(['Confirm your new RepX email']);
    expect(await subjectsTo(email)).toEqual(['A change of your RepX email was asked for']);
    // Until the code is entered, the account is where it was.
    expect([await signsIn(email), await signsIn(moved)]).toEqual(['ok', 'Invalid login credentials']);

    const code = await lastCodeFor(backend.db, moved);
    expect(code).toMatch(new RegExp(`^\\d{${MAILED_CODE.digits}}$`));
    const verified = await c.auth.verifyOtp({ email: moved, token: code!, type: 'email_change' });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.email).toBe(moved);
    expect(verified.data.user).not.toHaveProperty('new_email');
    expect([await signsIn(email), await signsIn(moved)]).toEqual(['Invalid login credentials', 'ok']);
    expect((await subjectsTo(email)).at(-1)).toBe('Your RepX email was changed');
    // The session that asked goes on; its next token carries the new address.
    const refreshed = await c.auth.refreshSession();
    expect(refreshed.data.session?.user.email).toBe(moved);
    const claims = JSON.parse(
      Buffer.from(refreshed.data.session!.access_token.split('.')[1]!, 'base64url').toString(),
    ) as { email: string };
    expect(claims.email).toBe(moved);
    // The code worked once.
    const again = await client(backend.url).auth.verifyOtp({ email: moved, token: code!, type: 'email_change' });
    expect(again.error?.message).toBe('Token has expired or is invalid');
    // Metadata alone, or the same email, needs no password.
    expect((await c.auth.updateUser({ email: moved, data: { theme: 'light' } })).error).toBeNull();
  });

  it('a wrong code changes nothing and does not spend the right one; an old code stops working', async () => {
    const { client: c, email } = await newUser(backend.url, 'tries');
    const moved = `moved-${email}`;
    await c.auth.updateUser({ email: moved, current_password: 'password-123' });
    const first = (await lastCodeFor(backend.db, moved))!;
    // Another mail to the same address within the minute is refused, as GoTrue refuses it.
    const soon = await c.auth.updateUser({ email: moved, current_password: 'password-123' });
    expect(soon.error?.message).toMatch(/^For security purposes, you can only request this after \d+ seconds\.$/);
    await mailAgain(moved);
    expect((await c.auth.updateUser({ email: moved, current_password: 'password-123' })).error).toBeNull();
    const code = (await lastCodeFor(backend.db, moved))!;
    const other = (c: string) => String((Number(c) + 1) % 10 ** MAILED_CODE.digits).padStart(MAILED_CODE.digits, '0');
    if (first !== code) {
      const replaced = await client(backend.url).auth.verifyOtp({ email: moved, token: first, type: 'email_change' });
      expect(replaced.error?.message).toBe('Token has expired or is invalid');
    }
    for (let i = 1; i < MAILED_CODE.tries; i++) {
      const wrong = await client(backend.url).auth.verifyOtp({
        email: moved,
        token: other(code),
        type: 'email_change',
      });
      expect(wrong.error?.message).toBe('Token has expired or is invalid');
    }
    // Wrong tries are bounded per address (auth/lockout.ts), and none of them spends the owner's
    // code: the account has not moved yet, and the right code still moves it.
    await client(backend.url).auth.verifyOtp({ email: moved, token: other(code), type: 'email_change' });
    expect((await c.auth.getUser()).data.user).toMatchObject({ email, new_email: moved });
    const right = await client(backend.url).auth.verifyOtp({ email: moved, token: code, type: 'email_change' });
    expect(right.error).toBeNull();
    expect([await signsIn(email), await signsIn(moved)]).toEqual(['Invalid login credentials', 'ok']);
  });

  it('a code expires after an hour', async () => {
    const { client: c, email, id } = await newUser(backend.url, 'late');
    const moved = `moved-${email}`;
    await c.auth.updateUser({ email: moved, current_password: 'password-123' });
    const code = (await lastCodeFor(backend.db, moved))!;
    await backend.db.query(
      `update auth.one_time_tokens set created_at = now() - interval '61 minutes'
       where user_id = $1 and token_type = 'email_change_token_new'`,
      [id],
    );
    const late = await c.auth.verifyOtp({ email: moved, token: code, type: 'email_change' });
    expect(late.error?.message).toBe('Token has expired or is invalid');
    expect(await signsIn(email)).toBe('ok');
  });

  it('an address taken meanwhile is not given to a second account', async () => {
    const { client: c, email } = await newUser(backend.url, 'race');
    const wanted = `wanted-${email}`;
    await c.auth.updateUser({ email: wanted, current_password: 'password-123' });
    const code = (await lastCodeFor(backend.db, wanted))!;
    expect((await client(backend.url).auth.signUp({ email: wanted, password: 'password-123' })).error).toBeNull();
    const taken = await c.auth.verifyOtp({ email: wanted, token: code, type: 'email_change' });
    expect(taken.error?.message).toBe('A user with this email address has already been registered');
    expect(await signsIn(email)).toBe('ok');
    // And an address already in use is refused when asked for, before any mail.
    const used = await c.auth.updateUser({ email: wanted, current_password: 'password-123' });
    expect(used.error?.message).toBe('A user with this email address has already been registered');
  });
});
