/**
 * npm run bench: measures, in one run on this machine, and writes bench-results.json
 * (docs/benchmarks.md says what each figure is and what bounds it):
 *   1. placing orders over HTTP, on one hot book and spread over 32 books, at 1, 8 and 32 clients,
 *      on PGlite and on PostgreSQL, and with 20% stops; a trivial rpc against /health (bench/orders.ts);
 *      one trade triggering a cascade of 100 stops (bench/stops.ts);
 *   2. references: an in-memory order book library and pgbench (bench/references.ts);
 *   3. the chart's candles over a token of 1,000,000 trades (bench/candles.ts); listing the market
 *      with 10,000 tokens (100,000 on PostgreSQL) and the other screens' reads (bench/market.ts);
 *      Portfolio Analysis's reads, the wallet's history and a month's statement for a user of
 *      10,000 trades (bench/analysis.ts);
 *      the hourly trust-weighted rescoring at 10,000 accounts and 1,000,000 trades (bench/trust.ts);
 *   4. other requests while 50 users sign in at once (bench/signIns.ts), and while someone floods
 *      Realtime or uploads large images (bench/abuse.ts);
 *   5. live updates for 100 to 5,000 watchers at 2, 12 and 50 events a second (bench/fanout.ts);
 *   6. the cluster's shape, one host and two, the replica on and off (bench/cluster.ts).
 * Figures are printed, never asserted: the machines are shared and noisy, so compare ratios.
 *
 *   BENCH_ORDERS=800 BENCH_ENGINES=pglite,postgres npm run bench
 */
import { benchFeed } from './bench/feed';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchAbuse } from './bench/abuse';
import { RATES as FANOUT_RATES, benchFanOut } from './bench/fanout';
import { benchCluster } from './bench/cluster';
import { ENGINES, ORDERS } from './bench/common';
import { benchMarketListing } from './bench/market';
import { benchOrders } from './bench/orders';
import { ORDERS_HEADER, reportOrders } from './bench/ordersReport';
import { benchInMemory, benchPgbench } from './bench/references';
import { SIGN_INS, benchSignInStorm } from './bench/signIns';
import { CASCADE, benchCascade } from './bench/stops';
import { CANDLE_TRADES, benchCandles } from './bench/candles';
import { ANALYSIS_TRADES, benchAnalysis } from './bench/analysis';
import { TRUST_ACCOUNTS, TRUST_TRADES, benchTrust } from './bench/trust';
import { DISCUSSION_POSTS, DISCUSSION_WATCHERS, benchDiscussion } from './bench/discussion';
import { SURVEILLANCE, benchSurveillance } from './bench/surveillance';

type Latency = { p50: number; p99: number; reads: number };
const latency = (t: Latency) => `${t.p50} / ${t.p99} ms (${t.reads} reads)`;
const timing = (t: { p50: number; p95: number }) => `${t.p50} / ${t.p95} ms`;

async function marketSection(engines: Record<string, Record<string, unknown>>) {
  console.log('\nListing the market (HTTP, one page of 25 with exact count; p50 / p95 of 50, after 30 to warm up):');
  console.log('engine       tokens   by market cap          search   category + sort  advanced filters');
  const screenReads: string[] = [];
  for (const engine of ENGINES) {
    for (const count of engine === 'postgres' ? [10_000, 100_000] : [10_000]) {
      const m = await benchMarketListing(engine, count);
      const key = count === 10_000 ? 'market_page_ms' : `market_page_ms_${count}`;
      engines[engine]![key] = m.first_page;
      engines[engine]![key.replace('page', 'search')] = m.search;
      engines[engine]![key.replace('page', 'category')] = m.category;
      engines[engine]![key.replace('page', 'advanced')] = m.advanced_filters;
      console.log(
        `${engine.padEnd(10)} ${String(count).padStart(8)} ${timing(m.first_page).padStart(15)} ${timing(m.search).padStart(15)} ${timing(m.category).padStart(17)} ${timing(m.advanced_filters).padStart(17)}`,
      );
      if (count !== 10_000) continue;
      engines[engine]!.screen_reads_ms = m.reads;
      const reads = Object.entries(m.reads).map(([name, t]) => `${name} ${timing(t)}`);
      screenReads.push(`${engine.padEnd(10)} ${reads.join(', ')}`);
    }
  }
  console.log("\nThe other screens' reads as the demo trader, over the same 10,000 tokens (p50 / p95 of 50):");
  for (const line of screenReads) console.log(line);
}

