/**
 * npm run bench: measures, in one run on this machine, and writes bench-results.json:
 *   1. placing orders over HTTP (supabase-js rpc, the server in its own process), on one hot book
 *      and spread over 32 books, with 1, 8 and 32 clients, on PGlite and on PostgreSQL (there also
 *      with 2 server processes), over an exchange with 10,000 past orders, each server warmed up
 *      by 2,000 untimed orders: orders per second, p50, p99 and the CPU each process spent per
 *      order; a trivial rpc and /health; one client again over a history of 100,000 past orders.
 *      The clients' HTTP transport is httpFetch (half the CPU of Node's fetch, which the server
 *      under test gets instead); the spread run at 32 clients is repeated over Node's fetch;
 *   2. references: an in-memory order book library (nodejs-order-book) and pgbench (TPC-B);
 *   3. listing the market with 10,000 tokens (100,000 on PostgreSQL), as the market screen asks,
 *      and the other screens' reads;
 *   4. other requests' latency while 50 users sign in at once (bcrypt in worker threads).
 * Figures are printed, never asserted: the machines are shared and noisy, so compare ratios.
 *
 *   BENCH_ORDERS=800 BENCH_ENGINES=pglite,postgres npm run bench
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { OrderBook, SelfTradePreventionMode, Side } from 'nodejs-order-book';
import { startBackend } from '../supabase/server/index';
import { newUser, signedIn } from '../supabase/harness/clients';
import { freshToken, trader } from '../supabase/harness/market';
import { rng } from '../supabase/harness/load';
import { throwAwayStorage } from '../supabase/harness/backends';
import { spawnServer, stopServer as stop } from '../supabase/harness/process';
import { DEMO_ACCOUNTS, DEMO_ANON_KEY, DEMO_JWT_SECRET } from '../supabase/server/demo';
import { NO_RATE_LIMITS } from '../supabase/server/http/rateLimit';
import { searchPattern } from '../mf-market/src/market/query';
import { freePort } from '../supabase/harness/ports';
import { cpuPerCall, sampleCpu } from './lib/cpu';
import { httpFetch } from './lib/httpFetch';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 800);
const ENGINES = (process.env.BENCH_ENGINES ?? 'pglite,postgres').split(',') as ('pglite' | 'postgres')[];
const CONCURRENCY = [1, 8, 32];
/** Signed-in traders; every concurrency divides it, so a trader never has two orders in flight. */
const TRADERS = 32;

interface Order {
  side: 'buy' | 'sell';
  type: 'market' | 'limit';
  amount: number;
  price?: number;
}

/**
 * Who places order i of a stream, and on which of `books` books: the traders take turns, and with
 * several books each trader moves to the next book at each turn, so every book meets every trader.
 * (Worker w of c sends orders w, w + c, ...: with 32 clients, the orders in flight are on 32
 * different books.) Were order i always trader i % c's on book i % books, each trader would meet
 * only their own orders, which self-trade prevention expires: nothing would ever trade.
 */
const traderOf = (i: number) => i % TRADERS;
const bookOf = (i: number, books: number) => (i + Math.floor(i / TRADERS)) % books;

