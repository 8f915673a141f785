import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { ANON_KEY, DEMO, realtimeMember, subscribed } from './harness/clients';
import { confirmSignUp } from './harness/mail';

const received = (into: unknown[], n: number, ms = 5000) =>
  new Promise<void>((resolve, reject) => {
    const deadline = Date.now() + ms;
    const tick = () =>
      into.length >= n
        ? resolve()
        : Date.now() > deadline
          ? reject(new Error(`got ${into.length} of ${n}`))
          : setTimeout(tick, 20);
    tick();
  });

describe.each(ENGINES)('Realtime broadcast on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  const member = (vsn: '1.0.0' | '2.0.0') => realtimeMember(backend.url, vsn);

  for (const [a, b] of [
    ['1.0.0', '2.0.0'],
    ['2.0.0', '1.0.0'],
    ['2.0.0', '2.0.0'],
  ] as const) {
    it(`relays a send() from a ${a} member to a ${b} member (and back to the sender with self), with an ack`, async () => {
      const [sender, listener] = await Promise.all([member(a), member(b)]);
      const topic = `room-${a}-${b}-${Date.now()}`;
      const heard: unknown[] = [];
      const echoed: unknown[] = [];
      const tx = sender
        .channel(topic, { config: { broadcast: { self: true, ack: true } } })
        .on('broadcast', { event: 'cursor' }, (m) => echoed.push(m.payload));
      const rx = listener.channel(topic).on('broadcast', { event: 'cursor' }, (m) => heard.push(m.payload));
      await subscribed(tx);
      await subscribed(rx);
      expect(await tx.send({ type: 'broadcast', event: 'cursor', payload: { x: 12, y: 34, who: 'é' } })).toBe('ok');
      await received(heard, 1);
      await received(echoed, 1);
      expect(heard).toEqual([{ x: 12, y: 34, who: 'é' }]);
      expect(echoed).toEqual([{ x: 12, y: 34, who: 'é' }]);
      await sender.removeAllChannels();
      await listener.removeAllChannels();
    });
  }

  it("relays httpSend (the REST broadcast endpoint) to the channel's members", async () => {
    const [sender, listener] = await Promise.all([member('2.0.0'), member('1.0.0')]);
    const topic = `http-${Date.now()}`;
    const heard: unknown[] = [];
    const rx = listener.channel(topic).on('broadcast', { event: 'note' }, (m) => heard.push(m.payload));
    await subscribed(rx);
    const result = await sender.channel(topic).httpSend('note', { text: 'over HTTP' });
    expect(result).toEqual({ success: true });
    await received(heard, 1);
    expect(heard).toEqual([{ text: 'over HTTP' }]);
    await listener.removeAllChannels();
  });

  it('relays a binary httpSend as bytes to a vsn 2.0.0 member; one past the size limit is refused', async () => {
    const [sender, listener] = await Promise.all([member('2.0.0'), member('2.0.0')]);
    const topic = `bytes-${Date.now()}`;
    const heard: unknown[] = [];
    const rx = listener.channel(topic).on('broadcast', { event: 'blob' }, (m) => heard.push(m.payload));
    await subscribed(rx);
    const bytes = new Uint8Array([0, 1, 2, 250, 255]);
    expect(await sender.channel(topic).httpSend('blob', bytes)).toEqual({ success: true });
    await received(heard, 1);
    expect(new Uint8Array(heard[0] as ArrayBuffer)).toEqual(bytes);
    await expect(sender.channel(topic).httpSend('blob', new Uint8Array(300_000))).rejects.toThrow(
      "A broadcast's payload has at most 262144 bytes.",
    );
    await listener.removeAllChannels();
  });
});

describe.each(ENGINES)('Realtime presence on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  const connect = () => realtimeMember(backend.url);
  const until = async (check: () => boolean, ms = 5000) => {
    const deadline = Date.now() + ms;
    while (!check()) {
      if (Date.now() > deadline) throw new Error('presence did not sync');
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  it('syncs tracked members across clients, and a member who leaves is gone for the others', async () => {
    const [a, b] = await Promise.all([connect(), connect()]);
    const topic = `watchers-${Date.now()}`;
    const ca = a
      .channel(topic, { config: { presence: { key: 'alice' } } })
      .on('presence', { event: 'sync' }, () => undefined);
    const cb = b
      .channel(topic, { config: { presence: { key: 'bob' } } })
      .on('presence', { event: 'sync' }, () => undefined);
    await subscribed(ca);
    await ca.track({ page: 'trading' });
    await subscribed(cb);
    await cb.track({ page: 'market' });
    await until(() => Object.keys(ca.presenceState()).length === 2 && Object.keys(cb.presenceState()).length === 2);
    expect(Object.keys(cb.presenceState()).sort()).toEqual(['alice', 'bob']);
    expect(cb.presenceState().alice![0]).toMatchObject({ page: 'trading' });
    await b.removeChannel(cb);
    await until(() => Object.keys(ca.presenceState()).length === 1);
    expect(Object.keys(ca.presenceState())).toEqual(['alice']);
    await a.removeAllChannels();
  });
});

describe.each(ENGINES)('Realtime private channels on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  const connect = (creds: { email: string; password: string }) => realtimeMember(backend.url, undefined, creds);
  const joinStatus = (channel: ReturnType<SupabaseClient['channel']>) =>
    new Promise<string>((resolve) => channel.subscribe((status) => status !== 'CLOSED' && resolve(status)));

  it('admits to a private channel only whom the policies on realtime.messages admit, for joins and broadcasts', async () => {
    const [{ id: demoId }] = (await backend.db.query<{ id: string }>(`select id from auth.users where email = $1`, [
      DEMO.email,
    ])) as [{ id: string }];
    await backend.db.exec(`
      create policy "club members read" on realtime.messages for select to authenticated
        using (realtime.topic() = 'club' and auth.uid() = '${demoId}');
      create policy "club members write" on realtime.messages for insert to authenticated
        with check (realtime.topic() = 'club' and auth.uid() = '${demoId}');`);
    const member = await connect(DEMO);
    const outsider = createClient(backend.url, ANON_KEY, {
      auth: { persistSession: false, autoRefreshToken: false },
    });
    const email = `outsider${Date.now()}@test.repx.dev`;
    await outsider.auth.signUp({ email, password: 'password-123' });
    await confirmSignUp(backend.db, outsider, email);
    await outsider.realtime.setAuth();

    const heard: unknown[] = [];
    const inside = member
      .channel('club', { config: { private: true } })
      .on('broadcast', { event: 'hi' }, (m) => heard.push(m.payload));
    expect(await joinStatus(inside)).toBe('SUBSCRIBED');
    expect(await joinStatus(outsider.channel('club', { config: { private: true } }))).toBe('CHANNEL_ERROR');
    expect(await joinStatus(member.channel('other-club', { config: { private: true } }))).toBe('CHANNEL_ERROR');

    // httpSend to a private channel: the member may, the outsider may not.
    expect(await member.channel('club', { config: { private: true } }).httpSend('hi', { from: 'member' })).toEqual({
      success: true,
    });
    await expect(
      outsider.channel('club', { config: { private: true } }).httpSend('hi', { from: 'outsider' }),
    ).rejects.toThrow();
    await received(heard, 1);
    expect(heard).toEqual([{ from: 'member' }]);
    await member.removeAllChannels();
    await outsider.removeAllChannels();
  });
});
