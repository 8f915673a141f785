import pg from 'pg';
import {
  DatabaseUnavailable,
  isConnectionLoss,
  isPgError,
  type Database,
  type Queryable,
  type Statement,
} from './database';
import { PipelineResults, type Field } from './pipeline';
import { PreparedStatements, runPrepared } from './prepared';
import { quoteIdent } from './quote';

/**
 * A pipeline submitted to node-postgres as one query (its Submittable protocol): every message is
 * written at once and the answers are read as they come. node-postgres has no pipelining of its own.
 */
class PgPipeline implements pg.Submittable {
  private readonly results = new PipelineResults((oid) => pg.types.getTypeParser(oid, 'text'));
  private settle: { resolve: (rows: Record<string, unknown>[][]) => void; reject: (e: Error) => void } | undefined;
  readonly done = new Promise<Record<string, unknown>[][]>((resolve, reject) => {
    this.settle = { resolve, reject };
  });

  constructor(
    private readonly prepared: PreparedStatements,
    private readonly statements: Statement[],
  ) {}

  submit(connection: pg.Connection) {
    connection.stream.cork();
    connection.stream.write(this.prepared.messages(this.statements, false));
    connection.sync();
    connection.stream.uncork();
  }

  handleRowDescription(msg: { fields: Field[] }) {
    this.results.rowDescription(msg.fields);
  }
  handleDataRow(msg: { fields: (string | null)[] }) {
    this.results.dataRow(msg.fields);
  }
  handleCommandComplete() {
    this.results.complete();
  }
  handleEmptyQuery() {
    this.results.complete();
  }
  /** A database error (the server then skips to the Sync and rolls back), or the connection's loss. */
  handleError(error: Error) {
    this.results.fail(error);
    this.prepared.failed(this.statements);
    this.settle?.reject(this.results.error!);
  }
  handleReadyForQuery() {
    if (this.results.error) this.settle?.reject(this.results.error);
    else this.settle?.resolve(this.results.rows);
  }
  handlePortalSuspended() {}
  handleCopyInResponse() {}
  handleCopyData() {}
}

/**
 * LISTEN needs a connection of its own that stays open. If the server ends it (restart, admin
 * command), it reconnects and listens again, so live updates resume by themselves.
 */
class Notifications {
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private closing = false;
  private readonly handlers = new Map<string, Set<(payload: string) => void>>();

  constructor(
    private readonly connectionString: string,
    private readonly log: (line: string) => void,
  ) {}

  private connect(): Promise<void> {
    this.connecting ??= (async () => {
      const client = new pg.Client({ connectionString: this.connectionString });
      client.on('notification', (n) => this.handlers.get(n.channel)?.forEach((h) => h(n.payload ?? '')));
      client.on('error', (error) => this.lost(client, error.message));
      client.on('end', () => this.lost(client, 'connection ended'));
      await client.connect();
      for (const channel of this.handlers.keys()) await client.query(`listen ${quoteIdent(channel)}`);
      this.client = client;
    })().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private lost(client: pg.Client, why: string) {
    if (this.closing || this.client !== client) return;
    this.client = null;
    this.log(`postgres: notification connection lost (${why}); reconnecting`);
    const retry = (delay: number) =>
      setTimeout(() => {
        if (this.closing) return;
        this.connect().catch(() => retry(Math.min(delay * 2, 10_000)));
      }, delay);
    retry(500);
  }

  async listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
    const isNew = !this.handlers.has(channel);
    if (isNew) this.handlers.set(channel, new Set());
    this.handlers.get(channel)!.add(onPayload);
    if (!this.client) await this.connect();
    else if (isNew) await this.client.query(`listen ${quoteIdent(channel)}`);
    return async () => {
      this.handlers.get(channel)?.delete(onPayload);
    };
  }

  async close() {
    this.closing = true;
    await this.client?.end().catch(() => undefined);
  }
}

/** A deadlock or a serialization failure: the database undid the whole transaction, so it may run again. */
const mayRunAgain = (error: unknown) => isPgError(error) && (error.code === '40P01' || error.code === '40001');

/**
 * Runs `attempt` again, once, when the database chose it as a deadlock's victim (docs/database.md
 * gives the lock order that makes this rare). A second failure goes to the caller (REST: 409).
 */
async function retriedOnce<T>(attempt: () => Promise<T>): Promise<T> {
  try {
    return await attempt();
  } catch (error) {
    if (!mayRunAgain(error)) throw error;
    // A short wait of its own, so that the two sides of the cycle do not meet again at once.
    await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20));
    return attempt();
  }
}

/** Connections a server keeps to PostgreSQL unless DB_POOL says: as PostgREST's db-pool. */
export const DEFAULT_POOL = 10;

