/**
 * npm run bench:against -- <commit>: this working tree's orders over HTTP against another commit's,
 * each on a fresh exchange made by its own schema and bench, in alternated rounds (A B A B ...), on
 * each engine of BENCH_ENGINES. Printed, never asserted: read the ratio within a round.
 *
 * Both sides must start from equal exchanges: a database that has taken more orders has deeper
 * books and a longer history, and comparing it with a fresh one measures that, not the code. The
 * other commit is checked out in a temporary git worktree sharing this one's node_modules, and its
 * scripts/bench/orders.ts must export prepareExchange and serve, as this one does.
 *
 *   npm run bench:against -- 74d8fa8
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dropDatabase } from '../../integration/harness/backends';
import { ROOT } from '../webpack/config';
import { ENGINES, cpuText, median, round2, type Run } from './common';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const PLAN = [
  { books: 1, clients: 1 },
  { books: 32, clients: 8 },
  { books: 32, clients: 32 },
];

interface Prepared {
  store: { options: Record<string, string>; env: Record<string, string> };
  tokens: string[];
  warmUpBook: string;
  emails: string[];
}

/** Runs `code` with tsx in a checkout (so its imports are that commit's) and returns what it printed after RESULT. */
function inCheckout<T>(dir: string, code: string): T {
  const out = execFileSync(process.execPath, [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), '-e', code], {
    cwd: dir,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = out.split('\n').find((l) => l.startsWith('RESULT '));
  if (!line) throw new Error(`no result from ${dir}:\n${out}`);
  return JSON.parse(line.slice('RESULT '.length)) as T;
}

const prepare = (dir: string, engine: string) =>
  inCheckout<Prepared>(
    dir,
    `import('./scripts/bench/orders').then(async (m) => {
       const ex = await m.prepareExchange(${JSON.stringify(engine)});
       console.log('RESULT ' + JSON.stringify({ ...ex, store: { options: ex.store.options, env: ex.store.env } }));
       process.exit(0);
     });`,
  );

const serve = (dir: string, ex: Prepared) =>
  inCheckout<Run[]>(
    dir,
    `import('./scripts/bench/orders').then(async (m) => {
       const ex = ${JSON.stringify(ex)};
       const { runs } = await m.serve({ ...ex, store: { ...ex.store, cleanup: async () => {} } }, 1, ${JSON.stringify(PLAN)}, false);
       console.log('RESULT ' + JSON.stringify(runs));
       process.exit(0);
     });`,
  );

async function cleanup(ex: Prepared) {
  if (ex.store.env.DATABASE_URL) await dropDatabase(ex.store.env.DATABASE_URL);
  else if (ex.store.env.DATA_DIR) fs.rmSync(path.dirname(ex.store.env.DATA_DIR), { recursive: true, force: true });
}

async function main() {
  const commit = process.argv[2];
  if (!commit) throw new Error('usage: npm run bench:against -- <commit>');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  const other = fs.mkdtempSync(path.join(os.tmpdir(), 'repx-against-'));
  git('worktree', 'add', '--detach', other, commit);
  try {
    for (const modules of ['node_modules', 'supabase/node_modules'])
      if (fs.existsSync(path.join(ROOT, modules))) fs.symlinkSync(path.join(ROOT, modules), path.join(other, modules));
    const sides = [
      { name: 'this tree', dir: ROOT },
      { name: git('rev-parse', '--short', commit), dir: other },
    ];
    console.log(`Orders over HTTP, this tree against ${sides[1]!.name}: ${ROUNDS} alternated rounds\n`);
    console.log(
      'engine     code        books  clients  orders/s   p50 ms   p99 ms   CPU ms per order: load gen, server, database; CPUs busy',
    );
    for (const engine of ENGINES) {
      const exchanges = sides.map((s) => prepare(s.dir, engine));
      const runs = sides.map(() => PLAN.map((): Run[] => []));
      for (let round = 0; round < ROUNDS; round++)
        sides.forEach((s, i) => serve(s.dir, exchanges[i]!).forEach((r, p) => runs[i]![p]!.push(r)));
      for (const [p, { books, clients }] of PLAN.entries()) {
        sides.forEach((s, i) => {
          const m = median(runs[i]![p]!)!;
          console.log(
            `${engine.padEnd(10)} ${s.name.padEnd(11)} ${String(books).padStart(5)} ${String(clients).padStart(8)} ${String(m.perSecond).padStart(9)} ${String(m.p50).padStart(8)} ${String(m.p99).padStart(8)}   ${cpuText(m.cpu)}`,
          );
        });
        const ratios = runs[0]![p]!.map((r, round) => round2(r.perSecond / runs[1]![p]![round]!.perSecond));
        const sorted = [...ratios].sort((a, b) => a - b);
        console.log(
          `${''.padEnd(10)} ratio by round ${ratios.join(', ')}; median ${sorted[Math.floor(sorted.length / 2)]}`,
        );
      }
      for (const ex of exchanges) await cleanup(ex);
    }
  } finally {
    git('worktree', 'remove', '--force', other);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
