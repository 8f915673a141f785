import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import type { Backend } from '../server/index';
import { DEFAULT_REALTIME_LIMITS, realtimeLimitsFromEnv } from '../server/realtime/limits';
import { ENGINES, backendFor, eventually } from './harness/backends';
import { ANON_KEY, DEMO, realtimeMember, subscribed } from './harness/clients';
import { confirmSignUp } from './harness/mail';
import { countWatchers } from '../mf-trading/src/trading/watcherCount';

jest.setTimeout(120_000);

/** A raw socket speaking Phoenix's 1.0.0 frames, which realtime-js would reconnect on its own. */
async function rawSocket(
  url: string,
): Promise<{ ws: WebSocket; frames: Record<string, unknown>[]; closed: Promise<number> }> {
  const ws = new WebSocket(`${url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${ANON_KEY}&vsn=1.0.0`);
  const frames: Record<string, unknown>[] = [];
  ws.on('message', (data) => frames.push(JSON.parse(String(data)) as Record<string, unknown>));
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return { ws, frames, closed };
}

let ref = 0;
const frame = (topic: string, event: string, payload: Record<string, unknown> = {}) =>
  JSON.stringify({ topic, event, payload, ref: String(++ref), join_ref: String(ref) });

/** What the server said went wrong: system errors on a channel, and refused requests. */
const errors = (frames: Record<string, unknown>[]) =>
  frames.flatMap((f) => {
    const p = f.payload as { status?: string; message?: string; response?: { reason?: string } };
    if (f.event === 'system' && p.status === 'error') return [p.message];
    if (f.event === 'phx_reply' && p.status === 'error') return [p.response?.reason];
    return [];
  });

describe('REALTIME_LIMITS', () => {
  it("are Supabase Realtime's, overridable by name, and off for benchmarks", () => {
    expect(realtimeLimitsFromEnv(undefined)).toEqual(DEFAULT_REALTIME_LIMITS);
    expect(DEFAULT_REALTIME_LIMITS.maxMessageBytes).toBe(256 * 1024);
    expect(realtimeLimitsFromEnv('socketsPerAddress=20').socketsPerAddress).toBe(20);
    expect(realtimeLimitsFromEnv('off').socketsPerAddress).toBeGreaterThan(1e9);
    expect(() => realtimeLimitsFromEnv('sockets=2')).toThrow(/cannot read "sockets=2"/);
    expect(() => realtimeLimitsFromEnv('joinsPerSecond=0')).toThrow(/at least 1/);
  });
});

