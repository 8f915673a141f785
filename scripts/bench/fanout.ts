import crypto from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { fork } from 'node:child_process';
import path from 'node:path';
import { newUser, SERVICE_ROLE_KEY, signedIn } from '../../integration/harness/clients';
import { throwAwayStorage } from '../../integration/harness/backends';
import { stopServer } from '../../integration/harness/process';
import { DEMO_ACCOUNTS, DEMO_ANON_KEY } from '../../server/demo';
import { metricValue } from '../../server/metrics';
import type { SupabaseClient } from '@supabase/supabase-js';
import { httpFetch } from '../lib/httpFetch';
import { benchServer, latencySummary, round1, round2, type Engine } from './common';

/** Watchers and events per second, from BENCH_FANOUT="100,1000,2500,5000" and BENCH_FANOUT_RATES="2,12,50". */
export const WATCHERS = (process.env.BENCH_FANOUT ?? '100,1000,2500,5000').split(',').map(Number);
export const RATES = (process.env.BENCH_FANOUT_RATES ?? '2,12,50').split(',').map(Number);
/** How long each rate runs. */
const RUN_MS = 8_000;
/** Accounts the watchers are signed in as (each socket joins the market and its account's topic). */
const ACCOUNTS = 20;
/** Tokens the producer's events take turns on: each token's events and messages stay in order. */
const LANES = 4;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A moment both processes read alike. */
const now = () => performance.timeOrigin + performance.now();

