import pg from 'pg';
import { startBackend, type Backend } from '../server/index';
import { poolShare } from '../server/cluster';
import { readEnv } from '../server/env';
import { DEMO_JWT_SECRET } from '../server/demo';
import { NO_RATE_LIMITS } from '../server/http/rateLimit';
import { ENGINES, createDatabase, dropDatabase } from './harness/backends';
import { ANON_KEY, DEMO, client, realtimeMember, subscribed } from './harness/clients';
import { freshToken, placeOrder, trader } from './harness/market';
import { spawnServer, stopServer } from './harness/process';
import { freePort } from './harness/ports';

// Scale-out is a PostgreSQL feature: PGlite is one embedded database in one process.
const onPostgres = ENGINES.includes('postgres') ? describe : describe.skip;

describe('DB_POOL', () => {
  it("is the server's connections to PostgreSQL, 10 unless set, shared equally among its processes, at least 2 each", () => {
    expect(readEnv({}).DB_POOL).toBeUndefined(); // the server's DEFAULT_POOL, 10
    expect(readEnv({ DB_POOL: '24' }).DB_POOL).toBe(24);
    for (const bad of ['0', '-1', '2.5', 'ten'])
      expect(() => readEnv({ DB_POOL: bad })).toThrow(`DB_POOL="${bad}": expected a whole number of at least 1`);
    expect(poolShare(10, 1)).toBe(10);
    expect(poolShare(10, 2)).toBe(5);
    expect(poolShare(10, 3)).toBe(4);
    expect(poolShare(10, 16)).toBe(2);
  });

  it('refuses to start the server with a bad setting, saying why', async () => {
    await expect(spawnServer({ DB_POOL: 'ten', SUPABASE_PORT: String(await freePort()) })).rejects.toThrow(
      /server exited with 1: Configuration refused:\n {2}DB_POOL="ten": expected a whole number of at least 1\n/,
    );
  });
});

