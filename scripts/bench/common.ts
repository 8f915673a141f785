import { performance } from 'node:perf_hooks';
import { rng } from '../../integration/harness/load';
import { spawnServer, stopServer } from '../../integration/harness/process';
import { freePort } from '../../integration/harness/ports';
import { throwAwayStorage } from '../../integration/harness/backends';
import { DEMO_JWT_SECRET } from '../../server/demo';
import { startBackend } from '../../server/index';
import { NO_RATE_LIMITS } from '../../server/http/rateLimit';
import { cpuPerCall, sampleCpu } from '../lib/cpu';

export type Engine = 'pglite' | 'postgres';
export const ORDERS = Number(process.env.BENCH_ORDERS ?? 800);
export const ENGINES = (process.env.BENCH_ENGINES ?? 'pglite,postgres').split(',') as Engine[];
export const CONCURRENCY = [1, 8, 32];
/** Signed-in traders; every concurrency divides it, so a trader never has two orders in flight. */
export const TRADERS = 32;

export interface Order {
  side: 'buy' | 'sell';
  type: 'market' | 'limit';
  amount: number;
  price?: number;
  /** A stop's trigger. */
  stop?: number;
}

/**
 * Who places order i of a stream, and on which of `books` books: the traders take turns, and with
 * several books each trader moves to the next book at each turn, so every book meets every trader.
 * (Worker w of c sends orders w, w + c, ...: with 32 clients, the orders in flight are on 32
 * different books.) Were order i always trader i % c's on book i % books, each trader would meet
 * only their own orders, which self-trade prevention expires: nothing would ever trade.
 */
export const traderOf = (i: number) => i % TRADERS;
export const bookOf = (i: number, books: number) => (i + Math.floor(i / TRADERS)) % books;

/**
 * The same stream for every engine: limit orders around $10, three in ten at market. With
 * `stopShare`, that share of the orders are stops (half stop-market, half stop-limit) with triggers
 * within the stream's prices: the engine refuses one whose trigger the price has reached already,
 * holds the others, and runs them when the trades reach them.
 */
export function orderStream(n: number, seed: number, stopShare = 0): Order[] {
  const random = rng(seed);
  return Array.from({ length: n }, () => {
    const type = random() < 0.3 ? 'market' : 'limit';
    const order = {
      side: random() < 0.5 ? 'buy' : 'sell',
      type,
      amount: 1 + Math.floor(random() * 20),
      ...(type === 'limit' ? { price: Math.round((9.5 + random()) * 100) / 100 } : {}),
    } as Order;
    if (stopShare === 0 || random() >= stopShare) return order;
    const stop = Math.round((order.side === 'buy' ? 10 + random() * 0.5 : 9.5 + random() * 0.5) * 100) / 100;
    const limit = Math.round((order.side === 'buy' ? stop + 0.1 : stop - 0.1) * 100) / 100;
    return {
      ...order,
      stop,
      ...(random() < 0.5 ? { type: 'market', price: undefined } : { type: 'limit', price: limit }),
    };
  });
}

export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
export const round1 = (n: number) => Math.round(n * 10) / 10;
export const round2 = (n: number) => Math.round(n * 100) / 100;

export type Timing = { p50: number; p95: number };

/**
 * p50 and p95 in ms of `calls` sequential reads, after `warmUp` left out (V8 and PGlite's
 * WebAssembly still compiling); a read that answers an error stops the run.
 */
export async function timeReads(
  run: () => PromiseLike<{ error: unknown }>,
  { calls = 50, warmUp = 20 }: { calls?: number; warmUp?: number } = {},
): Promise<Timing> {
  const samples: number[] = [];
  for (let i = 0; i < warmUp + calls; i++) {
    const t = performance.now();
    const { error } = await run();
    if (error) throw new Error(JSON.stringify(error));
    if (i >= warmUp) samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  return { p50: round1(percentile(samples, 50)), p95: round1(percentile(samples, 95)) };
}
/** The run with the middle rate. */
export const median = <R extends { perSecond: number }>(runs: R[]) =>
  [...runs].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(runs.length / 2)];

