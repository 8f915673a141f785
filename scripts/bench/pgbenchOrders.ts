/**
 * npm run bench:pgbench-orders: the order runs' stream replayed by pgbench straight into
 * PostgreSQL, without the RepX server, beside PostgreSQL's own TPC-B run the same way: what an
 * order costs the database alone, in CPU per order, read from /proc (the PostgreSQL server's
 * processes, and the backends it has reaped). docs/benchmarks.md has what it showed.
 *
 * The bench's exchange (32 books, 32 traders, 10,000 past orders) is made once; each run is on a
 * fresh copy of it: PGBENCH_APPLY (an SQL file) is run on the copy first, so a change to try, or
 * a part of the order turned off, is measured against the same copy without it. Then 500 resting
 * orders to warm up, then PGBENCH_CLIENTS connections (8) each placing PGBENCH_ORDERS orders
 * (1,000): each connection becomes a trader as the server makes a request its caller (the claims,
 * then the role), and places a limit order on a book, 30% of them immediate-or-cancel across it.
 * PGBENCH_ROUNDS (3) alternates the copy without and with PGBENCH_APPLY; this machine's noise is
 * about 5% from run to run, so read the rounds side by side.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { prepareExchange } from './orders';

const CLIENTS = Number(process.env.PGBENCH_CLIENTS ?? 8);
const ORDERS = Number(process.env.PGBENCH_ORDERS ?? 1000);
const ROUNDS = Number(process.env.PGBENCH_ROUNDS ?? 3);
const APPLY = process.env.PGBENCH_APPLY;

/** One order as a trader: the caller's claims and role for the transaction, then place_order. */
const orderScript = (marketShare: number) => `\\set t random(0, 31)
\\set u random(0, 31)
\\set side random(0, 1)
\\set amt random(1, 20)
\\set px random(950, 1050)
\\set mk random(1, 100)
BEGIN;
select set_config('request.jwt.claims', u.claims, true), set_config('request.jwt.claim.sub', u.id::text, true),
  set_config('request.jwt.claim.role', 'authenticated', true), set_config('search_path', 'public, extensions', true),
  set_config('role', 'authenticated', true) from pgbench_traders u where u.i = :u;
select public.place_order((select id from pgbench_books where i = :t), case when :side = 0 then 'buy' else 'sell' end,
  'limit', :amt, case when :mk > ${marketShare} then :px / 100.0 when :side = 0 then 10.60 else 9.40 end,
  case when :mk > ${marketShare} then 'gtc' else 'ioc' end);
COMMIT;
`;

/** CPU seconds of the PostgreSQL server so far: its processes, and the children it has reaped. */
function postgresSeconds(postmaster: number): number {
  const stat = (pid: number | string) => {
    const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return s.slice(s.lastIndexOf(')') + 2).split(' ');
  };
  const ticks = (f: string[], from: number, to: number) => f.slice(from, to + 1).reduce((a, b) => a + Number(b), 0);
  let total = ticks(stat(postmaster), 11, 14); // its own utime, stime, and its reaped children's
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const f = stat(pid);
      if (Number(f[1]) === postmaster) total += ticks(f, 11, 12);
    } catch {
      // Ended while being read: its time is in the postmaster's reaped children now.
    }
  }
  return total / 100;
}