/**
 * How many connections to PostgreSQL the server keeps, all its processes together (cluster.ts
 * shares them): DB_POOL, or DEFAULT_POOL. More is not faster: beyond a few per database CPU, a
 * connection only adds lock waits and context switches (docs/benchmarks.md).
 */
/**
 * A real PostgreSQL server through a connection pool (DATABASE_URL). With `directUrl`
 * (DATABASE_DIRECT_URL), `connectionString` is a transaction-mode pooler's (PgBouncer, a hosted
 * project's Supavisor on 6543), which lends a connection for one transaction only: queries use
 * unnamed statements there, while LISTEN and scripts (migrations) take the direct connection,
 * which keeps its session.
 */
export async function openPostgres(
  connectionString: string,
  max = DEFAULT_POOL,
  log: (line: string) => void = console.error,
  { directUrl, pooled = directUrl !== undefined }: { directUrl?: string; pooled?: boolean } = {},
): Promise<Database> {
  const pool = new pg.Pool({ connectionString, max });
  // An idle connection that the server ends (restart, admin command) must not crash the process:
  // the pool replaces it on next use.
  pool.on('error', (error) => log(`postgres: idle connection lost: ${error.message}`));
  // A connection the server ends can say so twice (its FATAL message, then the closed socket), and
  // pool.query listens only once: the second 'error' would have no listener and end the process.
  // The request has failed already (503, retryable); a listener for the connection's life keeps it so.
  pool.on('connect', (client) => client.on('error', () => undefined));
  await pool.query('select 1');
  const notifications = new Notifications(directUrl ?? connectionString, log);
  /** Each connection's prepared statements (a lost connection is destroyed, and its statements with it). */
  const prepared = new WeakMap<pg.PoolClient, PreparedStatements>();

  /** A lost connection becomes DatabaseUnavailable (503, retryable); other errors pass as they are. */
  const unavailable = (error: unknown) => (isConnectionLoss(error) ? new DatabaseUnavailable(error) : error);
  const wrap = (client: pg.Pool | pg.PoolClient): Queryable => ({
    async query<T>(sql: string, params?: unknown[]) {
      try {
        return (await client.query(sql, params as unknown[])).rows as T[];
      } catch (error) {
        throw unavailable(error);
      }
    },
  });

  /**
   * Runs `fn` on a connection of its own. A checked-out client has no listener of the pool's:
   * without this one, a connection ended by the server (57P01) while a request runs is an unhandled
   * 'error' event and ends the process. A lost connection is released with its error, which
   * destroys it (the pool opens a new one when needed), and the request fails as DatabaseUnavailable.
   */
  async function withClient<T>(fn: (client: pg.PoolClient, isLost: () => boolean) => Promise<T>): Promise<T> {
    const client = await pool.connect().catch((error: unknown) => {
      throw unavailable(error);
    });
    let lost: Error | undefined;
    const onError = (error: Error) => {
      lost = error;
    };
    client.on('error', onError);
    try {
      return await fn(client, () => lost !== undefined);
    } catch (error) {
      if (isConnectionLoss(error) || error instanceof DatabaseUnavailable) lost ??= error as Error;
      throw lost ? (lost instanceof DatabaseUnavailable ? lost : new DatabaseUnavailable(lost)) : error;
    } finally {
      client.removeListener('error', onError);
      client.release(lost);
    }
  }

  return {
    kind: 'postgres',
    ...wrap(pool),
    async exec(sql) {
      if (directUrl) {
        const direct = new pg.Client({ connectionString: directUrl });
        try {
          await direct.connect();
          await direct.query(sql);
        } catch (error) {
          throw unavailable(error);
        } finally {
          await direct.end().catch(() => undefined);
        }
        return;
      }
      await pool.query(sql).catch((error: unknown) => {
        throw unavailable(error);
      });
    },
    transaction: (fn) =>
      retriedOnce(() =>
        withClient(async (client, isLost) => {
          await client.query('begin');
          try {
            const result = await fn(wrap(client));
            await client.query('commit');
            return result;
          } catch (error) {
            if (!isLost() && !isConnectionLoss(error) && !(error instanceof DatabaseUnavailable))
              await client.query('rollback').catch(() => undefined);
            throw error;
          }
        }),
      ),
    pipeline: (statements) =>
      retriedOnce(() =>
        runPrepared(() =>
          withClient((client) => {
            let statementsOfClient = prepared.get(client);
            if (!statementsOfClient)
              prepared.set(client, (statementsOfClient = new PreparedStatements('rx', pooled ? 0 : undefined)));
            const submitted = new PgPipeline(statementsOfClient, statements);
            void client.query(submitted);
            return submitted.done;
          }),
        ),
      ),
    listen: (channel, onPayload) => notifications.listen(channel, onPayload),
    async close() {
      await notifications.close();
      await pool.end();
    },
  };
}