/** p50 and p99 of latencies in ms, and how many. */
export function latencySummary(samples: number[]): { p50: number; p99: number; reads: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: round1(percentile(sorted, 50)), p99: round1(percentile(sorted, 99)), reads: sorted.length };
}

/** The load generator's HTTP transport for supabase-js: the bench's own, or Node's fetch. */
/** How the bench's clients reach the server: supabase-js over its HTTP client, over Node's fetch, or signed with an API key. */
export type Transport = 'http' | 'node-fetch' | 'api-key';

export interface Run {
  transport: Transport;
  /** The share of the stream's orders that are stops. */
  stopShare: number;
  books: number;
  clients: number;
  processes: number;
  /** Past orders in the database before the run. */
  history: number;
  orders: number;
  refused: number;
  perSecond: number;
  p50: number;
  p99: number;
  cpu?: ReturnType<typeof cpuPerCall>;
}

/**
 * Runs `calls` calls spread over `concurrency` workers; calls per second, latency percentiles and
 * (on Linux) the CPU each part spent per call: what bounds a run is on the table with its figures.
 */
export async function load(
  concurrency: number,
  calls: number,
  call: (worker: number, i: number) => Promise<boolean>,
  serverPid?: number,
) {
  const latencies: number[] = [];
  let refused = 0;
  const cpuBefore = sampleCpu(serverPid);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      for (let i = w; i < calls; i += concurrency) {
        const t = performance.now();
        if (!(await call(w, i))) refused++;
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = sampleCpu(serverPid);
  latencies.sort((x, y) => x - y);
  return {
    perSecond: Math.round(calls / seconds),
    p50: round1(percentile(latencies, 50)),
    p99: round1(percentile(latencies, 99)),
    refused,
    ...(cpuBefore && cpuAfter ? { cpu: cpuPerCall(cpuBefore, cpuAfter, calls, seconds) } : {}),
  };
}

/** The backend in its own process over `store`, with the demo secret and no rate limits. */
export async function benchServer(
  store: { env: Record<string, string> },
  env: Record<string, string> = {},
  node?: string,
) {
  const port = await freePort();
  const server = await spawnServer(
    {
      ...store.env,
      SUPABASE_PORT: String(port),
      JWT_SECRET: DEMO_JWT_SECRET,
      RATE_LIMITS: 'off',
      ...env,
    },
    node,
  );
  return { server, url: `http://localhost:${port}` };
}

/**
 * A backend in this process over throw-away storage named `name`, to load a bench's data into or
 * to time in-process: the demo secret, no rate limits, the seed when asked.
 */
export async function benchBackend(engine: Engine, name: string, { seed }: { seed: boolean }) {
  const store = await throwAwayStorage(engine, name);
  const backend = await startBackend({
    port: 0,
    seed,
    jwtSecret: DEMO_JWT_SECRET,
    rateLimits: NO_RATE_LIMITS,
    ...store.options,
  });
  return { store, backend };
}

/**
 * `reads` against the backend in its own process over what a bench loaded into `store` (as the
 * browser meets it, over HTTP), then the server stopped and the storage thrown away.
 */
export async function overHttp<T>(
  store: Awaited<ReturnType<typeof throwAwayStorage>>,
  reads: (url: string) => Promise<T>,
  env: Record<string, string> = {},
): Promise<T> {
  const { server, url } = await benchServer(store, env);
  try {
    return await reads(url);
  } finally {
    await stopServer(server);
    await store.cleanup();
  }
}

/** A run's CPU per call by part, as printed. */
export const cpuText = (cpu: Run['cpu']) =>
  cpu ? `${cpu.load_generator_ms}, ${cpu.server_ms}, ${cpu.database_ms}; ${cpu.cpus_busy}` : 'n/a (no /proc)';
