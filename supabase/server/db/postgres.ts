import pg from 'pg';
import type { Database, Queryable } from './database';

/** A real PostgreSQL server through a connection pool (DATABASE_URL). */
export async function openPostgres(connectionString: string, max = 16): Promise<Database> {
  const pool = new pg.Pool({ connectionString, max });
  await pool.query('select 1');
  const listener = new pg.Client({ connectionString });
  let listenerReady: Promise<unknown> | null = null;
  const handlers = new Map<string, Set<(payload: string) => void>>();
  listener.on('notification', (n) => handlers.get(n.channel)?.forEach((h) => h(n.payload ?? '')));

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
    async listen(channel, onPayload) {
      listenerReady ??= listener.connect();
      await listenerReady;
      if (!handlers.has(channel)) {
        handlers.set(channel, new Set());
        await listener.query(`listen "${channel.replace(/"/g, '""')}"`);
      }
      handlers.get(channel)!.add(onPayload);
      return async () => {
        handlers.get(channel)?.delete(onPayload);
      };
    },
    async close() {
      if (listenerReady) await listener.end().catch(() => undefined);
      await pool.end();
    },
  };
}