describe.each(ENGINES)('Realtime limits on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine, {
      realtimeLimits: {
        ...DEFAULT_REALTIME_LIMITS,
        maxMessageBytes: 64 * 1024,
        messagesPerSecond: 20,
        socketsPerAddress: 4,
        channelsPerClient: 3,
        joinsPerSecond: 5,
        maxPresenceBytes: 1024,
      },
    })();
  });
  afterAll(() => backend.close());

  it('closes a socket that sends a frame over the size limit, before relaying any of it', async () => {
    const listener = await rawSocket(backend.url);
    listener.ws.send(frame('realtime:big', 'phx_join', { config: { broadcast: { self: false } } }));
    const sender = await rawSocket(backend.url);
    sender.ws.send(frame('realtime:big', 'phx_join', {}));
    await eventually(async () => (sender.frames.some((f) => f.event === 'phx_reply') ? true : undefined));
    sender.ws.send(
      frame('realtime:big', 'broadcast', { type: 'broadcast', event: 'x', payload: { blob: 'x'.repeat(100_000) } }),
    );
    expect(await sender.closed).toBe(1009);
    await new Promise((r) => setTimeout(r, 300));
    expect(listener.frames.filter((f) => f.event === 'broadcast')).toEqual([]);
    listener.ws.close();
  });

  it('disconnects a socket that sends too many messages a second, saying so on its channels', async () => {
    const flooder = await rawSocket(backend.url);
    flooder.ws.send(frame('realtime:flood', 'phx_join', {}));
    for (let i = 0; i < 60; i++)
      flooder.ws.send(frame('realtime:flood', 'broadcast', { type: 'broadcast', event: 'x', payload: { i } }));
    expect(await flooder.closed).toBe(1008);
    expect(errors(flooder.frames)).toContain('ClientRateLimited: Too many messages per second');
  });

  it('refuses a socket beyond the sockets allowed from one address, and admits one again when another closes', async () => {
    const open = await Promise.all([1, 2, 3, 4].map(() => rawSocket(backend.url)));
    await expect(rawSocket(backend.url)).rejects.toThrow(/429/);
    open[0]!.ws.close();
    await open[0]!.closed;
    const again = await rawSocket(backend.url);
    for (const s of [...open.slice(1), again]) s.ws.close();
    await Promise.all([...open.slice(1), again].map((s) => s.closed));
  });

  it('disconnects a socket that joins more channels than a client may hold', async () => {
    const socket = await rawSocket(backend.url);
    for (const topic of ['a', 'b', 'c', 'd']) socket.ws.send(frame(`realtime:${topic}`, 'phx_join', {}));
    expect(await socket.closed).toBe(1008);
    expect(errors(socket.frames)).toContain('ChannelRateLimitReached: Too many channels');
  });

  it('disconnects a socket that joins faster than it may', async () => {
    const socket = await rawSocket(backend.url);
    for (let i = 0; i < 8; i++) socket.ws.send(frame('realtime:same', 'phx_join', {}));
    expect(await socket.closed).toBe(1008);
    expect(errors(socket.frames)).toContain('ClientJoinRateLimitReached: Too many joins per second');
  });

  it("refuses a presence payload over its limit, and a presence key that is another user's id", async () => {
    const member = await realtimeMember(backend.url);
    const statuses: string[] = [];
    const channel = member.channel('watchers:x', { config: { presence: { key: 'someone' } } });
    await subscribed(channel);
    expect(await channel.track({ note: 'x'.repeat(2000) })).toBe('error');
    expect(await channel.track({ note: 'fine' })).toBe('ok');
    const impostor = member.channel('watchers:y', {
      config: { presence: { key: '00000000-0000-4000-8000-000000000001' } },
    });
    impostor.subscribe((status) => statuses.push(status));
    await eventually(async () => (statuses.length ? true : undefined));
    expect(statuses[0]).toBe('CHANNEL_ERROR');
    await member.removeAllChannels();
  });
});

