import WebSocket from 'ws';
import type { Backend } from '../server/index';
import { DEFAULT_REALTIME_LIMITS } from '../server/realtime/limits';
import { metricValue } from '../server/metrics';
import { ENGINES, backendFor, eventually } from './harness/backends';
import { ANON_KEY, SERVICE_ROLE_KEY, subscribed } from './harness/clients';
import { trader } from './harness/market';

jest.setTimeout(90_000);

/** What the server may queue for one socket in this test: small, so a few messages fill it. */
const SEND_BUFFER = 64 * 1024;
/** Messages sent in batches a healthy reader drains between them, 16 MB in all. */
const BATCHES = 20;
const PER_BATCH = 100;
const MESSAGES = BATCHES * PER_BATCH;

/** A socket that joins the market as `token`'s user, then stops reading, as a stalled phone would. */
async function stalledMember(url: string, accessToken: string) {
  const ws = new WebSocket(`${url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${ANON_KEY}&vsn=1.0.0`);
  const frames: { topic: string; event: string; payload: Record<string, unknown> }[] = [];
  ws.on('message', (data: Buffer) => frames.push(JSON.parse(data.toString()) as (typeof frames)[number]));
  await new Promise((r) => ws.once('open', r));
  ws.send(
    JSON.stringify({
      topic: 'realtime:market',
      event: 'phx_join',
      ref: '1',
      join_ref: '1',
      payload: {
        config: { private: true, broadcast: {}, presence: {}, postgres_changes: [] },
        access_token: accessToken,
      },
    }),
  );
  await eventually(async () => (frames.some((f) => f.event === 'phx_reply') ? true : undefined));
  expect(frames.find((f) => f.event === 'phx_reply')!.payload.status).toBe('ok');
  const socket = (ws as unknown as { _socket: import('node:net').Socket })._socket;
  return { ws, frames, pause: () => socket.pause(), resume: () => socket.resume() };
}

describe.each(ENGINES)('a slow Realtime consumer on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine, {
      realtimeLimits: { ...DEFAULT_REALTIME_LIMITS, sendBufferBytes: SEND_BUFFER },
    })();
  });
  afterAll(() => backend.close());

  const metrics = async () =>
    (
      await fetch(`${backend.url}/metrics`, { headers: { Authorization: `Bearer ${await SERVICE_ROLE_KEY()}` } })
    ).text();

  it('misses messages and is told to resync, while the others get every one; what it costs the server stays bounded', async () => {
    const fast = await trader(backend);
    await fast.client.realtime.setAuth();
    const got = new Set<number>();
    await subscribed(
      fast.client
        .channel('market', { config: { private: true } })
        .on('broadcast', { event: 'token' }, (m) => m.payload.token_id === 'bulk' && got.add(Number(m.payload.n))),
    );
    const slowUser = await trader(backend);
    const slow = await stalledMember(backend.url, (await slowUser.client.auth.getSession()).data.session!.access_token);
    slow.pause();

    // Far more than the stalled socket and the kernel's buffers hold; a reader that reads keeps up.
    for (let batch = 0; batch < BATCHES; batch++) {
      await backend.db.query(
        `select realtime.send(jsonb_build_object('token_id', 'bulk', 'n', g, 'pad', repeat('x', 8000)), 'token', 'market', true)
           from generate_series($1::int, $2::int) g`,
        [batch * PER_BATCH + 1, (batch + 1) * PER_BATCH],
      );
      await new Promise((r) => setTimeout(r, 100));
    }
    await eventually(async () => (got.size === MESSAGES ? true : undefined), 30_000).catch(() => {
      throw new Error(`the reader that reads got ${got.size} of ${MESSAGES}`);
    });
    const during = await metrics();
    expect(metricValue(during, 'repx_realtime_broadcasts_dropped_total')).toBeGreaterThan(0);
    expect(metricValue(during, 'repx_realtime_channels_resynced_total')).toBeGreaterThanOrEqual(1);
    // Its queue stopped growing at the bound (and one message past it), not at 16 MB.
    expect(metricValue(during, 'repx_realtime_buffered_bytes_max')).toBeLessThan(SEND_BUFFER + 20_000);

    slow.resume();
    await eventually(async () => (slow.frames.some((f) => f.event === 'phx_error') ? true : undefined), 20_000);
    const error = slow.frames.find((f) => f.event === 'phx_error')!;
    expect(error.topic).toBe('realtime:market');
    expect(error.payload.reason).toMatch(/Too slow/);
    const heardBySlow = slow.frames.filter((f) => f.event === 'broadcast').length;
    expect(heardBySlow).toBeLessThan(MESSAGES);
    // Rejoining, as realtime-js does after phx_error, makes it a member again.
    slow.ws.send(
      JSON.stringify({
        topic: 'realtime:market',
        event: 'phx_join',
        ref: '2',
        join_ref: '2',
        payload: {
          config: { private: true, broadcast: {}, presence: {}, postgres_changes: [] },
          access_token: (await slowUser.client.auth.getSession()).data.session!.access_token,
        },
      }),
    );
    await eventually(async () =>
      slow.frames.some((f) => f.event === 'phx_reply' && (f as { ref?: string }).ref === '2') ? true : undefined,
    );
    await backend.db.query(`select realtime.send('{"token_id": "bulk", "n": 0}', 'token', 'market', true)`);
    await eventually(async () =>
      slow.frames.filter((f) => f.event === 'broadcast').length > heardBySlow ? true : undefined,
    );
    slow.ws.close();
    await fast.client.removeAllChannels();
  });
});