/** The same stream for every engine: limit orders around $10, three in ten at market. */
function orderStream(n: number, seed: number): Order[] {
  const random = rng(seed);
  return Array.from({ length: n }, () => {
    const type = random() < 0.3 ? 'market' : 'limit';
    return {
      side: random() < 0.5 ? 'buy' : 'sell',
      type,
      amount: 1 + Math.floor(random() * 20),
      ...(type === 'limit' ? { price: Math.round((9.5 + random()) * 100) / 100 } : {}),
    } as Order;
  });
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/** The load generator's HTTP transport for supabase-js: the bench's own, or Node's fetch. */
type Transport = 'http' | 'node-fetch';

interface Run {
  transport: Transport;
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
async function load(
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
const round1 = (n: number) => Math.round(n * 10) / 10;
const round2 = (n: number) => Math.round(n * 100) / 100;
/** The run with the middle rate. */
const median = <R extends { perSecond: number }>(runs: R[]) =>
  [...runs].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(runs.length / 2)];

/**
 * The trivial rpc against /health: alternated rounds of each, each long enough to read a rate and
 * a CPU share from (the CPU clock ticks every 10 ms; 1,600 calls of /health lasted 0.13 s), and
 * the round with the middle rate; the machine drifts between rounds by more than the server moves.
 */
const RATE_ROUNDS = 3;
const RPC_CALLS = 6_000;
const HEALTH_CALLS = 18_000;

/** The backend in its own process over `store`, with the demo secret and no rate limits. */
async function benchServer(store: { env: Record<string, string> }, env: Record<string, string> = {}) {
  const port = await freePort();
  const server = await spawnServer({
    ...store.env,
    SUPABASE_PORT: String(port),
    JWT_SECRET: DEMO_JWT_SECRET,
    RATE_LIMITS: 'off',
    ...env,
  });
  return { server, url: `http://localhost:${port}` };
}

const BOOKS = 32;
/** Requests of each kind sent to a fresh server before its market timings count. */
const WARM_UP = 30;
/** Past orders under the last one-client run. */
const HISTORY = 100_000;
/**
 * Past orders under every other run. A live exchange's orders table is never empty; one analyzed
 * empty makes every connection cache, for its trading statements, generic plans that read orders
 * by sequential scan, kept until the table is next analyzed (the server's vacuum job, or
 * autovacuum, within seconds to a minute): the runs measured that transient, not a running exchange.
 */
const PAST_ORDERS = 10_000;
/** Untimed orders a freshly started server takes before the order runs. */
const WARM_UP_ORDERS = 2_000;

/** Cancelled orders spread over every trader and token, as an exchange's history leaves them. */
const pastOrders = (n: number) => `
  insert into orders (user_id, token_id, side, type, price, amount, status)
  select u.ids[1 + g % array_length(u.ids, 1)], k.ids[1 + g % array_length(k.ids, 1)],
         case when g % 2 = 0 then 'buy' else 'sell' end, 'limit', 10, 1, 'cancelled'
  from generate_series(1, ${n}) g, (select array_agg(id) ids from profiles) u, (select array_agg(id) ids from tokens) k;`;

/**
 * Orders over HTTP on one engine: on one hot book and spread over 32 books, at 1, 8 and 32 clients;
 * a trivial rpc and /health at 32 clients; on PostgreSQL, the 32-client runs again with 2 server processes.
 */
async function benchOrders(engine: 'pglite' | 'postgres') {
  const store = await throwAwayStorage(engine, 'repex_bench');
  const prepared = await startBackend({
    port: 0,
    seed: false,
    jwtSecret: DEMO_JWT_SECRET,
    rateLimits: NO_RATE_LIMITS,
    ...store.options,
  });
  const tokens: string[] = [];
  for (let b = 0; b < BOOKS; b++) tokens.push(await freshToken(prepared, 100_000_000));
  const warmUpBook = await freshToken(prepared, 100_000_000);
  const emails: string[] = [];
  for (let i = 0; i < TRADERS; i++) {
    const t = await trader(prepared, { cash: 10_000_000 });
    for (const token of [...tokens, warmUpBook])
      await prepared.db.query('select private.issue_tokens($1, $2, $3)', [token, t.id, 1_000_000]);
    emails.push((await t.client.auth.getUser()).data.user!.email!);
  }
  await prepared.db.exec(pastOrders(PAST_ORDERS));
  // As after any bulk load (and as autovacuum would soon): statistics for the plans the runs cache.
  await prepared.db.exec('analyze');
  await prepared.close();

  const runs: Run[] = [];
  const rates: {
    processes: number;
    trivialRpcPerSecond: number;
    trivialRpcFetchPerSecond: number;
    healthPerSecond: number;
    trivialRpcCpu?: Run['cpu'];
    healthCpu?: Run['cpu'];
    /** The trivial rpc's rate over /health's, round by round. */
    ratios: number[];
  }[] = [];
  const serve = async (
    processes: number,
    plan: { books: number; clients: number; history?: number; transport?: Transport }[],
    rated = true,
  ) => {
    const { server, url } = await benchServer(store, {
      SEED: 'false',
      LOG_REQUESTS: 'false',
      SERVER_PROCESSES: String(processes),
    });
    const signIn = (transport: Transport) =>
      Promise.all(
        emails.map((email) =>
          signedIn(url, { email, password: 'password-123' }, transport === 'http' ? httpFetch : undefined),
        ),
      );
    const clients = await signIn('http');
    const nodeFetchClients = plan.some((p) => p.transport === 'node-fetch') ? await signIn('node-fetch') : [];
    const place =
      (stream: Order[], book: (i: number) => string, via = clients) =>
      async (_worker: number, i: number) => {
        const o = stream[i]!;
        const { error } = await via[traderOf(i)]!.rpc('place_order', {
          p_token: book(i),
          p_side: o.side,
          p_type: o.type,
          p_amount: o.amount,
          ...(o.price ? { p_price: o.price } : {}),
        });
        return !error;
      };
    // A running exchange's server is warm: untimed orders on a book of their own first, so that V8
    // has compiled the server's code and every pooled connection has planned the trading
    // statements (the market timings leave out a fresh server's first requests likewise).
    const warmUp = orderStream(WARM_UP_ORDERS, 0);
    await load(
      32,
      warmUp.length,
      place(warmUp, () => warmUpBook),
    );
    for (const { books, clients: concurrency, history = PAST_ORDERS, transport = 'http' } of plan) {
      const stream = orderStream(ORDERS, concurrency * books);
      const r = await load(
        concurrency,
        stream.length,
        place(stream, (i) => tokens[bookOf(i, books)]!, transport === 'http' ? clients : nodeFetchClients),
        server.pid,
      );
      runs.push({ transport, books, clients: concurrency, processes, history, orders: stream.length, ...r });
    }
    if (rated) {
      // The same call with the same plain HTTP client as /health: the server's share, without supabase-js's.
      const headers = await Promise.all(
        clients.map(async (c) => ({
          apikey: DEMO_ANON_KEY,
          Authorization: `Bearer ${(await c.auth.getSession()).data.session!.access_token}`,
          'Content-Type': 'application/json',
        })),
      );
      const kinds = {
        trivial: () =>
          load(
            32,
            RPC_CALLS,
            async (w) => !(await clients[w]!.rpc('list_open_orders', { p_limit: 1 })).error,
            server.pid,
          ),
        trivialFetch: () =>
          load(32, RPC_CALLS, async (w) => {
            const res = await httpFetch(`${url}/rest/v1/rpc/list_open_orders`, {
              method: 'POST',
              headers: headers[w]!,
              body: '{"p_limit":1}',
            });
            await res.arrayBuffer();
            return res.ok;
          }),
        health: () =>
          load(
            32,
            HEALTH_CALLS,
            async () => {
              const res = await httpFetch(`${url}/health`);
              await res.arrayBuffer();
              return res.ok;
            },
            server.pid,
          ),
      };
      const rounds: Record<keyof typeof kinds, Awaited<ReturnType<typeof load>>[]> = {
        trivial: [],
        trivialFetch: [],
        health: [],
      };
      for (let round = 0; round < RATE_ROUNDS; round++)
        for (const kind of Object.keys(kinds) as (keyof typeof kinds)[]) rounds[kind].push(await kinds[kind]());
      const [trivial, trivialFetch, health] = [rounds.trivial, rounds.trivialFetch, rounds.health].map(median);
      rates.push({
        processes,
        trivialRpcPerSecond: trivial!.perSecond,
        trivialRpcFetchPerSecond: trivialFetch!.perSecond,
        healthPerSecond: health!.perSecond,
        trivialRpcCpu: trivial!.cpu,
        healthCpu: health!.cpu,
        ratios: rounds.trivial.map((t, i) => round2(t.perSecond / rounds.health[i]!.perSecond)),
      });
    }
    await stop(server);
  };
  await serve(1, [
    ...[1, BOOKS].flatMap((books) => CONCURRENCY.map((clients) => ({ books, clients }))),
    { books: BOOKS, clients: 32, transport: 'node-fetch' as const },
  ]);
  if (engine === 'postgres')
    await serve(2, [
      { books: 1, clients: 32 },
      { books: BOOKS, clients: 32 },
    ]);
  // A live exchange keeps every order it took: the one-client hot-book run again over a history of
  // HISTORY past orders, so that a cost growing with the history shows.
  const again = await startBackend({
    port: 0,
    seed: false,
    jwtSecret: DEMO_JWT_SECRET,
    rateLimits: NO_RATE_LIMITS,
    ...store.options,
  });
  await again.db.exec(`${pastOrders(HISTORY - PAST_ORDERS)} analyze;`);
  await again.close();
  await serve(1, [{ books: 1, clients: 1, history: HISTORY }], false);
  await store.cleanup();
  return { runs, rates };
}

/**
 * The hot-book order streams, through the library, with the same accounts (order i is trader
 * traderOf(i)'s) and the same self-trade policy (expire maker): the upper bound of
 * matching with no persistence, no cash and no network. Repeated for a stable figure.
 */
function benchInMemory() {
  const runs = CONCURRENCY.map((c) => ({ c, stream: orderStream(ORDERS, c) }));
  const orders = runs.reduce((n, r) => n + r.stream.length, 0);
  const repeats = 50;
  const started = performance.now();
  for (let r = 0; r < repeats; r++) {
    const book = new OrderBook(); // one book for the three runs, as one token serves them on the server
    for (const { c, stream } of runs) {
      stream.forEach((o, i) => {
        const base = {
          side: o.side === 'buy' ? Side.BUY : Side.SELL,
          size: o.amount,
          accountId: String(traderOf(i)),
          stpMode: SelfTradePreventionMode.EXPIRE_MAKER,
        };
        if (o.type === 'market') book.market(base);
        else book.limit({ ...base, id: `${c}-${i}`, price: o.price! });
      });
    }
  }
  return { orders_per_s: Math.round((orders * repeats) / ((performance.now() - started) / 1000)) };
}

/** The market screen's first page, a search and a category with another sort, over `count` tokens. */
async function benchMarketListing(engine: 'pglite' | 'postgres', count: number) {
  const store = await throwAwayStorage(engine, 'repex_bench_market');
  const prepared = await startBackend({
    port: 0,
    seed: true,
    jwtSecret: DEMO_JWT_SECRET,
    rateLimits: NO_RATE_LIMITS,
    ...store.options,
  });
  // `count` tokens, each with a trade a day ago and one an hour ago (derived prices, change, volume).
  // Loaded in bulk, as one would: the trades without the market-figures trigger, which would
  // recompute every token (its trades are back-dated) by a plan made from statistics that still
  // describe the seed's few tokens (reading every trade for each: hours at 100,000 tokens), then
  // the figures recomputed once the tables are analyzed.
  await prepared.db.exec(`
    insert into tokens (name, username, category, reputation_score, total_supply, issue_price)
    select 'Bench Person ' || g, 'bench' || g, (array['Tech Influencer','Business Leader','Fitness Coach','Content Creator','Crypto Expert','Designer'])[1 + g % 6],
           40 + (g % 60), 1000000, 5 + (g % 100)
    from generate_series(1, ${count} - (select count(*) from tokens)) g;`);
  // One transaction each: the trades' references to orders are checked at commit, and a table
  // with checks pending cannot be altered.
  await prepared.db.exec('alter table trades disable trigger trades_stats');
  await prepared.db.exec(`
    insert into trades (token_id, buyer_id, seller_id, price, amount, taker_side, buyer_fee, seller_fee, created_at, fee_bps)
    select t.id, (select id from profiles where username = 'sarahchen'), (select id from profiles where username = 'marcusj'),
           t.issue_price + d, 10, 'buy', round(t.issue_price * 0.2, 2), round(t.issue_price * 0.2, 2), now() - make_interval(hours => h), 200
    from tokens t, (values (0, 25), (0.5, 1)) v(d, h) where t.username like 'bench%';`);
  await prepared.db.exec('alter table trades enable trigger trades_stats');
  await prepared.db.exec('analyze');
  await prepared.db.exec(`select private.refresh_token_stats(id) from tokens where username like 'bench%'`);
  await prepared.db.exec('analyze');
  await prepared.close();
  const { server, url } = await benchServer(store);
  const c = await signedIn(url, DEMO_ACCOUNTS.user, httpFetch);
  const time = async (run: () => PromiseLike<{ error: unknown }>) => {
    const samples: number[] = [];
    // The server has just started: its first requests run while V8 still compiles its code and
    // PGlite's WebAssembly (10-40 ms each on PGlite), so the warm-up runs are left out.
    for (let i = 0; i < WARM_UP + 50; i++) {
      const t = performance.now();
      const { error } = await run();
      if (error) throw new Error(JSON.stringify(error));
      if (i >= WARM_UP) samples.push(performance.now() - t);
    }
    samples.sort((a, b) => a - b);
    return { p50: round1(percentile(samples, 50)), p95: round1(percentile(samples, 95)) };
  };
  // As the market screen asks: one page of the view, and the count (per-category counts, or the
  // matches on the tokens table for a search).
  const cols =
    'id, name, username, category, reputation_score, price, change_24h, volume_24h, market_cap, holders, verified';
  const term = searchPattern('Person 12')!;
  const both = async (rows: PromiseLike<{ error: unknown }>, counted: PromiseLike<{ error: unknown }>) => {
    const [a, b] = await Promise.all([rows, counted]);
    return { error: a.error ?? b.error };
  };
  const result = {
    tokens: count,
    first_page: await time(() =>
      both(
        c
          .from('market_tokens')
          .select(cols)
          .order('market_cap', { ascending: false })
          .order('id', { ascending: false })
          .range(0, 24),
        c.from('token_categories').select('tokens'),
      ),
    ),
    search: await time(() =>
      both(
        c
          .from('market_tokens')
          .select(cols)
          .like('search_text', term)
          .order('market_cap', { ascending: false })
          .order('id', { ascending: false })
          .range(0, 24),
        c.from('tokens').select('id', { count: 'exact', head: true }).like('search_text', term),
      ),
    ),
    category: await time(() =>
      both(
        c
          .from('market_tokens')
          .select(cols)
          .eq('category', 'Designer')
          .order('change_24h', { ascending: false })
          .order('id', { ascending: false })
          .range(0, 24),
        c.from('token_categories').select('tokens').eq('category', 'Designer'),
      ),
    ),
  };
  // The other screens' reads over the same exchange, as the demo trader: dashboard, wallet P&L,
  // trading chart and open orders, profile.
  const { data: token } = await c.from('tokens').select('id').eq('username', 'sarahchen').single();
  const p_token = (token as { id: string }).id;
  const reads = {
    my_positions: await time(() => c.rpc('my_positions')),
    my_pnl: await time(() => c.rpc('my_pnl', { p_days: 30 })),
    price_history: await time(() => c.rpc('price_history', { p_token, p_hours: 24 })),
    list_open_orders: await time(() => c.rpc('list_open_orders', { p_token })),
    reputation_components: await time(() => c.rpc('reputation_components', { p_token })),
  };
  await stop(server);
  await store.cleanup();
  return { ...result, reads };
}

/**
 * Other requests while SIGN_INS users sign in at once (each a bcrypt comparison, tens of ms of CPU):
 * one signed-in client reads a market page over and over, alone and then during the sign-ins.
 */
const SIGN_INS = 50;
async function benchSignInStorm(engine: 'pglite' | 'postgres') {
  const store = await throwAwayStorage(engine, 'repex_bench_signin');
  const { server, url } = await benchServer(store);
  const users = await Promise.all(Array.from({ length: SIGN_INS }, () => newUser(url, 'storm')));
  const reader = await signedIn(url, DEMO_ACCOUNTS.user, httpFetch);
  const readUntil = async (done: () => boolean) => {
    const samples: number[] = [];
    while (!done()) {
      const t = performance.now();
      const { error } = await reader.from('market_tokens').select('id, name, price').order('market_cap').limit(25);
      if (error) throw new Error(JSON.stringify(error));
      samples.push(performance.now() - t);
    }
    samples.sort((a, b) => a - b);
    return { p50: round1(percentile(samples, 50)), p99: round1(percentile(samples, 99)), reads: samples.length };
  };
  const quiet = await readUntil(
    (
      (end) => () =>
        performance.now() > end
    )(performance.now() + 2000),
  );
  let signingIn = true;
  const started = performance.now();
  const [during] = await Promise.all([
    readUntil(() => !signingIn),
    Promise.all(users.map((u) => signedIn(url, { email: u.email, password: 'password-123' }))).finally(() => {
      signingIn = false;
    }),
  ]);
  const signInsMs = Math.round(performance.now() - started);
  await stop(server);
  await store.cleanup();
  return {
    sign_ins: SIGN_INS,
    sign_ins_ms: signInsMs,
    other_requests_alone_ms: quiet,
    other_requests_during_ms: during,
  };
}

/** PostgreSQL's own TPC-B-like benchmark on the same server, 32 clients: what the server does without us. */
function benchPgbench(): { tps: number; clients: number; scale: number } | { skipped: string } {
  const which = spawnSync('pgbench', ['--version'], { encoding: 'utf8' });
  if (which.status !== 0) return { skipped: 'pgbench is not installed' };
  const url =
    process.env.BENCH_PGBENCH_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const db = new URL(url);
  db.pathname = `/repex_pgbench_${process.pid}`;
  const admin = (sql: string) => spawnSync('psql', [url, '-qc', sql], { encoding: 'utf8' });
  admin(`create database ${db.pathname.slice(1)}`);
  try {
    spawnSync('pgbench', ['-i', '-q', '-s', '10', db.toString()], { encoding: 'utf8' });
    const run = spawnSync('pgbench', ['-n', '-c', '32', '-j', '2', '-T', '10', db.toString()], { encoding: 'utf8' });
    const tps = /tps = ([\d.]+)/.exec(run.stdout)?.[1];
    return tps
      ? { tps: Math.round(Number(tps)), clients: 32, scale: 10 }
      : { skipped: run.stderr.trim().split('\n').pop() ?? 'no output' };
  } finally {
    admin(`drop database if exists ${db.pathname.slice(1)} with (force)`);
  }
}

/** A run's CPU per call by part, as printed. */
const cpuText = (cpu: Run['cpu']) =>
  cpu ? `${cpu.load_generator_ms}, ${cpu.server_ms}, ${cpu.database_ms}; ${cpu.cpus_busy}` : 'n/a (no /proc)';

async function main() {
  const machine = `${os.cpus().length} CPUs, Node ${process.version}`;
  console.log(`Benchmarks on ${machine}; ${ORDERS} orders per run.\n`);
  const results: Record<string, unknown> = {
    measured_at: new Date().toISOString(),
    machine,
    orders_per_run: ORDERS,
    engines: {},
  };
  const engines = results.engines as Record<string, unknown>;
  console.log(
    "Placing orders over HTTP (supabase-js rpc place_order over the bench's transport, or Node's fetch where marked; server in its own process):",
  );
  console.log(
    'engine     procs  books  clients  orders/s   p50 ms   p99 ms  refused   CPU ms per order: load gen, server, database; CPUs busy',
  );
  for (const engine of ENGINES) {
    const { runs, rates } = await benchOrders(engine);
    for (const r of runs.filter((r) => r.history !== HISTORY)) {
      console.log(
        `${engine.padEnd(10)} ${String(r.processes).padStart(5)} ${String(r.books).padStart(6)} ${String(r.clients).padStart(8)} ${String(r.perSecond).padStart(9)} ${r.p50.toFixed(1).padStart(8)} ${r.p99.toFixed(1).padStart(8)} ${String(r.refused).padStart(8)}   ${cpuText(r.cpu)}${r.transport === 'node-fetch' ? "   (over Node's fetch)" : ''}`,
      );
    }
    const afterHistory = runs.find((r) => r.history === HISTORY)!;
    console.log(
      `${engine.padEnd(10)} ${String(afterHistory.processes).padStart(5)}  one order at 1 client over ${afterHistory.history} past orders: ${afterHistory.perSecond}/s, p50 ${afterHistory.p50} ms, p99 ${afterHistory.p99} ms`,
    );
    for (const r of rates)
      console.log(
        `${engine.padEnd(10)} ${String(r.processes).padStart(5)}  trivial rpc ${r.trivialRpcPerSecond}/s (plain fetch ${r.trivialRpcFetchPerSecond}/s), /health ${r.healthPerSecond}/s (32 clients; medians of ${RATE_ROUNDS} alternated rounds, rpc over /health ${r.ratios.join(', ')}); CPU ms per call, rpc: ${cpuText(r.trivialRpcCpu)}; /health: ${cpuText(r.healthCpu)}`,
      );
    const pick = (processes: number, books: number, transport: Transport = 'http') =>
      Object.fromEntries(
        runs
          .filter(
            (r) => r.processes === processes && r.books === books && r.history !== HISTORY && r.transport === transport,
          )
          .map((r) => [String(r.clients), { orders_per_s: r.perSecond, p99_ms: r.p99, cpu: r.cpu }]),
      );
    const one = runs.find((r) => r.processes === 1 && r.books === 1 && r.clients === 1 && r.history !== HISTORY)!;
    const single = rates.find((r) => r.processes === 1)!;
    const twoProcesses = rates.find((r) => r.processes === 2);
    engines[engine] = {
      order_ms: { p50: one.p50, p99: one.p99 },
      [`order_ms_after_${HISTORY}_orders`]: { p50: afterHistory.p50, p99: afterHistory.p99 },
      hot_book: pick(1, 1),
      spread_32_books: pick(1, BOOKS),
      spread_32_books_over_node_fetch: pick(1, BOOKS, 'node-fetch'),
      trivial_rpc_per_s: single.trivialRpcPerSecond,
      trivial_rpc_fetch_per_s: single.trivialRpcFetchPerSecond,
      health_per_s: single.healthPerSecond,
      trivial_rpc_cpu: single.trivialRpcCpu,
      health_cpu: single.healthCpu,
      trivial_rpc_over_health_by_round: single.ratios,
      ...(twoProcesses
        ? {
            two_processes: {
              hot_book: pick(2, 1),
              spread_32_books: pick(2, BOOKS),
              trivial_rpc_per_s: twoProcesses.trivialRpcPerSecond,
              trivial_rpc_fetch_per_s: twoProcesses.trivialRpcFetchPerSecond,
              health_per_s: twoProcesses.healthPerSecond,
              trivial_rpc_over_health_by_round: twoProcesses.ratios,
            },
          }
        : {}),
    };
  }
  const mem = benchInMemory();
  results.nodejs_order_book = mem;
  console.log(
    `\nIn-memory peer (nodejs-order-book), the hot-book streams: ${mem.orders_per_s} orders/s (no persistence, no cash, no network)`,
  );
  if (ENGINES.includes('postgres')) {
    const pgbench = benchPgbench();
    results.pgbench = pgbench;
    console.log(
      'tps' in pgbench
        ? `pgbench (TPC-B, scale 10, 32 clients, same server): ${pgbench.tps} transactions/s`
        : `pgbench: ${pgbench.skipped}`,
    );
  }
  console.log('\nListing the market (HTTP, one page of 25 with exact count; p50 / p95 of 50, after 30 to warm up):');
  console.log('engine       tokens   by market cap          search   category + sort');
  const screenReads: string[] = [];
  for (const engine of ENGINES) {
    for (const count of engine === 'postgres' ? [10_000, 100_000] : [10_000]) {
      const m = await benchMarketListing(engine, count);
      const key = count === 10_000 ? 'market_page_ms' : `market_page_ms_${count}`;
      (engines[engine] as Record<string, unknown>)[key] = m.first_page;
      (engines[engine] as Record<string, unknown>)[`${key.replace('page', 'search')}`] = m.search;
      (engines[engine] as Record<string, unknown>)[`${key.replace('page', 'category')}`] = m.category;
      const f = (t: { p50: number; p95: number }) => `${t.p50} / ${t.p95} ms`;
      console.log(
        `${engine.padEnd(10)} ${String(count).padStart(8)} ${f(m.first_page).padStart(15)} ${f(m.search).padStart(15)} ${f(m.category).padStart(17)}`,
      );
      if (count === 10_000) {
        (engines[engine] as Record<string, unknown>).screen_reads_ms = m.reads;
        screenReads.push(
          `${engine.padEnd(10)} ${Object.entries(m.reads)
            .map(([name, t]) => `${name} ${f(t)}`)
            .join(', ')}`,
        );
      }
    }
  }
  console.log("\nThe other screens' reads as the demo trader, over the same 10,000 tokens (p50 / p95 of 50):");
  for (const line of screenReads) console.log(line);
  console.log(`\nA market page read over and over, alone and while ${SIGN_INS} users sign in at once (p50 / p99):`);
  for (const engine of ENGINES) {
    const storm = await benchSignInStorm(engine);
    (engines[engine] as Record<string, unknown>).sign_in_storm = storm;
    const f = (t: { p50: number; p99: number; reads: number }) => `${t.p50} / ${t.p99} ms (${t.reads} reads)`;
    console.log(
      `${engine.padEnd(10)} alone ${f(storm.other_requests_alone_ms)}; during the sign-ins ${f(storm.other_requests_during_ms)}; the ${SIGN_INS} sign-ins took ${storm.sign_ins_ms} ms`,
    );
  }
  fs.writeFileSync(path.resolve(__dirname, '../bench-results.json'), `${JSON.stringify(results, null, 2)}\n`);
  console.log('\nWritten: bench-results.json');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
