/**
 * npm run bench: measures, in one run on this machine,
 *   1. placing orders over HTTP (supabase-js rpc, the server in its own process) with 1, 8 and
 *      32 concurrent clients, on PGlite and on PostgreSQL: orders per second, p50 and p99;
 *   2. an in-memory order book library (nodejs-order-book) on the same order stream;
 *   3. listing the market with 10,000 tokens, as the market screen asks for it.
 * Figures are printed, never asserted: the machines are shared and noisy, so compare ratios.
 *
 *   BENCH_ORDERS=800 BENCH_ENGINES=pglite,postgres npm run bench
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { OrderBook, SelfTradePreventionMode, Side } from 'nodejs-order-book';
import { startBackend, type BackendOptions } from '../supabase/server/index';
import { signedIn } from '../supabase/tests/helpers/clients';
import { freshToken, trader } from '../supabase/tests/helpers/market';
import { rng } from '../supabase/tests/helpers/load';
import { createDatabase, dropDatabase } from '../supabase/tests/helpers/backends';
import { spawnServer, stopServer as stop } from '../supabase/tests/helpers/process';
import { DEMO_ACCOUNTS, DEMO_JWT_SECRET } from '../supabase/server/demo';
import { NO_RATE_LIMITS } from '../supabase/server/http/rateLimit';
import { freePort } from './lib/ports';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 800);
const ENGINES = (process.env.BENCH_ENGINES ?? 'pglite,postgres').split(',') as ('pglite' | 'postgres')[];
const CONCURRENCY = [1, 8, 32];

interface Order {
  side: 'buy' | 'sell';
  type: 'market' | 'limit';
  amount: number;
  price?: number;
}

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

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/** Where the backend keeps its data for one engine, and how to clean it up. */
async function storage(
  engine: 'pglite' | 'postgres',
  prefix: string,
): Promise<{ options: BackendOptions; env: Record<string, string>; cleanup: () => Promise<void> }> {
  if (engine === 'postgres') {
    const url = await createDatabase(prefix);
    return { options: { databaseUrl: url }, env: { DATABASE_URL: url }, cleanup: () => dropDatabase(url) };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  const dataDir = path.join(dir, 'db');
  return { options: { dataDir }, env: { DATA_DIR: dataDir }, cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}

async function benchOrders(engine: 'pglite' | 'postgres') {
  const store = await storage(engine, 'repex_bench');
  const prepared = await startBackend({ port: 0, seed: false, jwtSecret: DEMO_JWT_SECRET, rateLimits: NO_RATE_LIMITS, ...store.options });
  const token = await freshToken(prepared, 100_000_000);
  const emails: string[] = [];
  for (let i = 0; i < Math.max(...CONCURRENCY); i++) {
    const t = await trader(prepared, { cash: 10_000_000, token, tokens: 1_000_000 });
    emails.push((await t.client.auth.getUser()).data.user!.email!);
  }
  await prepared.close();

  const port = await freePort();
  const server = await spawnServer({ ...store.env, SUPABASE_PORT: String(port), JWT_SECRET: DEMO_JWT_SECRET, SEED: 'false', LOG_REQUESTS: 'false', RATE_LIMITS: 'off' });
  const url = `http://localhost:${port}`;
  const clients = await Promise.all(emails.map((email) => signedIn(url, { email, password: 'password-123' })));
  const rows = [];
  for (const concurrency of CONCURRENCY) {
    const stream = orderStream(ORDERS, concurrency);
    const latencies: number[] = [];
    let refused = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async (_, c) => {
        for (let i = c; i < stream.length; i += concurrency) {
          const o = stream[i]!;
          const t = performance.now();
          const { error } = await clients[c]!.rpc('place_order', {
            p_token: token, p_side: o.side, p_type: o.type, p_amount: o.amount, ...(o.price ? { p_price: o.price } : {}),
          });
          latencies.push(performance.now() - t);
          if (error) refused++;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    rows.push({
      engine, concurrency, orders: ORDERS, refused,
      perSecond: Math.round(ORDERS / seconds),
      p50: percentile(latencies, 50).toFixed(1),
      p99: percentile(latencies, 99).toFixed(1),
    });
  }
  const tape = await clients[0]!.from('recent_trades').select('amount').eq('token_id', token);
  const volume = ((tape.data ?? []) as { amount: number }[]).reduce((n, t) => n + t.amount, 0);
  await stop(server);
  await store.cleanup();
  return { rows, volume };
}

/**
 * The identical order streams of the HTTP runs, through the library, with the same accounts
 * (order i of a run with c clients is client i % c's) and the same self-trade policy (expire
 * maker). Repeated for a stable figure; the traded volume of one pass is compared with ours.
 */
function benchInMemory() {
  const runs = CONCURRENCY.map((c) => ({ c, stream: orderStream(ORDERS, c) }));
  const orders = runs.reduce((n, r) => n + r.stream.length, 0);
  const repeats = 50;
  let volume = 0;
  const started = performance.now();
  for (let r = 0; r < repeats; r++) {
    const book = new OrderBook(); // one book for the three runs, as one token serves them on the server
    for (const { c, stream } of runs) {
      stream.forEach((o, i) => {
        const base = { side: o.side === 'buy' ? Side.BUY : Side.SELL, size: o.amount, accountId: String(i % c), stpMode: SelfTradePreventionMode.EXPIRE_MAKER };
        const id = `${c}-${i}`;
        const result = o.type === 'market' ? book.market(base) : book.limit({ ...base, id, price: o.price! });
        if (r > 0) return;
        if (o.type === 'market') volume += o.amount - result.quantityLeft;
        else if (result.done.some((d) => d.id === id)) volume += o.amount;
        else if (result.partial?.id === id) volume += result.partialQuantityProcessed;
      });
    }
  }
  const seconds = (performance.now() - started) / 1000;
  return { orders, perSecond: Math.round((orders * repeats) / seconds), volume };
}

async function benchMarketListing(engine: 'pglite' | 'postgres') {
  const store = await storage(engine, 'repex_bench_market');
  const prepared = await startBackend({ port: 0, seed: true, jwtSecret: DEMO_JWT_SECRET, rateLimits: NO_RATE_LIMITS, ...store.options });
  // 10,000 tokens, each with a trade a day ago and one an hour ago (derived prices, change, volume).
  await prepared.db.exec(`
    insert into tokens (name, username, category, reputation_score, total_supply, issue_price)
    select 'Bench Person ' || g, 'bench' || g, (array['Tech Influencer','Business Leader','Fitness Coach','Content Creator','Crypto Expert','Designer'])[1 + g % 6],
           40 + (g % 60), 1000000, 5 + (g % 100)
    from generate_series(1, 10000 - (select count(*) from tokens)) g;
    insert into trades (token_id, buyer_id, seller_id, price, amount, taker_side, buyer_fee, seller_fee, created_at, fee_bps)
    select t.id, (select id from profiles where username = 'sarahchen'), (select id from profiles where username = 'marcusj'),
           t.issue_price + d, 10, 'buy', round(t.issue_price * 0.2, 2), round(t.issue_price * 0.2, 2), now() - make_interval(hours => h), 200
    from tokens t, (values (0, 25), (0.5, 1)) v(d, h) where t.username like 'bench%';
    analyze;`);
  await prepared.close();
  const port = await freePort();
  const server = await spawnServer({ ...store.env, SUPABASE_PORT: String(port), JWT_SECRET: DEMO_JWT_SECRET, RATE_LIMITS: 'off' });
  const c = await signedIn(`http://localhost:${port}`, DEMO_ACCOUNTS.user);
  const time = async (run: () => PromiseLike<{ error: unknown }>) => {
    const samples: number[] = [];
    for (let i = 0; i < 12; i++) {
      const t = performance.now();
      const { error } = await run();
      if (error) throw new Error(JSON.stringify(error));
      if (i >= 2) samples.push(performance.now() - t); // two warm-up runs
    }
    return percentile(samples.sort((a, b) => a - b), 50).toFixed(0);
  };
  // As the market screen asks: one page of the view, and the count from the tokens table.
  const cols = 'id, name, username, category, reputation_score, price, change_24h, volume_24h, market_cap, holders, verified';
  const terms = 'name.ilike."*person 12*",username.ilike."*person 12*",category.ilike."*person 12*"';
  const both = async (rows: PromiseLike<{ error: unknown }>, count: PromiseLike<{ error: unknown }>) => {
    const [a, b] = await Promise.all([rows, count]);
    return { error: a.error ?? b.error };
  };
  const firstPage = await time(() => both(
    c.from('market_tokens').select(cols).order('market_cap', { ascending: false }).range(0, 24),
    c.from('tokens').select('id', { count: 'exact', head: true })));
  const search = await time(() => both(
    c.from('market_tokens').select(cols).or(terms).order('market_cap', { ascending: false }).range(0, 24),
    c.from('tokens').select('id', { count: 'exact', head: true }).or(terms)));
  const category = await time(() => both(
    c.from('market_tokens').select(cols).eq('category', 'Designer').order('change_24h', { ascending: false }).range(0, 24),
    c.from('tokens').select('id', { count: 'exact', head: true }).eq('category', 'Designer')));
  await stop(server);
  await store.cleanup();
  return { engine, tokens: 10_000, firstPage, search, category };
}

async function main() {
  console.log(`Benchmarks on ${os.cpus().length} CPUs, Node ${process.version}; ${ORDERS} orders per run.\n`);
  console.log('Placing orders over HTTP (supabase-js rpc place_order; server in its own process):');
  console.log('engine     clients  orders/s   p50 ms   p99 ms  refused');
  const volumes: string[] = [];
  for (const engine of ENGINES) {
    const { rows, volume } = await benchOrders(engine);
    for (const r of rows) {
      console.log(`${r.engine.padEnd(10)} ${String(r.concurrency).padStart(7)} ${String(r.perSecond).padStart(9)} ${r.p50.padStart(8)} ${r.p99.padStart(8)} ${String(r.refused).padStart(8)}`);
    }
    volumes.push(`${engine} ${volume}`);
  }
  const mem = benchInMemory();
  console.log(`\nIn-memory peer (nodejs-order-book) on the identical ${mem.orders} orders (no persistence, no cash):`);
  console.log(`  ${mem.perSecond} orders/s; tokens traded: library ${mem.volume}, ${volumes.join(', ')}`);
  console.log('  (same accounts and self-trade policy; concurrent clients interleave differently on the server,');
  console.log('   and our engine also refuses what an account cannot pay for)');
  console.log('\nListing the market with 10,000 tokens (HTTP, one page of 25 with exact count; p50 of 10):');
  console.log('engine      by market cap   search   category + sort');
  for (const engine of ENGINES) {
    const m = await benchMarketListing(engine);
    console.log(`${m.engine.padEnd(10)} ${`${m.firstPage} ms`.padStart(14)} ${`${m.search} ms`.padStart(8)} ${`${m.category} ms`.padStart(17)}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
