import pg from 'pg';
import type { Database, Queryable } from './database';

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
      for (const channel of this.handlers.keys()) await client.query(`listen ${quote(channel)}`);
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
    else if (isNew) await this.client.query(`listen ${quote(channel)}`);
    return async () => {
      this.handlers.get(channel)?.delete(onPayload);
    };
  }

  async close() {
    this.closing = true;
    await this.client?.end().catch(() => undefined);
  }
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** A real PostgreSQL server through a connection pool (DATABASE_URL). */
export async function openPostgres(connectionString: string, max = 16, log: (line: string) => void = console.error): Promise<Database> {
  const pool = new pg.Pool({ connectionString, max });
  // An idle connection that the server ends (restart, admin command) must not crash the process:
  // the pool replaces it on next use.
  pool.on('error', (error) => log(`postgres: idle connection lost: ${error.message}`));
  await pool.query('select 1');
  const notifications = new Notifications(connectionString, log);

  const wrap = (client: pg.Pool | pg.PoolClient): Queryable => ({
    async query<T>(sql: string, params?: unknown[]) {
      return (await client.query(sql, params as unknown[])).rows as T[];
    },
  });

  return {
    kind: 'postgres',
    ...wrap(pool),
    async exec(sql) {
      await pool.query(sql);
    },
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const result = await fn(wrap(client));
        await client.query('commit');
        return result;
      } catch (error) {
        await client.query('rollback').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    listen: (channel, onPayload) => notifications.listen(channel, onPayload),
    async close() {
      await notifications.close();
      await pool.end();
    },
  };
}
