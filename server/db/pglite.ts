import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pgcrypto } from '@electric-sql/pglite/contrib/pgcrypto';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { Database, Queryable } from './database';
import { PipelineResults, type Field } from './pipeline';
import { ProtocolParser, exclusively } from './pgliteInternals';
import { PreparedStatements, runPrepared } from './prepared';

/** Said at start-up whenever PGlite holds the data (README, 'Durability'). */
export const PGLITE_DURABILITY_NOTE =
  'PGlite keeps the data in one process without fsync: an acknowledged order survives a crash of the server ' +
  '(kill -9) but not a crash of the machine or a power loss. Use it for local work and demos; for real money, ' +
  'set DATABASE_URL to a PostgreSQL server or use a hosted Supabase project.';

/** The answer's messages a pipeline reads, as pg-protocol's parser gives them. */
interface Answer {
  name: string;
  fields?: unknown[];
  channel?: string;
  payload?: string;
}

const EXTENSIONS = { pgcrypto, pg_trgm };

/**
 * Embedded Postgres. One connection: every request is one short transaction through PGlite's
 * own queue. A lock file keeps a second process from opening (and corrupting) the same folder.
 * An in-memory database may start from `image`, a data directory that `emptyDataDirImage` or
 * `dumpDataDir` made.
 */
export async function openPglite(dataDir?: string, image?: Blob): Promise<Database & { dumpDataDir(): Promise<Blob> }> {
  let lockFile: string | undefined;
  if (dataDir) {
    fs.mkdirSync(dataDir, { recursive: true });
    lockFile = path.join(path.dirname(path.resolve(dataDir)), `${path.basename(dataDir)}.lock`);
    takeLock(lockFile);
  }
  const db = new PGlite({ dataDir, extensions: EXTENSIONS, loadDataDir: dataDir ? undefined : image });
  await db.waitReady;
  const prepared = new PreparedStatements('rx');
  /**
   * Subscribers by channel. A pipeline's raw answer bypasses PGlite's own dispatch of the
   * notifications its commit sends (a deposit's, say), so both paths deliver through here.
   */
  const listeners = new Map<string, Set<(payload: string) => void>>();
  const listening = new Map<string, Promise<unknown>>();
  const notify = (channel: string, payload: string) =>
    listeners.get(channel)?.forEach((onPayload) => queueMicrotask(() => onPayload(payload)));

  const wrap = (q: { query: PGlite['query'] }): Queryable => ({
    async query<T>(sql: string, params?: unknown[]) {
      return (await q.query<T>(sql, params)).rows;
    },
  });

  return {
    kind: 'pglite',
    ...wrap(db),
    async exec(sql) {
      await db.exec(sql);
    },
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx))),
    // One call into the database for the whole pipeline, holding both of PGlite's locks, so no other
    // query or open transaction can interleave with it.
    pipeline: (statements) =>
      runPrepared(() =>
        exclusively(db, async () => {
          // PGlite hands its lock from one queued call to the next without returning to the event
          // loop, so under load the server would read no new connection or request until the whole
          // queue was done, then take them in a batch: latencies would spread from one to several
          // queue lengths. A turn of the event loop before each pipeline keeps the queue first
          // come, first served.
          await new Promise((resolve) => setImmediate(resolve));
          const results = new PipelineResults((oid) => db.parsers[oid] ?? String);
          const parser = new ProtocolParser();
          const read = (m: Answer) => {
            if (m.name === 'rowDescription') results.rowDescription(m.fields as Field[]);
            else if (m.name === 'dataRow') results.dataRow(m.fields as (string | null)[]);
            else if (m.name === 'commandComplete' || m.name === 'emptyQuery') results.complete();
            else if (m.name === 'error') results.fail(m as unknown as Error);
            else if (m.name === 'notification') notify(m.channel!, m.payload ?? '');
          };
          // The raw answer, parsed once by node-postgres's protocol parser, rather than execProtocol,
          // which parsed it into message objects of its own that were read again here: a trivial
          // rpc at 32 clients went from about 3,100 to 3,600 requests/s. The chunks are views into
          // PGlite's memory, hence copied. NodeFS and MemoryFS write through: nothing to sync.
          await db.execProtocolRawStream(prepared.messages(statements, true), {
            syncToFs: false,
            onRawData: (chunk) => parser.parse(Buffer.from(chunk), (m) => read(m as Answer)),
          });
          if (results.error) {
            prepared.failed(statements);
            throw results.error;
          }
          return results.rows;
        }),
      ),
    async listen(channel, onPayload) {
      if (!listening.has(channel)) {
        listeners.set(channel, new Set());
        const subscribed = db
          .listen(channel, (payload) => notify(channel, payload))
          .catch((error: unknown) => {
            listening.delete(channel);
            listeners.delete(channel);
            throw error;
          });
        listening.set(channel, subscribed);
      }
      listeners.get(channel)!.add(onPayload);
      await listening.get(channel);
      return async () => {
        listeners.get(channel)?.delete(onPayload);
      };
    },
    dumpDataDir: () => db.dumpDataDir('none'),
    async close() {
      if (!db.closed) {
        await db.query('checkpoint').catch(() => undefined);
        await db.close();
      }
      if (lockFile) fs.rmSync(lockFile, { force: true });
    },
  };
}

/**
 * A new, empty cluster's data directory, as PGlite's initdb leaves it: starting from it skips
 * initdb, about two thirds of a new in-memory database's start (the test suites start dozens).
 */
export async function emptyDataDirImage(): Promise<Blob> {
  const db = new PGlite({ extensions: EXTENSIONS });
  await db.waitReady;
  const image = await db.dumpDataDir('none');
  await db.close();
  return image;
}

function takeLock(lockFile: string): void {
  try {
    fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
  } catch {
    const pid = Number(fs.readFileSync(lockFile, 'utf8'));
    if (pid && pid !== process.pid && isAlive(pid)) {
      throw new Error(`The data folder is in use by process ${pid} (${lockFile}). Stop it first.`);
    }
    fs.writeFileSync(lockFile, String(process.pid)); // a stale lock from a killed process
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