/** The watchers' process (watchers.mjs): asks it something and waits for its answer. */
export function fleet() {
  const child = fork(path.join(__dirname, 'watchers.mjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ask = <T>(message: Record<string, unknown>) =>
    new Promise<T>((resolve) => {
      child.once('message', (answer) => resolve(answer as T));
      child.send(message);
    });
  return { ask, stop: () => child.send({ cmd: 'stop' }) };
}

export async function scrape(url: string, key: string) {
  const text = await (await fetch(`${url}/metrics`, { headers: { Authorization: `Bearer ${key}` } })).text();
  return {
    roundTrips: metricValue(text, 'repx_db_round_trips_total'),
    cpu: metricValue(text, 'process_cpu_user_seconds_total') + metricValue(text, 'process_cpu_system_seconds_total'),
    rss: metricValue(text, 'process_resident_memory_bytes'),
    dropped: metricValue(text, 'repx_realtime_broadcasts_dropped_total'),
  };
}

export interface FanOutPoint {
  watchers: number;
  events_per_s: number;
  events: number;
  delivered_pct: number;
  p50_ms: number;
  p95_ms: number;
  /** Database round trips per event beyond the producer's own request and the other user's reads. */
  db_per_event: number;
  /** Server CPU per delivered message (none delivered: none). */
  cpu_us_per_message: number | null;
  dropped: number;
  other_rest_p99_ms: number;
}

/** Another user reading a market page twenty times a second until `end`: their latencies. */
async function otherUser(reader: SupabaseClient, end: number) {
  const samples: number[] = [];
  while (performance.now() < end) {
    const t = performance.now();
    await reader.from('market_tokens').select('id, name, price').order('market_cap').limit(25);
    samples.push(performance.now() - t);
    await sleep(Math.max(0, 50 - (performance.now() - t)));
  }
  return latencySummary(samples);
}

/**
 * The producer's events at `rate` a second until `end`: on each lane (a token), one request at a
 * time, resting a bid at $1 and cancelling it (its messages then come in the order of its
 * requests); the lanes together keep the rate. Returns when each lane's requests were sent.
 */
async function produce(producer: SupabaseClient, lanes: string[], rate: number, end: number) {
  const sent: number[][] = lanes.map(() => []);
  await Promise.all(
    lanes.map(async (token, lane) => {
      let resting: number | null = null;
      let next = performance.now() + (lane * 1000) / rate / LANES;
      while (next < end) {
        await sleep(Math.max(0, next - performance.now()));
        next += (1000 * LANES) / rate;
        const t = now();
        const answer: { error: { message: string } | null; data: unknown } = resting
          ? await producer.rpc('cancel_order', { p_order: resting })
          : await producer.rpc('place_order', {
              p_token: token,
              p_side: 'buy',
              p_type: 'limit',
              p_amount: 1,
              p_price: 1,
            });
        if (answer.error) throw new Error(answer.error.message);
        resting = resting ? null : (answer.data as { order_id: number }).order_id;
        sent[lane]!.push(t);
      }
    }),
  );
  return sent;
}

/** The producer, its four books (the seed's tokens), funded by a deposit, and the watchers' accounts. */
async function cast(url: string) {
  const reader = await signedIn(url, DEMO_ACCOUNTS.user, httpFetch);
  const producer = await newUser(url, 'producer');
  const { data: tokens } = await reader.from('tokens').select('id').order('username').limit(LANES);
  const deposit = await producer.client.rpc('create_deposit', {
    p_amount: 5000,
    p_card: '4242 4242 4242 4242',
    p_idempotency_key: crypto.randomUUID(),
  });
  if (deposit.error) throw new Error(deposit.error.message);
  for (let i = 0; i < 50; i++) {
    const { data } = await producer.client.from('cash_accounts').select('available').single();
    if ((data as { available: number } | null)?.available) break;
    await sleep(200);
  }
  const accounts = await Promise.all(
    Array.from({ length: ACCOUNTS }, async () => {
      const u = await newUser(url, 'watcher');
      return { id: u.id, token: (await u.client.auth.getSession()).data.session!.access_token };
    }),
  );
  return { reader, producer: producer.client, lanes: (tokens as { id: string }[]).map((t) => t.id), accounts };
}

/** One rate's run over the watchers connected: what each event cost and how fast it arrived. */
async function runRate(url: string, key: string, c: Cast, watchers: ReturnType<typeof fleet>, n: number, rate: number) {
  await watchers.ask({ cmd: 'reset' });
  const start = await scrape(url, key);
  const end = performance.now() + RUN_MS;
  const other = otherUser(c.reader, end);
  const sent = await produce(c.producer, c.lanes, rate, end);
  await sleep(3000); // the last messages' time to arrive
  const stop = await scrape(url, key);
  const rest = await other;
  const events = sent.reduce((sum, lane) => sum + lane.length, 0);
  const heard = await watchers.ask<{ delivered: number; p50: number; p95: number }>({ cmd: 'report', sent });
  return {
    watchers: n,
    events_per_s: rate,
    events,
    delivered_pct: n ? round1((100 * heard.delivered) / (events * n)) : 100,
    p50_ms: round1(heard.p50),
    p95_ms: round1(heard.p95),
    db_per_event: round2((stop.roundTrips - start.roundTrips - events - rest.reads) / events),
    cpu_us_per_message: heard.delivered ? round1(((stop.cpu - start.cpu) * 1e6) / heard.delivered) : null,
    dropped: stop.dropped - start.dropped,
    other_rest_p99_ms: rest.p99,
  };
}
type Cast = Awaited<ReturnType<typeof cast>>;

/**
 * Live updates for many watchers: on `engine`, N sockets watch the market while one user places
 * and cancels limit orders at a steady rate, each one market message. Measures, from the request
 * that caused each event: delivery latency, the share delivered, the database round trips and the
 * server's CPU per delivered message, its memory per socket, and another user's REST latency.
 */
export async function benchFanOut(engine: Engine) {
  const store = await throwAwayStorage(engine, 'repex_bench_fanout');
  const { server, url } = await benchServer(store, { REALTIME_LIMITS: 'off', SERVER_PROCESSES: '1' });
  const key = await SERVICE_ROLE_KEY();
  const points: FanOutPoint[] = [];
  const memory: { watchers: number; rss: number }[] = [];
  const watchers = fleet();
  try {
    const c = await cast(url);
    await otherUser(c.reader, performance.now() + 3000); // warming up, not counted
    const idle = await otherUser(c.reader, performance.now() + RUN_MS);
    let connected = 0;
    // No watcher first: what the events alone cost, the baseline each run is read beside.
    for (const n of [0, ...WATCHERS]) {
      const added = n - connected;
      const joined = await watchers.ask<{ connected: number; joined: number }>({
        cmd: 'connect',
        n: added,
        url,
        apikey: DEMO_ANON_KEY,
        accounts: c.accounts,
        lanes: c.lanes,
      });
      connected = joined.connected;
      if (joined.joined < n) throw new Error(`only ${joined.joined} of ${n} watchers joined`);
      await sleep(500);
      memory.push({ watchers: n, rss: (await scrape(url, key)).rss });
      for (const rate of RATES) points.push(await runRate(url, key, c, watchers, n, rate));
    }
    // The resident memory the sockets added, per socket: from none to the most (the garbage
    // collector moves any one reading; the slope over the whole range holds).
    const [first, last] = [memory[0]!, memory.at(-1)!];
    const perSocket = Math.round((last.rss - first.rss) / Math.max(1, last.watchers - first.watchers));
    return { idle_rest_p99_ms: idle.p99, points, memory, bytes_per_socket: perSocket };
  } finally {
    watchers.stop();
    await stopServer(server);
    await store.cleanup();
  }
}
