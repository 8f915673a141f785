import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { client } from './harness/clients';
import { mailsTo } from './harness/mail';

/*
 * A project whose config.toml turns confirmations off (the Supabase CLI's default): sign-up
 * answers a session at once, as GoTrue with autoconfirm does, and supabase-js's own tests expect.
 */
describe.each(ENGINES)('sign-up with confirmations off on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine, {
      emailConfirmations: false,
      jwtExpiry: 900,
      siteUrl: 'https://repx.example',
    })();
  });
  afterAll(() => backend.close());

  it('signs the new account in at once, confirmed, with the configured token lifetime', async () => {
    const c = client(backend.url);
    const username = `open${Date.now()}`;
    const email = `${username}@test.repx.dev`;
    const up = await c.auth.signUp({ email, password: 'password-123', options: { data: { username } } });
    expect(up.error).toBeNull();
    expect(up.data.session).toMatchObject({ token_type: 'bearer', expires_in: 900 });
    expect(up.data.user?.email_confirmed_at).toBeTruthy();
    // The session is a real one: the database knows who is asking.
    const { data: me } = await c.from('profiles').select('username').eq('id', up.data.user!.id).single();
    expect(me).toEqual({ username });
    expect((await c.auth.getUser()).data.user?.email).toBe(email);
    // Nothing to confirm, so nothing is mailed.
    expect(await mailsTo(backend.db, email)).toEqual([]);
    // The same address again is refused in words, and the account keeps its password.
    const again = await client(backend.url).auth.signUp({ email, password: 'another-456' });
    expect(again.error).toMatchObject({ code: 'user_already_exists', message: 'User already registered' });
    expect((await client(backend.url).auth.signInWithPassword({ email, password: 'password-123' })).error).toBeNull();
  });

  it('says so in /settings, as GoTrue does', async () => {
    const res = await fetch(`${backend.url}/auth/v1/settings`, { headers: { apikey: backend.anonKey } });
    expect(await res.json()).toMatchObject({ mailer_autoconfirm: true });
  });

  it("signs auth's mail with the configured site address", async () => {
    const c = client(backend.url);
    const email = `recover${Date.now()}@test.repx.dev`;
    expect((await c.auth.signUp({ email, password: 'password-123' })).error).toBeNull();
    expect((await c.auth.resetPasswordForEmail(email)).error).toBeNull();
    const [mail] = await mailsTo(backend.db, email);
    expect(mail?.body).toMatch(/\n\nRepX · https:\/\/repx\.example$/);
  });
});
