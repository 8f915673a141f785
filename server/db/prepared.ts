import { serialize } from 'pg-protocol';
import type { Statement } from './database';

/** A parameter as the text the database casts (JSON for objects, as node-postgres sends them). */
function asText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Statements one connection keeps prepared by default; the least recently used beyond are closed. */
const CAPACITY = 256;

/**
 * The named statements of one connection, as PostgREST keeps them: a statement's text is parsed
 * and planned the first time the connection meets it, and later requests only bind and execute it
 * (after five runs the database may keep one generic plan). On PGlite, parsing and planning were
 * most of a cheap request's time. A text is built from a request's shape (columns, filters, order,
 * page) while its values travel as parameters, so a connection meets few texts; the least recently
 * used are closed.
 *
 * Not safe for concurrent pipelines: each connection runs one at a time.
 */
export class PreparedStatements {
  /** Text to statement name, least recently used first. */
  private readonly names = new Map<string, string>();
  /** Names that may exist on the connection but are no longer known here: closed before the next statements. */
  private closing: string[] = [];
  private counter = 0;

  constructor(
    private readonly prefix: string,
    private readonly capacity = CAPACITY,
  ) {}

  /**
   * The messages of a pipeline: Close for forgotten names, then for each statement Parse (only when
   * new), Bind, Describe and Execute; then the Sync that commits when `sync`.
   */
  messages(statements: Statement[], sync: boolean): Buffer {
    const messages = this.closing.map((name) => serialize.close({ type: 'S', name }));
    this.closing = [];
    // No named statement may outlive its transaction behind a transaction-mode pooler (PgBouncer
    // before 1.21, Supavisor): each statement is parsed unnamed, then bound and run.
    if (this.capacity === 0) {
      for (const { text, values } of statements)
        messages.push(
          serialize.parse({ name: '', text }),
          serialize.bind({ statement: '', values: values.map(asText) }),
          serialize.describe({ type: 'P' }),
          serialize.execute(),
        );
      if (sync) messages.push(serialize.sync());
      return Buffer.concat(messages);
    }
    for (const { text, values } of statements) {
      let name = this.names.get(text);
      if (name === undefined) {
        name = `${this.prefix}${++this.counter}`;
        messages.push(serialize.parse({ name, text }));
        this.evictBeyond(this.capacity - 1);
      } else this.names.delete(text); // moved to the most recently used end
      this.names.set(text, name);
      messages.push(
        serialize.bind({ statement: name, values: values.map(asText) }),
        serialize.describe({ type: 'P' }),
        serialize.execute(),
      );
    }
    if (sync) messages.push(serialize.sync());
    return Buffer.concat(messages);
  }

  /**
   * The pipeline in flight has ended. After an error the database skipped the rest of it, so the
   * statements it parsed may not exist, and one it reused may be what failed (a plan whose result
   * changed with the schema): all of them are closed and parsed afresh when next met.
   */
  failed(statements: Statement[]) {
    for (const { text } of statements) {
      const name = this.names.get(text);
      if (name === undefined) continue;
      this.names.delete(text);
      this.closing.push(name);
    }
  }

  private evictBeyond(size: number) {
    for (const [text, name] of this.names) {
      if (this.names.size <= size) break;
      this.names.delete(text);
      this.closing.push(name);
    }
  }
}

/**
 * Runs a pipeline of prepared statements, again once if the database refused a prepared statement
 * whose result changed with the schema (its columns; the plan itself is remade by the database).
 * The refusal rolled the pipeline back and closed its statements, so the second run parses afresh.
 */
export async function runPrepared<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const stale =
      error instanceof Error &&
      (error as { code?: unknown }).code === '0A000' &&
      /cached plan must not change result type/.test(error.message);
    if (!stale) throw error;
    return run();
  }
}
