import { cpuText, type Engine, type Run, type Transport } from './common';
import { BOOKS, HISTORY, RATE_ROUNDS, type Rates } from './orders';

export const ORDERS_HEADER = [
  "Placing orders over HTTP (supabase-js rpc place_order over the bench's transport, or Node's fetch where marked; server in its own process):",
  'engine     procs  books  clients  orders/s   p50 ms   p99 ms  refused   CPU ms per order: load gen, server, database; CPUs busy',
].join('\n');

/** Prints one engine's order runs and rates, and returns them as bench-results.json keeps them. */
export function reportOrders(
  engine: Engine,
  { runs, rates }: { runs: Run[]; rates: Rates[] },
): Record<string, unknown> {
  for (const r of runs.filter((r) => r.history !== HISTORY)) {
    console.log(
      `${engine.padEnd(10)} ${String(r.processes).padStart(5)} ${String(r.books).padStart(6)} ${String(r.clients).padStart(8)} ${String(r.perSecond).padStart(9)} ${r.p50.toFixed(1).padStart(8)} ${r.p99.toFixed(1).padStart(8)} ${String(r.refused).padStart(8)}   ${cpuText(r.cpu)}${r.transport === 'node-fetch' ? "   (over Node's fetch)" : r.transport === 'api-key' ? '   (signed with API keys)' : ''}${r.stopShare ? `   (${r.stopShare * 100}% stops)` : ''}`,
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
          (r) =>
            r.processes === processes &&
            r.books === books &&
            r.history !== HISTORY &&
            r.transport === transport &&
            !r.stopShare,
        )
        .map((r) => [String(r.clients), { orders_per_s: r.perSecond, p99_ms: r.p99, cpu: r.cpu }]),
    );
  const one = runs.find((r) => r.processes === 1 && r.books === 1 && r.clients === 1 && r.history !== HISTORY)!;
  const single = rates.find((r) => r.processes === 1)!;
  const two = rates.find((r) => r.processes === 2);
  return {
    order_ms: { p50: one.p50, p99: one.p99 },
    [`order_ms_after_${HISTORY}_orders`]: { p50: afterHistory.p50, p99: afterHistory.p99 },
    hot_book: pick(1, 1),
    spread_32_books: pick(1, BOOKS),
    spread_32_books_over_node_fetch: pick(1, BOOKS, 'node-fetch'),
    // The same 32 clients signed with API keys, run beside the session run after it (the last of the two).
    spread_32_books_with_api_keys: pick(1, BOOKS, 'api-key'),
    spread_32_books_with_stops: runs
      .filter((r) => r.stopShare)
      .map((r) => ({ stop_share: r.stopShare, orders_per_s: r.perSecond, p99_ms: r.p99, refused: r.refused }))[0],
    trivial_rpc_per_s: single.trivialRpcPerSecond,
    trivial_rpc_fetch_per_s: single.trivialRpcFetchPerSecond,
    health_per_s: single.healthPerSecond,
    trivial_rpc_cpu: single.trivialRpcCpu,
    health_cpu: single.healthCpu,
    trivial_rpc_over_health_by_round: single.ratios,
    ...(two
      ? {
          two_processes: {
            hot_book: pick(2, 1),
            spread_32_books: pick(2, BOOKS),
            trivial_rpc_per_s: two.trivialRpcPerSecond,
            trivial_rpc_fetch_per_s: two.trivialRpcFetchPerSecond,
            health_per_s: two.healthPerSecond,
            trivial_rpc_over_health_by_round: two.ratios,
          },
        }
      : {}),
  };
}
