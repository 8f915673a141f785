import cluster from 'node:cluster';
import os from 'node:os';
import { PGLITE_DURABILITY_NOTE } from './db/pglite';
import { DEFAULT_POOL } from './db/postgres';
import { env } from './env';
import { prepareDatabase, startBackend, type BackendOptions } from './index';

/**
 * How many server processes serve the database: SERVER_PROCESSES=N, or one per CPU over
 * PostgreSQL by default. PGlite is an embedded database in one process: always one.
 */
function serverProcesses(opts: BackendOptions, setting = env().SERVER_PROCESSES): number {
  if (!opts.databaseUrl) return 1;
  return setting === undefined || setting === 'auto' ? os.availableParallelism() : setting;
}

/**
 * Each process's share of the server's DB_POOL connections (db/postgres.ts): at least 2, so that a
 * background job (a vacuum, a fraud scan) never leaves its requests without one.
 */
export const poolShare = (pool: number, processes: number) => Math.max(2, Math.ceil(pool / processes));

/** What a server process tells its parent, over node's IPC channel, once it listens. */
export interface Ready {
  ready: string;
  engine: 'pglite' | 'postgres';
  /** The anon key signed with the installation's secret, which the browser is given. */
  anonKey: string;
}

export const isReady = (message: unknown): message is Ready =>
  typeof message === 'object' && message !== null && 'ready' in message;

/**
 * Serves the backend. With several processes, the primary prepares the database once, then its
 * workers share the port (node:cluster hands out connections); they keep no state of their own
 * that matters to another (sessions, rate limits and realtime's sources are in the database), so
 * the same holds for separate hosts behind a load balancer, started with MIGRATE=false.
 */
export async function serve(settings: BackendOptions): Promise<void> {
  try {
    const processes = serverProcesses(settings); // a worker reads the same settings as its primary
    const opts = { ...settings, databasePool: poolShare(settings.databasePool ?? DEFAULT_POOL, processes) };
    if (cluster.isPrimary && processes > 1) {
      let stopping = false;
      if (opts.migrate !== false) await prepareDatabase(opts);
      for (let i = 0; i < processes; i++) cluster.fork({ MIGRATE: 'false' });
      let ready = 0;
      cluster.on('message', (_worker, message: unknown) => {
        if (isReady(message) && ++ready === processes) {
          console.log(
            `Supabase-compatible backend on http://localhost:${opts.port} (postgres, ${processes} processes)`,
          );
          process.send?.(message);
        }
      });
      cluster.on('exit', (worker, code, signal) => {
        if (!stopping)
          console.error(`server process ${worker.process.pid} ended (${signal ?? code}); starting another`);
        if (!stopping) cluster.fork({ MIGRATE: 'false' });
      });
      const stop = () => {
        stopping = true;
        for (const w of Object.values(cluster.workers ?? {})) w?.kill('SIGTERM');
        cluster.on('exit', () => Object.keys(cluster.workers ?? {}).length === 0 && process.exit(0));
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
      return;
    }
    const backend = await startBackend(opts);
    const ready: Ready = { ready: backend.url, engine: backend.db.kind, anonKey: backend.anonKey };
    // To the cluster's primary, or to whoever started this process with a channel (npm start).
    process.send?.(ready);
    if (!cluster.isWorker) {
      console.log(`Supabase-compatible backend on ${backend.url} (${backend.db.kind})`);
      if (backend.db.kind === 'pglite') console.log(`Note: ${PGLITE_DURABILITY_NOTE}`);
    }
    const stop = () => void backend.close().then(() => process.exit(0));
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