async function fanOutSection(engines: Record<string, Record<string, unknown>>) {
  console.log(
    `\nLive updates: N sockets watch the market while one user places and cancels orders (${FANOUT_RATES.join(', ')} events/s; latency from the request):`,
  );
  console.log('engine     watchers  ev/s  delivered   p50 / p95 ms   db/event  CPU us/msg  other REST p99');
  for (const engine of ENGINES) {
    const f = await benchFanOut(engine);
    engines[engine]!.fan_out = f;
    for (const p of f.points)
      console.log(
        `${engine.padEnd(10)} ${String(p.watchers).padStart(8)} ${String(p.events_per_s).padStart(5)} ${`${p.delivered_pct}%`.padStart(10)} ${`${p.p50_ms} / ${p.p95_ms}`.padStart(14)} ${String(p.db_per_event).padStart(10)} ${String(p.cpu_us_per_message ?? '-').padStart(11)} ${`${p.other_rest_p99_ms} ms`.padStart(15)}`,
      );
    console.log(
      `${engine.padEnd(10)} idle REST p99 ${f.idle_rest_p99_ms} ms; the server's memory per socket ${Math.round(f.bytes_per_socket / 1024)} KB`,
    );
  }
}

async function clusterSection(results: Record<string, unknown>) {
  console.log(
    '\nThe cluster (npm run cluster): 16 clients through HAProxy, orders then market reads, 10 s each; CPU ms per request by part:',
  );
  const c = await benchCluster();
  results.cluster = c;
  if ('skipped' in c) return console.log(`skipped: ${c.skipped}`);
  console.log('hosts  replica  orders/s  p99 ms  reads/s  p99 ms  replica lag max  CPU ms per request');
  for (const p of c)
    console.log(
      `${String(p.hosts).padStart(5)}  ${(p.replica ? 'on' : 'off').padStart(7)}  ${String(p.orders_per_s).padStart(8)}  ${String(p.order_p99_ms).padStart(6)}  ${String(p.reads_per_s).padStart(7)}  ${String(p.read_p99_ms).padStart(6)}  ${(p.replica_lag_max_ms === null ? '-' : `${p.replica_lag_max_ms} ms`).padStart(15)}  ${Object.entries(
        p.cpu_ms_per_request,
      )
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
}

async function pressureSection(engines: Record<string, Record<string, unknown>>) {
  console.log(`\nA market page read over and over, alone and while ${SIGN_INS} users sign in at once (p50 / p99):`);
  for (const engine of ENGINES) {
    const storm = await benchSignInStorm(engine);
    engines[engine]!.sign_in_storm = storm;
    console.log(
      `${engine.padEnd(10)} alone ${latency(storm.other_requests_alone_ms)}; during the sign-ins ${latency(storm.other_requests_during_ms)}; the ${SIGN_INS} sign-ins took ${storm.sign_ins_ms} ms`,
    );
  }
  console.log('\nThe same read alone, during a Realtime flood from one address, and during 5 MB uploads (p50 / p99):');
  for (const engine of ENGINES) {
    const abuse = await benchAbuse(engine);
    engines[engine]!.abuse = abuse;
    console.log(
      `${engine.padEnd(10)} alone ${latency(abuse.other_requests_alone_ms)}; flood ${latency(abuse.during_realtime_flood_ms)}; uploads ${latency(abuse.during_uploads_ms)} (${abuse.uploads} uploads)`,
    );
  }
}

async function main() {
  const machine = `${os.cpus().length} CPUs, Node ${process.version}`;
  console.log(`Benchmarks on ${machine}; ${ORDERS} orders per run.\n`);
  const engines: Record<string, Record<string, unknown>> = {};
  const results: Record<string, unknown> = {
    measured_at: new Date().toISOString(),
    machine,
    orders_per_run: ORDERS,
    engines,
  };
  console.log(ORDERS_HEADER);
  for (const engine of ENGINES) engines[engine] = reportOrders(engine, await benchOrders(engine));
  console.log(
    `\nOne trade that triggers a cascade of ${CASCADE} stops, over HTTP (its one transaction runs them all; median of 5):`,
  );
  for (const engine of ENGINES) {
    const c = await benchCascade(engine);
    engines[engine]!.stop_cascade = c;
    console.log(
      `${engine.padEnd(10)} ${c.cascade_ms} ms with ${c.stops_run} stops run; the same order on a book without stops ${c.plain_ms} ms`,
    );
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
  console.log(
    `\nThe chart's candles: 1,000 of an interval over a token of ${CANDLE_TRADES.toLocaleString('en-US')} trades (HTTP, p50 / p95 of 50):`,
  );
  for (const engine of ENGINES) {
    const c = await benchCandles(engine);
    engines[engine]!.candles_ms = c;
    console.log(
      `${engine.padEnd(10)} ${Object.entries(c)
        .map(([i, t]) => `${i} ${timing(t)}`)
        .join(', ')}`,
    );
  }
  await marketSection(engines);
  console.log(
    `\nPortfolio Analysis, the wallet and statements for one user of ${ANALYSIS_TRADES.toLocaleString('en-US')} trades over a year (HTTP, p50 / p95 of 50; target: each analysis read 50 ms or less at p95):`,
  );
  for (const engine of ENGINES) {
    const a = await benchAnalysis(engine);
    engines[engine]!.analysis_ms = a;
    console.log(
      `${engine.padEnd(10)} ${Object.entries(a)
        .map(([name, t]) => `${name} ${timing(t)}`)
        .join(', ')}`,
    );
  }
  if (ENGINES.includes('postgres')) {
    const trust = await benchTrust('postgres');
    engines.postgres!.rescoring = trust;
    console.log(
      `\nThe hourly rescoring with trust over ${TRUST_ACCOUNTS.toLocaleString('en-US')} accounts and ${TRUST_TRADES.toLocaleString('en-US')} trades (PostgreSQL; target 60 s): ${trust.rescoring_s} s, of which the trust step ${trust.trust_s} s (${trust.accounts_with_trust} accounts with trust)`,
    );
  }
  if (ENGINES.includes('postgres')) {
    const s = await benchSurveillance('postgres');
    results.surveillance = s;
    console.log(
      `\nSurveillance on the labelled suite (${SURVEILLANCE.honest} honest traders, ${SURVEILLANCE.instances} of each pattern; PostgreSQL): recall ${s.recall.toFixed(2)}, false positives ${s.false_positive_rate.toFixed(3)} of honest accounts (${s.honest_flagged} of ${s.honest_accounts}); ${Object.entries(
        s.patterns,
      )
        .map(([p, r]) => `${p} ${r.caught}/${r.instances}`)
        .join(', ')}`,
    );
  }
  console.log(
    `\nThe book feed: a trade's message on trades:<token> to a bot signed with an API key (p50 / p99 of 200):`,
  );
  for (const engine of ENGINES) {
    const f = await benchFeed(engine);
    engines[engine]!.feed_latency = f;
    console.log(
      `${engine.padEnd(10)} from the order's request ${f.from_request_ms.p50} / ${f.from_request_ms.p99} ms; after its answer ${f.after_answer_ms.p50} / ${f.after_answer_ms.p99} ms`,
    );
  }
  console.log(
    `\nA token's discussion of ${DISCUSSION_POSTS.toLocaleString('en-US')} posts (HTTP, p50 / p95 of 50; target 20 ms at p95), and posts arriving with ${DISCUSSION_WATCHERS.toLocaleString('en-US')} sockets watching it:`,
  );
  for (const engine of ENGINES) {
    const d = await benchDiscussion(engine);
    engines[engine]!.discussion = d;
    console.log(
      `${engine.padEnd(10)} top ${timing(d.top_ms)}, new ${timing(d.new_ms)}, fifth page ${timing(d.page_5_ms)}; a post reached ${d.delivered_pct}% of ${d.watchers} in ${d.p50_ms} / ${d.p95_ms} ms, database round trips per post ${d.db_per_post_alone} with one watcher and ${d.db_per_post_watched} with all, ${d.cpu_us_per_message ?? '-'} us CPU per message`,
    );
  }
  await pressureSection(engines);
  await fanOutSection(engines);
  await clusterSection(results);
  fs.writeFileSync(path.resolve(__dirname, '../bench-results.json'), `${JSON.stringify(results, null, 2)}\n`);
  console.log('\nWritten: bench-results.json');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