function pgbench(args: string[]) {
  const run = spawnSync('pgbench', args, { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`pgbench: ${run.stderr.trim().split('\n').slice(-3).join(' ')}`);
  return Number(/tps = ([\d.]+)/.exec(run.stdout)?.[1] ?? 0);
}

/** Transactions a second and ms of PostgreSQL CPU per transaction of one pgbench run. */
async function measured(postmaster: number, args: string[], transactions: number) {
  const before = postgresSeconds(postmaster);
  const tps = pgbench(args);
  await new Promise((resolve) => setTimeout(resolve, 1000)); // the backends reaped
  const ms = ((postgresSeconds(postmaster) - before) * 1000) / transactions;
  return { tps: Math.round(tps), cpu_ms: Math.round(ms * 1000) / 1000 };
}

async function main() {
  if (spawnSync('pgbench', ['--version']).status !== 0) throw new Error('pgbench is not installed');
  const ex = await prepareExchange('postgres');
  const url = new URL(ex.store.env.DATABASE_URL!);
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'repex-pgbench-'));
  const template = url.pathname.slice(1);
  // Databases are made and dropped from another: a database being copied may have no connection.
  const server = new URL(url);
  server.pathname = '/postgres';
  const psql = (db: string, ...args: string[]) => spawnSync('psql', [db, '-qv', 'ON_ERROR_STOP=1', ...args]);
  const at = (name: string) => Object.assign(new URL(url), { pathname: `/${name}` }).toString();
  try {
    const dataDir = (await admin.query<{ d: string }>(`select current_setting('data_directory') as d`)).rows[0]!.d;
    const postmaster = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    await admin.query(
      `create table pgbench_books as select (row_number() over ()) - 1 as i, id from unnest($1::uuid[]) id`,
      [ex.tokens],
    );
    await admin.query(
      `create table pgbench_traders as
       select (row_number() over (order by u.email)) - 1 as i, u.id,
              json_build_object('sub', u.id, 'role', 'authenticated', 'aal', 'aal1')::text as claims
       from auth.users u where u.email = any($1)`,
      [ex.emails],
    );
    await admin.query('grant select on pgbench_books, pgbench_traders to authenticated');
    await admin.end();
    fs.writeFileSync(path.join(dir, 'warm.sql'), orderScript(0));
    fs.writeFileSync(path.join(dir, 'orders.sql'), orderScript(30));

    const copy = (apply: boolean) => {
      const name = `${template}_run`;
      psql(server.toString(), '-c', `drop database if exists ${name} with (force)`);
      psql(server.toString(), '-c', `create database ${name} template ${template}`);
      if (apply && psql(at(name), '-f', APPLY!).status !== 0) throw new Error(`${APPLY} failed`);
      pgbench(['-n', '-M', 'prepared', '-f', path.join(dir, 'warm.sql'), '-c', '4', '-j', '2', '-t', '125', at(name)]);
      return at(name);
    };
    const transactions = CLIENTS * ORDERS;
    const orderArgs = (db: string) => [
      '-n',
      '-M',
      'prepared',
      '-f',
      path.join(dir, 'orders.sql'),
      '-c',
      `${CLIENTS}`,
      '-j',
      '2',
      '-t',
      `${ORDERS}`,
      db,
    ];
    console.log(`${CLIENTS} connections, ${ORDERS} orders each, straight into PostgreSQL (no RepX server):`);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const apply of APPLY ? [false, true] : [false]) {
        const r = await measured(postmaster, orderArgs(copy(apply)), transactions);
        console.log(
          `round ${round} ${apply ? `with ${path.basename(APPLY!)}` : 'as it is'}: ${r.tps} orders/s, ${r.cpu_ms} ms of PostgreSQL CPU per order`,
        );
      }
    }
    // TPC-B, the same way: a database of its own at scale 10, as npm run bench's reference.
    psql(server.toString(), '-c', `create database ${template}_tpcb`);
    pgbench(['-i', '-q', '-s', '10', at(`${template}_tpcb`)]);
    const t = await measured(
      postmaster,
      ['-n', '-M', 'prepared', '-c', `${CLIENTS}`, '-j', '2', '-t', `${ORDERS}`, at(`${template}_tpcb`)],
      transactions,
    );
    console.log(`TPC-B: ${t.tps} transactions/s, ${t.cpu_ms} ms of PostgreSQL CPU per transaction`);
  } finally {
    for (const suffix of ['_run', '_tpcb'])
      psql(server.toString(), '-c', `drop database if exists ${template}${suffix} with (force)`);
    fs.rmSync(dir, { recursive: true, force: true });
    await ex.store.cleanup();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
