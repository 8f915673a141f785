import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { ANON_KEY, SERVICE_ROLE_KEY, client, newUser } from './harness/clients';
import { confirmSignUp, lastCodeFor, mailsTo } from './harness/mail';

describe.each(ENGINES)('auth on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());
  /** The subjects of the mail the server caught for an address, oldest first. */
  const subjectsTo = async (email: string) => (await mailsTo(backend.db, email)).map((m) => m.subject);

  it('signs up with options.data: the account waits for the code mailed to it, which signs it in once', async () => {
    const c = client(backend.url);
    const username = `signup${Date.now()}`;
    const email = `${username}@test.repx.dev`;
    const password = 'password-123';
    const up = await c.auth.signUp({ email, password, options: { data: { username, full_name: username } } });
    expect(up.error).toBeNull();
    expect(up.data.session).toBeNull();
    expect(up.data.user).toMatchObject({ email, user_metadata: { username } });
    expect(up.data.user!.email_confirmed_at).toBeUndefined();
    const [mail] = await mailsTo(backend.db, email);
    expect(mail!.subject).toBe('Confirm your RepX account');
    expect(mail!.body).toMatch(/your code is \d{8}\.\nIt works once, for 60 minutes\./);
    // Before the code, the password alone does not sign in.
    const early = await c.auth.signInWithPassword({ email, password });
    expect(early.error).toMatchObject({ message: 'Email not confirmed', code: 'email_not_confirmed' });
    // A wrong code is refused; the mailed one signs in, once.
    const code = (await lastCodeFor(backend.db, email))!;
    const wrong = await c.auth.verifyOtp({
      email,
      token: code === '00000000' ? '11111111' : '00000000',
      type: 'signup',
    });
    expect(wrong.error?.message).toBe('Token has expired or is invalid');
    const ok = await c.auth.verifyOtp({ email, token: code, type: 'signup' });
    expect(ok.error).toBeNull();
    expect(ok.data.user?.email_confirmed_at).toBeTruthy();
    const { data: profile } = await c
      .from('profiles')
      .select('username, full_name, role, status')
      .eq('id', up.data.user!.id)
      .single();
    expect(profile).toEqual({ username, full_name: username, role: 'user', status: 'active' });
    const { data: cash } = await c.from('cash_accounts').select('available, reserved').single();
    expect(cash).toEqual({ available: 0, reserved: 0 });
    expect((await client(backend.url).auth.verifyOtp({ email, token: code, type: 'signup' })).error?.message).toBe(
      'Token has expired or is invalid',
    );
    expect((await client(backend.url).auth.signInWithPassword({ email, password })).error).toBeNull();
  });

  it('sends a new sign-up code when asked, and only to an account waiting for one', async () => {
    const c = client(backend.url);
    const email = `resend${Date.now()}@test.repx.dev`;
    expect((await c.auth.signUp({ email, password: 'password-123' })).error).toBeNull();
    const first = (await lastCodeFor(backend.db, email))!;
    expect((await c.auth.resend({ type: 'signup', email })).error).toBeNull();
    const second = (await lastCodeFor(backend.db, email))!;
    expect(await subjectsTo(email)).toEqual(['Confirm your RepX account', 'Confirm your RepX account']);
    // The new code replaces the old one.
    if (first !== second)
      expect((await c.auth.verifyOtp({ email, token: first, type: 'signup' })).error?.message).toBe(
        'Token has expired or is invalid',
      );
    expect((await c.auth.verifyOtp({ email, token: second, type: 'signup' })).error).toBeNull();
    // A confirmed account and an unknown address get the same answer, and no mail.
    expect((await c.auth.resend({ type: 'signup', email })).error).toBeNull();
    const nobody = `nobody${Date.now()}@test.repx.dev`;
    expect((await c.auth.resend({ type: 'signup', email: nobody })).error).toBeNull();
    expect(await subjectsTo(email)).toHaveLength(2);
    expect(await subjectsTo(nobody)).toEqual([]);
  });

  it('answers a sign-up with a known address as any other, changes nothing, and tells the owner', async () => {
    const { email, id } = await newUser(backend.url, 'dup');
    const c = client(backend.url);
    const dup = await c.auth.signUp({
      email,
      password: 'another-password',
      options: { data: { username: `other${Date.now()}` } },
    });
    expect(dup.error).toBeNull();
    expect(dup.data.session).toBeNull();
    expect(dup.data.user?.id).not.toBe(id);
    expect(dup.data.user?.identities).toEqual([]);
    expect(await subjectsTo(email)).toEqual(['Someone tried to sign up with your email']);
    // A username taken is refused alike for a known address and a new one.
    for (const address of [email, `fresh${Date.now()}@test.repx.dev`]) {
      const taken = await c.auth.signUp({
        email: address,
        password: 'password-123',
        options: { data: { username: 'sarahchen' } },
      });
      expect(taken.error?.message).toBe('The username "sarahchen" is already taken.');
    }
    expect(await subjectsTo(email)).toHaveLength(1);
    expect((await c.auth.signInWithPassword({ email, password: 'another-password' })).error?.message).toBe(
      'Invalid login credentials',
    );
    expect((await c.auth.signInWithPassword({ email, password: 'password-123' })).error).toBeNull();
    // An address still waiting for its code: the latest sign-up replaces the pending one (its
    // password and username, its own first username free to take again) and gets a new code.
    const waiting = `waiting${Date.now()}@test.repx.dev`;
    const first = await c.auth.signUp({ email: waiting, password: 'first-password' });
    const again = await c.auth.signUp({
      email: waiting,
      password: 'second-password',
      options: { data: { username: `${waiting.split('@')[0]}_2` } },
    });
    expect(again.error).toBeNull();
    expect(again.data.user?.id).toBe(first.data.user?.id);
    expect(await subjectsTo(waiting)).toEqual(['Confirm your RepX account', 'Confirm your RepX account']);
    // The second code's mail says it confirms a repeat sign-up, for an owner who made none to refuse it.
    const [welcome, repeat] = await mailsTo(backend.db, waiting);
    expect(welcome!.body).toMatch(/^Welcome to RepX\. To finish creating your account/);
    expect(repeat!.body).toMatch(/^Your email address was just signed up to RepX again, with a new password/);
    expect(repeat!.body).toContain('If you did not sign up again, do not enter this code');
    await confirmSignUp(backend.db, c, waiting);
    const signIn = (password: string) => client(backend.url).auth.signInWithPassword({ email: waiting, password });
    expect((await signIn('first-password')).error?.message).toBe('Invalid login credentials');
    expect((await signIn('second-password')).error).toBeNull();
    const { data: profile } = await c.from('profiles').select('username').eq('id', first.data.user!.id).single();
    expect(profile!.username).toBe(`${waiting.split('@')[0]}_2`);
  });

  it('a sign-up never confirmed expires after a day, freeing its address and username', async () => {
    const c = client(backend.url);
    const stamp = Date.now();
    const [stale, named, fresh] = ['stale', 'named', 'fresh'].map((k) => `${k}${stamp}@test.repx.dev`);
    for (const email of [stale, named, fresh]) {
      const { error } = await c.auth.signUp({
        email,
        password: 'password-123',
        options: { data: { username: email.split('@')[0] } },
      });
      expect(error).toBeNull();
    }
    const idOf = async (email: string) =>
      (await backend.db.query<{ id: string }>('select id from auth.users where email = $1', [email]))[0]?.id;
    const namedId = (await idOf(named))!;
    await backend.db.query(
      `insert into audit_log (actor_id, action, target_user) values ((select id from profiles where username = 'repx_admin'), 'account.suspend', $1)`,
      [namedId],
    );
    await backend.db.query(`update auth.users set created_at = now() - interval '25 hours' where email = any($1)`, [
      [stale, named],
    ]);
    // The offering's system account, never confirmed either, is no sign-up.
    await backend.db.query(
      `update auth.users set created_at = now() - interval '2 days' where email = 'issuance@system.repx.dev'`,
    );
    await backend.db.query('select private.prune()');
    expect(await idOf('issuance@system.repx.dev')).toBeDefined();
    expect(await idOf(stale)).toBeUndefined();
    expect(await idOf(named)).toBe(namedId);
    expect(await idOf(fresh)).toBeDefined();
    // The address and the username are free again: a new sign-up takes both.
    const again = await c.auth.signUp({
      email: stale,
      password: 'password-123',
      options: { data: { username: stale.split('@')[0] } },
    });
    expect(again.error).toBeNull();
    await confirmSignUp(backend.db, c, stale);
    expect((await c.from('profiles').select('username').eq('id', again.data.user!.id).single()).data).toEqual({
      username: stale.split('@')[0],
    });
  });

  it('makes accounts through the admin API for the service role only', async () => {
    const email = `made${Date.now()}@test.repx.dev`;
    const attempt = (key: string, bearer = key) =>
      client(backend.url, key, { Authorization: `Bearer ${bearer}` }).auth.admin.createUser({
        email,
        password: 'password-123',
        email_confirm: true,
      });
    const user = await newUser(backend.url, 'notadmin');
    const userToken = (await user.client.auth.getSession()).data.session!.access_token;
    for (const bearer of [ANON_KEY, userToken]) {
      expect((await attempt(ANON_KEY, bearer)).error).toMatchObject({ status: 403, message: 'User not allowed' });
    }
    expect(
      (await client(backend.url).auth.signInWithPassword({ email, password: 'password-123' })).error?.message,
    ).toBe('Invalid login credentials');
    expect((await attempt(await SERVICE_ROLE_KEY())).error).toBeNull();
    expect((await attempt(await SERVICE_ROLE_KEY())).error?.message).toBe(
      'A user with this email address has already been registered',
    );
    expect((await client(backend.url).auth.signInWithPassword({ email, password: 'password-123' })).error).toBeNull();
  });

  it('refuses a weak password and a bad email at sign-up', async () => {
    const c = client(backend.url);
    const weak = await c.auth.signUp({ email: 'weak@test.repx.dev', password: '12345' });
    expect(weak.error?.message).toBe('Password should be at least 6 characters.');
    expect(weak.error?.name).toBe('AuthWeakPasswordError');
    const bad = await c.auth.signUp({ email: 'not-an-email', password: 'password-123' });
    expect(bad.error?.message).toBe('Unable to validate email address: invalid format');
  });

  it('refuses a username that is taken, in words', async () => {
    const c = client(backend.url);
    const { error } = await c.auth.signUp({
      email: 'taken@test.repx.dev',
      password: 'password-123',
      options: { data: { username: 'sarahchen', full_name: 'Imposter' } },
    });
    expect(error?.message).toBe('The username "sarahchen" is already taken.');
    const again = await c.auth.signInWithPassword({ email: 'taken@test.repx.dev', password: 'password-123' });
    expect(again.error?.message).toBe('Invalid login credentials'); // nothing was created
  });
});
