import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { OrderBook, SelfTradePreventionMode, Side } from 'nodejs-order-book';
import { CONCURRENCY, ORDERS, orderStream, traderOf } from './common';

/**
 * The hot-book order streams, through the library, with the same accounts (order i is trader
 * traderOf(i)'s) and the same self-trade policy (expire maker): the upper bound of matching with
 * no persistence, no cash and no network. Repeated for a stable figure.
 */
export function benchInMemory(): { orders_per_s: number } {
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

/** PostgreSQL's own TPC-B-like benchmark on the same server, 32 clients: what the server does without us. */
export function benchPgbench(): { tps: number; clients: number; scale: number } | { skipped: string } {
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
