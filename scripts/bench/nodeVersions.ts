/**
 * npm run bench:node -- /path/to/other/node: the server on this Node and on another, over the same
 * exchange in alternated rounds (A B A B A B), on each engine of BENCH_ENGINES; the load generator
 * stays on this Node. Printed, never asserted: read the ratio between the two Nodes within a round.
 *
 *   npm run bench:node -- /usr/bin/node
 */
import { execFileSync } from 'node:child_process';
import { BOOKS, prepareExchange, serve } from './orders';
import { ENGINES, cpuText, median, type Run } from './common';

const ROUNDS = 3;
const PLAN = [
  { books: 1, clients: 1 },
  { books: BOOKS, clients: 8 },
  { books: BOOKS, clients: 32 },
];

const version = (node: string) => execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();

async function main() {
  const others = process.argv.slice(2);
  if (others.length === 0) throw new Error('usage: npm run bench:node -- /path/to/another/node');
  const nodes = [process.execPath, ...others];
  console.log(`The server on ${nodes.map(version).join(' and ')}: median of ${ROUNDS} alternated rounds\n`);
  console.log(
    'engine     node       books  clients  orders/s   p50 ms   p99 ms   CPU ms per order: load gen, server, database; CPUs busy',
  );
  for (const engine of ENGINES) {
    const ex = await prepareExchange(engine);
    const runs = new Map<string, Run[][]>(nodes.map((n) => [n, PLAN.map(() => [])]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const node of nodes) {
        const { runs: got } = await serve(ex, 1, PLAN, false, node);
        got.forEach((r, i) => runs.get(node)![i]!.push(r));
      }
    }
    for (const [i, { books, clients }] of PLAN.entries()) {
      for (const node of nodes) {
        const m = median(runs.get(node)![i]!)!;
        console.log(
          `${engine.padEnd(10)} ${version(node).padEnd(10)} ${String(books).padStart(5)} ${String(clients).padStart(8)} ${String(m.perSecond).padStart(9)} ${String(m.p50).padStart(8)} ${String(m.p99).padStart(8)}   ${cpuText(m.cpu)}`,
        );
      }
    }
    await ex.store.cleanup();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