onPostgres('two server processes over one PostgreSQL', () => {
  let url: string;
  let a: Backend;
  let b: Backend;
  beforeAll(async () => {
    url = await createDatabase('repex_scale');
    const options = {
      port: 0,
      databaseUrl: url,
      jwtSecret: DEMO_JWT_SECRET,
      rateLimits: { ...NO_RATE_LIMITS, accountFailures: { capacity: 3, perSeconds: 900 } },
    };
    a = await startBackend(options);
    b = await startBackend({ ...options, migrate: false }); // as a second host: the database is prepared
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await dropDatabase(url);
  });

  const waitFor = async (done: () => boolean, ms = 5000) => {
    const deadline = Date.now() + ms;
    while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  };

  /** A member of the market on one process: what it hears of `token`. */
  async function marketWatcher(on: Backend, token: string) {
    const who = await trader(on);
    const c = client(on.url); // talks to this process only
    await c.auth.setSession((await who.client.auth.getSession()).data.session!);
    await c.realtime.setAuth();
    const heard: { kind: string; n?: number }[] = [];
    await subscribed(
      c
        .channel('market', { config: { private: true } })
        .on('broadcast', { event: 'token' }, (m) => m.payload.token_id === token && heard.push(m.payload as never)),
    );
    return { heard, c };
  }

  it('tells members on every process of an order placed through one, each exactly once', async () => {
    const token = await freshToken(a);
    const seller = await trader(a, { token, tokens: 10 });
    const [onA, onB] = [await marketWatcher(a, token), await marketWatcher(b, token)];
    const sentAt = Date.now();
    expect((await placeOrder(seller.client, token, 'sell', 'limit', 1, 10)).error).toBeNull();
    await waitFor(() => onA.heard.length > 0 && onB.heard.length > 0);
    console.log(`the market's message reached both processes in ${Date.now() - sentAt} ms`);
    await new Promise((r) => setTimeout(r, 300));
    expect(onA.heard).toEqual([expect.objectContaining({ kind: 'book' })]);
    expect(onB.heard).toEqual([expect.objectContaining({ kind: 'book' })]);
    await onA.c.removeAllChannels();
    await onB.c.removeAllChannels();
  });

  it("tells an account's owner on another process, and refuses a stranger's join there", async () => {
    const token = await freshToken(a);
    const seller = await trader(a, { token, tokens: 10 });
    const c = client(b.url);
    await c.auth.setSession((await seller.client.auth.getSession()).data.session!);
    await c.realtime.setAuth();
    const heard: unknown[] = [];
    await subscribed(
      c
        .channel(`account:${seller.id}`, { config: { private: true } })
        .on('broadcast', { event: 'account' }, (m) => heard.push(m.payload)),
    );
    await placeOrder(seller.client, token, 'sell', 'limit', 1, 10);
    await waitFor(() => heard.length > 0);
    expect(heard).toEqual([{ what: 'orders', token_id: token }]);
    const stranger = await trader(b);
    await stranger.client.realtime.setAuth();
    const refused = await new Promise<string>((resolve) =>
      stranger.client
        .channel(`account:${seller.id}`, { config: { private: true } })
        .subscribe((status, err) => status !== 'SUBSCRIBED' && resolve(`${status} ${err?.message}`)),
    );
    expect(refused).toMatch(/CHANNEL_ERROR .*permissions to read/);
    await c.removeAllChannels();
    await stranger.client.removeAllChannels();
  });

  it('delivers a message whose transaction commits after a later one (ids committed out of order)', async () => {
    const token = await freshToken(a);
    const watcher = await marketWatcher(b, token);
    const send = `select realtime.send(jsonb_build_object('token_id', $1::text, 'kind', 'book', 'n', $2::int), 'token', 'market', true)`;
    const slow = new pg.Client({ connectionString: url });
    await slow.connect();
    await slow.query('begin');
    await slow.query(send, [token, 1]);
    await b.db.query(send, [token, 2]);
    await waitFor(() => watcher.heard.length > 0);
    expect(watcher.heard.map((m) => m.n)).toEqual([2]);
    await slow.query('commit');
    await slow.end();
    await waitFor(() => watcher.heard.length > 1);
    expect(watcher.heard.map((m) => m.n)).toEqual([2, 1]);
    await watcher.c.removeAllChannels();
  });

  it('relays a broadcast made through one process to members on the other, exactly once, between both serializers', async () => {
    const [onA, onB] = await Promise.all([realtimeMember(a.url, '2.0.0'), realtimeMember(b.url, '1.0.0')]);
    const topic = `room-${Date.now()}`;
    const heardOnA: unknown[] = [];
    const heardOnB: unknown[] = [];
    const tx = onA.channel(topic).on('broadcast', { event: 'cursor' }, (m) => heardOnA.push(m.payload));
    const rx = onB.channel(topic).on('broadcast', { event: 'cursor' }, (m) => heardOnB.push(m.payload));
    await subscribed(tx);
    await subscribed(rx);
    const sentAt = Date.now();
    expect(await tx.send({ type: 'broadcast', event: 'cursor', payload: { x: 1, who: 'é' } })).toBe('ok');
    await waitFor(() => heardOnB.length > 0);
    console.log(`broadcast crossed processes in ${Date.now() - sentAt} ms`);
    expect((await onB.channel(`${topic}-http`).httpSend('cursor', { via: 'b' })).success).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(heardOnB).toEqual([{ x: 1, who: 'é' }]); // once, not echoed back by a's follower
    expect(heardOnA).toEqual([]); // the sender did not ask for self
    await onA.removeAllChannels();
    await onB.removeAllChannels();
  });

  it('counts presence across processes: state on join, joins and leaves as they happen', async () => {
    const [onA, onB] = await Promise.all([realtimeMember(a.url, '1.0.0'), realtimeMember(b.url, '2.0.0')]);
    const topic = `watch-${Date.now()}`;
    const keys = (ch: ReturnType<typeof onA.channel>) => Object.keys(ch.presenceState()).sort();
    const chA = onA
      .channel(topic, { config: { presence: { key: 'viewer-a' } } })
      .on('presence', { event: 'sync' }, () => undefined);
    await subscribed(chA);
    await chA.track({ page: 'trading' });
    await waitFor(() => keys(chA).includes('viewer-a'));
    // b joins through the other process: its state already counts a's viewer.
    const chB = onB
      .channel(topic, { config: { presence: { key: 'viewer-b' } } })
      .on('presence', { event: 'sync' }, () => undefined);
    await subscribed(chB);
    await waitFor(() => keys(chB).includes('viewer-a'));
    expect(keys(chB)).toEqual(['viewer-a']);
    await chB.track({ page: 'trading' });
    await waitFor(() => keys(chA).length === 2);
    expect(keys(chA)).toEqual(['viewer-a', 'viewer-b']);
    await waitFor(() => keys(chB).length === 2);
    expect(keys(chB)).toEqual(['viewer-a', 'viewer-b']);
    await chA.untrack();
    await waitFor(() => keys(chB).length === 1);
    expect(keys(chB)).toEqual(['viewer-b']);
    await onA.removeAllChannels();
    await onB.removeAllChannels();
  });

  it('counts rate limits and ends sessions across processes', async () => {
    const user = await trader(a);
    const email = (await user.client.auth.getUser()).data.user!.email!;
    const signIn = (url: string, password: string) =>
      fetch(`${url}/auth/v1/token?grant_type=password`, {
        method: 'POST',
        headers: { apikey: ANON_KEY, 'Content-Type': 'application/json' },
        body: JSON.stringify({ email, password }),
      });
    // Three wrong passwords spread over both processes lock the account on both.
    for (const server of [a, b, a]) expect((await signIn(server.url, 'wrong-password')).status).toBe(400);
    expect((await signIn(b.url, 'password-123')).status).toBe(429);
    expect((await signIn(a.url, 'password-123')).status).toBe(429);

    // A global sign-out through a ends the token everywhere: b refuses it at once.
    const other = await trader(a);
    const session = (await other.client.auth.getSession()).data.session!;
    const onB = client(b.url, ANON_KEY, { Authorization: `Bearer ${session.access_token}` });
    expect((await onB.from('profiles').select('id').eq('id', other.id)).data).toHaveLength(1);
    await other.client.auth.signOut({ scope: 'global' });
    const refused = await onB.from('profiles').select('id').eq('id', other.id);
    expect(refused.error?.message).toBe('Your session has ended. Please sign in again.');
  });

  it('runs as a cluster: SERVER_PROCESSES=2 prepares the database once, serves from both, and shares DB_POOL', async () => {
    const fresh = await createDatabase('repex_cluster');
    const port = await freePort();
    const server = await spawnServer({
      DATABASE_URL: fresh,
      SERVER_PROCESSES: '2',
      DB_POOL: '4',
      SUPABASE_PORT: String(port),
      JWT_SECRET: DEMO_JWT_SECRET,
      RATE_LIMITS: 'off',
    });
    try {
      // Each sign-in opens a new connection, which the cluster hands to one of its processes in turn.
      const results = await Promise.all(
        Array.from({ length: 6 }, async () => {
          const c = client(`http://localhost:${port}`);
          return (await c.auth.signInWithPassword(DEMO)).error;
        }),
      );
      expect(results).toEqual(Array(6).fill(null));
      // 60 reads at once: every process's pool opens all it may.
      const reader = client(`http://localhost:${port}`);
      await reader.auth.signInWithPassword(DEMO);
      const reads = await Promise.all(Array.from({ length: 60 }, () => reader.from('profiles').select('id').limit(1)));
      expect(reads.map((r) => r.error)).toEqual(Array(60).fill(null));
      // Eight watchers, each its own socket, which the cluster deals among its processes: one
      // order reaches each of them exactly once, whichever process holds its socket.
      const watchers = await Promise.all(
        Array.from({ length: 8 }, async () => {
          const c = await realtimeMember(`http://localhost:${port}`);
          const heard: unknown[] = [];
          await subscribed(
            c
              .channel('market', { config: { private: true } })
              .on('broadcast', { event: 'token' }, (m) => heard.push(m)),
          );
          return { c, heard };
        }),
      );
      const { data: sarah } = await reader.from('tokens').select('id').eq('username', 'sarahchen').single();
      expect((await placeOrder(reader, (sarah as { id: string }).id, 'sell', 'limit', 1, 60)).error).toBeNull();
      const until = Date.now() + 5000;
      while (watchers.some((w) => w.heard.length < 1) && Date.now() < until)
        await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 300));
      expect(watchers.map((w) => w.heard.length)).toEqual(Array(8).fill(1));
      for (const w of watchers) await w.c.removeAllChannels();
      const admin = new pg.Client({ connectionString: fresh });
      await admin.connect();
      const { rows } = await admin.query(
        `select count(*) filter (where query ilike 'listen %')::int as listening,
                count(*) filter (where query not ilike 'listen %')::int as pooled
         from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
      );
      await admin.end();
      // Two processes: each holds its own listening connection to the database, and at most 2 of DB_POOL's 4.
      expect(rows[0].listening).toBe(2);
      expect(rows[0].pooled).toBeGreaterThanOrEqual(2);
      expect(rows[0].pooled).toBeLessThanOrEqual(4);
    } finally {
      await stopServer(server);
      await dropDatabase(fresh);
    }
  }, 120_000);
});
