import type { Backend } from '../server/index';
import { DEFAULT_SESSION_INACTIVITY, endIdleSessions } from '../server/auth/sessions';
import { ENGINES, backendFor } from './harness/backends';
import { ANON_KEY, client, newUser } from './harness/clients';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';

interface Row {
  id: string;
  signed_in_at: string;
  last_seen_at: string;
  user_agent: string | null;
  ip: string | null;
  current: boolean;
}

describe.each(ENGINES)('where a user is signed in, on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  it("lists the caller's own sessions with their browser and address, and ends one of them", async () => {
    const { client: first, email } = await newUser(backend.url, 'where');
    const laptop = client(backend.url, ANON_KEY, { 'User-Agent': FIREFOX });
    expect((await laptop.auth.signInWithPassword({ email, password: 'password-123' })).error).toBeNull();
    const laptopToken = (await laptop.auth.getSession()).data.session!.access_token;
    // Someone else's sessions are never among them.
    await newUser(backend.url, 'stranger');

    const { data, error } = await first.rpc('my_sessions');
    expect(error).toBeNull();
    const rows = data as Row[];
    expect(rows).toHaveLength(2);
    const [mine, other] = [rows.find((r) => r.current)!, rows.find((r) => !r.current)!];
    expect(other.user_agent).toBe(FIREFOX);
    expect(other.ip).toBe('127.0.0.1');
    expect(mine.user_agent).not.toBe(FIREFOX);
    expect(Date.parse(other.last_seen_at)).toBeGreaterThanOrEqual(Date.parse(other.signed_in_at));

    // The laptop's session ends: its next request is refused (read with its token as sent, since
    // clients in one process share auth-js's cross-tab channel), and its refresh token is spent.
    expect((await first.rpc('end_my_session', { p_session: other.id })).error).toBeNull();
    const asLaptop = { apikey: ANON_KEY, Authorization: `Bearer ${laptopToken}` };
    expect((await fetch(`${backend.url}/rest/v1/rpc/my_sessions`, { method: 'POST', headers: asLaptop })).status).toBe(
      401,
    );
    expect((await laptop.auth.refreshSession()).error?.message).toMatch(/Invalid Refresh Token/);
    expect(((await first.rpc('my_sessions')).data as Row[]).map((r) => r.id)).toEqual([mine.id]);
    // Ending it again, or ending another user's session, says it has already ended and changes nothing.
    const again = await first.rpc('end_my_session', { p_session: other.id });
    expect(again.error?.message).toBe('That session has already ended.');
    const stranger = await newUser(backend.url, 'stranger');
    const theirs = ((await stranger.client.rpc('my_sessions')).data as Row[])[0]!;
    const refused = await first.rpc('end_my_session', { p_session: theirs.id });
    expect(refused.error?.message).toBe('That session has already ended.');
    expect((await stranger.client.rpc('my_sessions')).data).toHaveLength(1);
  });

  it('ends a session unused for a month: its refresh is refused and it leaves the list', async () => {
    const { client: c, id } = await newUser(backend.url, 'idle');
    const stale = client(backend.url);
    const email = (await c.auth.getUser()).data.user!.email!;
    expect((await stale.auth.signInWithPassword({ email, password: 'password-123' })).error).toBeNull();
    const staleId = ((await c.rpc('my_sessions')).data as Row[]).find((r) => !r.current)!.id;
    const age = (sessionId: string, seconds: number) =>
      backend.db.query(
        `update auth.sessions set created_at = now() - make_interval(secs => $2), refreshed_at = null where id = $1`,
        [sessionId, seconds],
      );
    // Used within the month, it goes on.
    await age(staleId, DEFAULT_SESSION_INACTIVITY - 60);
    expect((await stale.auth.refreshSession()).error).toBeNull();
    // Unused for longer, its refresh is refused (and the browser signed out), and it is gone.
    await age(staleId, DEFAULT_SESSION_INACTIVITY + 60);
    const refused = await stale.auth.refreshSession();
    expect(refused.error?.message).toBe('Invalid Refresh Token: Session Expired (Inactivity)');
    expect(((await c.rpc('my_sessions')).data as Row[]).map((r) => r.id)).not.toContain(staleId);
    // The scheduled job ends the ones nobody comes back to, and only those.
    const [{ id: mine }] = (await c.rpc('my_sessions')).data as Row[];
    expect((await stale.auth.signInWithPassword({ email, password: 'password-123' })).error).toBeNull();
    const [other] = ((await c.rpc('my_sessions')).data as Row[]).filter((r) => r.id !== mine);
    await age(other!.id, DEFAULT_SESSION_INACTIVITY + 60);
    await endIdleSessions(backend.db, DEFAULT_SESSION_INACTIVITY);
    const left = await backend.db.query<{ id: string }>('select id from auth.sessions where user_id = $1', [id]);
    expect(left.map((r) => r.id)).toEqual([mine]);
  });

  it('is for signed-in users only', async () => {
    const anon = await client(backend.url).rpc('my_sessions');
    expect(anon.error?.code).toBe('42501');
  });
});
