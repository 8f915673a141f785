/**
 * npm run bench:profile: where one order's database time goes, on PostgreSQL. 32 clients place
 * (PROFILE_CLIENTS) orders over 32 books through the server, as the order runs of npm run bench do; PostgreSQL
 * counts meanwhile, by its own instruments:
 * - pg_stat_user_functions (track_functions = 'pl'): each function's calls and own time;
 * - pg_stat_statements (track = 'all', nested statements included), when the server preloads it
 *   (shared_preload_libraries = 'pg_stat_statements'; otherwise this says so and skips it);
 * - the CPU of the PostgreSQL server's processes (/proc), beside the RepX server's.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { SupabaseClient } from '@supabase/supabase-js';
import { signedIn } from '../../integration/harness/clients';
import { stopServer } from '../../integration/harness/process';
import { httpFetch } from '../lib/httpFetch';
import { partsSpent, sampleParts } from '../lib/cpu';
import { benchServer, bookOf, load, orderStream, round2 } from './common';
import { BOOKS, placeWith, prepareExchange } from './orders';

const ORDERS = Number(process.env.PROFILE_ORDERS ?? 4000);
const WARM_UP = 2000;
/** 32 as the order runs; 1 shows the work alone, without waits for locks. */
const CLIENTS = Number(process.env.PROFILE_CLIENTS ?? 32);

export interface OrderProfile {
  orders: number;
  per_second: number;
  /** ms of CPU per order: the PostgreSQL server's processes, and the RepX server's. */
  cpu_ms_per_order: { database: number; server: number } | null;
  /** ms per order of each function's own time, the largest first. */
  functions: { name: string; calls_per_order: number; self_ms: number; total_ms: number }[];
  /** ms per order of each statement's execution, nested ones included, the largest first. */
  statements: { query: string; calls_per_order: number; ms: number; top_level: boolean }[] | { skipped: string };
}

/** The PostgreSQL server's main process, from its data directory's postmaster.pid (Linux, superuser). */
async function postmasterPid(db: pg.Client): Promise<number | undefined> {
  try {
    const { rows } = await db.query<{ d: string }>('select current_setting($1) as d', ['data_directory']);
    return Number(fs.readFileSync(path.join(rows[0]!.d, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
}

export async function profileOrders(): Promise<OrderProfile> {
  const ex = await prepareExchange('postgres');
  const url = ex.store.env.DATABASE_URL!;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const name = (await admin.query<{ d: string }>('select current_database() as d')).rows[0]!.d;
    const preloaded = (await admin.query<{ s: string }>(`select current_setting('shared_preload_libraries') as s`))
      .rows[0]!.s;
    const statements = /pg_stat_statements/.test(preloaded);
    await admin.query(`alter database "${name}" set track_functions = 'pl'`);
    if (statements) {
      await admin.query('create extension if not exists pg_stat_statements');
      await admin.query(`alter database "${name}" set pg_stat_statements.track = 'all'`);
    }
    const { server, url: api } = await benchServer(ex.store, {
      SEED: 'false',
      LOG_REQUESTS: 'false',
      SERVER_PROCESSES: '1',
    });
    try {
      const clients: SupabaseClient[] = await Promise.all(
        ex.emails.map((email) => signedIn(api, { email, password: 'password-123' }, httpFetch)),
      );
      const warm = orderStream(WARM_UP, 0);
      await load(
        32,
        warm.length,
        placeWith(clients, warm, () => ex.warmUpBook),
      );
      // An idle backend hands its function counts over up to 10 s after its last transaction
      // (PostgreSQL's PGSTAT_IDLE_INTERVAL): the warm-up's must be in before they are cleared, or
      // they would land in the run's.
      await new Promise((resolve) => setTimeout(resolve, 11_000));
      await admin.query('select pg_stat_reset()');
      if (statements) await admin.query('select pg_stat_statements_reset()');
      const pid = await postmasterPid(admin);
      const parts = { database: pid ? [pid] : [], server: server.pid ? [server.pid] : [] };
      const before = sampleParts(parts);
      const stream = orderStream(ORDERS, CLIENTS * BOOKS);
      const run = await load(
        CLIENTS,
        stream.length,
        placeWith(clients, stream, (i) => ex.tokens[bookOf(i, BOOKS)]!),
      );
      const after = sampleParts(parts);
      await new Promise((resolve) => setTimeout(resolve, 11_000)); // and the run's, likewise
      const per = (x: number) => round2(x / ORDERS);
      const spent = before && after && pid ? partsSpent(before, after) : undefined;
      const functions = (
        await admin.query<{ name: string; calls: string; self: number; total: number }>(
          `select schemaname || '.' || funcname as name, calls::text, self_time as self, total_time as total
             from pg_stat_user_functions where calls > 0 order by self_time desc`,
        )
      ).rows.map((f) => ({
        name: f.name,
        calls_per_order: round2(Number(f.calls) / ORDERS),
        self_ms: round2(f.self / ORDERS),
        total_ms: round2(f.total / ORDERS),
      }));
      const statementRows = statements
        ? (
            await admin.query<{ query: string; calls: string; ms: number; top: boolean }>(
              `select regexp_replace(query, '\\s+', ' ', 'g') as query, calls::text, total_exec_time as ms, toplevel as top
                 from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())
                order by total_exec_time desc limit 100`,
            )
          ).rows.map((s) => ({
            query: s.query.slice(0, 160),
            calls_per_order: round2(Number(s.calls) / ORDERS),
            ms: per(s.ms),
            top_level: s.top,
          }))
        : { skipped: 'PostgreSQL does not preload pg_stat_statements (shared_preload_libraries)' };
      return {
        orders: ORDERS,
        per_second: run.perSecond,
        cpu_ms_per_order: spent ? { database: per(spent.database! * 1000), server: per(spent.server! * 1000) } : null,
        functions,
        statements: statementRows,
      };
    } finally {
      await stopServer(server);
    }
  } finally {
    await admin.end();
    await ex.store.cleanup();
  }
}

async function main() {
  const p = await profileOrders();
  console.log(`${p.orders} orders from ${CLIENTS} clients over ${BOOKS} books: ${p.per_second}/s`);
  if (p.cpu_ms_per_order)
    console.log(
      `CPU per order: PostgreSQL ${p.cpu_ms_per_order.database} ms, the RepX server ${p.cpu_ms_per_order.server} ms`,
    );
  console.log('\nFunctions, by own time (ms per order; calls per order):');
  for (const f of p.functions.slice(0, 25))
    console.log(
      `${String(f.self_ms).padStart(7)} own ${String(f.total_ms).padStart(7)} with callees ${String(f.calls_per_order).padStart(6)} calls  ${f.name}`,
    );
  if ('skipped' in p.statements) console.log(`\nStatements: skipped: ${p.statements.skipped}`);
  else {
    console.log('\nStatements, by execution time (ms per order; calls per order; * top level):');
    for (const s of p.statements)
      console.log(
        `${String(s.ms).padStart(7)} ${String(s.calls_per_order).padStart(6)} ${s.top_level ? '*' : ' '} ${s.query}`,
      );
  }
  fs.writeFileSync(path.resolve(__dirname, '../../bench-profile.json'), `${JSON.stringify(p, null, 2)}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