describe.each(ENGINES)('Realtime private and public topics on %s', (engine) => {
  let backend: Backend;
  let owner: SupabaseClient;
  let other: SupabaseClient;
  beforeAll(async () => {
    backend = await backendFor(engine)();
    const [{ id }] = (await backend.db.query<{ id: string }>(`select id from auth.users where email = $1`, [
      DEMO.email,
    ])) as [{ id: string }];
    // Only the demo user may use the private topic room-<their id>.
    await backend.db.exec(`
      create policy "own room read" on realtime.messages for select to authenticated
        using (realtime.topic() = 'room-' || auth.uid()::text);
      create policy "own room write" on realtime.messages for insert to authenticated
        with check (realtime.topic() = 'room-' || auth.uid()::text);`);
    owner = await realtimeMember(backend.url);
    other = createClient(backend.url, ANON_KEY, {
      auth: { persistSession: false, autoRefreshToken: false },
    });
    const email = `other${Date.now()}@test.repx.dev`;
    await other.auth.signUp({ email, password: 'password-123' });
    await confirmSignUp(backend.db, other, email);
    await other.realtime.setAuth();
    (globalThis as { room?: string }).room = `room-${id}`;
  });
  afterAll(async () => {
    await owner.removeAllChannels();
    await other.removeAllChannels();
    await backend.close();
  });
  const room = () => (globalThis as { room?: string }).room!;

  it('keeps a private topic apart from the public topic of the same name, over the socket and over HTTP', async () => {
    const privateHeard: unknown[] = [];
    const publicHeard: unknown[] = [];
    const mine = owner
      .channel(room(), { config: { private: true } })
      .on('broadcast', { event: 'note' }, (m) => privateHeard.push(m.payload));
    await subscribed(mine);
    // The other user is refused the private topic, and joins the public one of the same name.
    const theirs = other.channel(room()).on('broadcast', { event: 'note' }, (m) => publicHeard.push(m.payload));
    await subscribed(theirs);

    expect(await mine.send({ type: 'broadcast', event: 'note', payload: { secret: 1 } })).toBe('ok');
    expect(await theirs.send({ type: 'broadcast', event: 'note', payload: { public: 1 } })).toBe('ok');
    expect(await other.channel(room()).httpSend('note', { public: 2 })).toEqual({ success: true });
    expect(await owner.channel(room(), { config: { private: true } }).httpSend('note', { secret: 2 })).toEqual({
      success: true,
    });
    await eventually(async () => (privateHeard.length >= 1 && publicHeard.length >= 1 ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));
    expect(privateHeard).toEqual([{ secret: 2 }]); // its own send came back only with self
    expect(publicHeard).toEqual([{ public: 2 }]);
  });

  it("ends a socket's private channel when its session ends", async () => {
    const member = await realtimeMember(backend.url);
    const statuses: string[] = [];
    const heard: unknown[] = [];
    const channel = member
      .channel(room(), { config: { private: true } })
      .on('broadcast', { event: 'after' }, (m) => heard.push(m.payload))
      .on('system', {}, (m: { message?: string }) => statuses.push(String(m.message)));
    await subscribed(channel);
    const token = (await member.auth.getSession()).data.session!.access_token;
    const session = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).session_id as string;
    await backend.db.query('delete from auth.sessions where id = $1', [session]); // as a global sign-out does
    await eventually(async () => (statuses.some((s) => /session has ended/.test(s)) ? true : undefined));
    expect(await owner.channel(room(), { config: { private: true } }).httpSend('after', { n: 1 })).toEqual({
      success: true,
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(heard).toEqual([]);
    await member.removeAllChannels();
  });

  it('counts the people watching a token once each, signed-in only: no anonymous or extra socket adds one', async () => {
    const topic = `watchers:${Date.now()}`;
    const watch = async (c: SupabaseClient, key: string) => {
      const ch = c.channel(topic, { config: { private: true, presence: { key } } });
      await subscribed(ch);
      expect(await ch.track({ since: 'now' })).toBe('ok');
      return ch;
    };
    const ownerId = (await owner.auth.getUser()).data.user!.id;
    const otherId = (await other.auth.getUser()).data.user!.id;
    const seen = await watch(owner, ownerId);
    // Three more sockets of the owner, and one of another person.
    const tabs = await Promise.all([0, 1, 2].map(() => realtimeMember(backend.url)));
    for (const tab of tabs) await watch(tab, ownerId);
    await watch(other, otherId);
    // A signed-in script under a made-up key is seen, but is no one: the page counts user ids.
    const script = await realtimeMember(backend.url);
    await watch(script, 'script-1');
    // Anonymous sockets are refused the private room; on the public topic of the name they are not in it.
    const anon = () => createClient(backend.url, ANON_KEY, { auth: { persistSession: false } });
    const refused = anon();
    const statuses: string[] = [];
    refused.channel(topic, { config: { private: true } }).subscribe((s) => statuses.push(s));
    await eventually(async () => (statuses.length ? true : undefined));
    expect(statuses[0]).toBe('CHANNEL_ERROR');
    const strangers = [0, 1, 2, 3, 4].map(anon);
    for (const [i, a] of strangers.entries()) {
      const ch = a.channel(topic, { config: { presence: { key: `anon-${i}` } } });
      await subscribed(ch);
      await ch.track({ since: 'now' });
    }
    await eventually(async () => (Object.keys(seen.presenceState()).length === 3 ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));
    expect(Object.keys(seen.presenceState()).sort()).toEqual([ownerId, otherId, 'script-1'].sort());
    expect(countWatchers(seen.presenceState())).toBe(2);
    for (const c of [...tabs, script, refused, ...strangers]) await c.removeAllChannels();
  });
});
