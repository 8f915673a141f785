/** What the HTTP layers need from a database, whichever engine is underneath. */
export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
}

/** A statement and its parameters, sent as text for the database to cast (null stays NULL). */
export interface Statement {
  text: string;
  values: unknown[];
}

export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs a script of several statements (migrations, seed). */
  exec(sql: string): Promise<void>;
  /** Runs `fn` in one transaction: committed if it resolves, rolled back if it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Runs the statements as one transaction in one round trip: they are sent together, each parsed,
   * bound and executed in turn, and the one Sync that ends them commits (the extended protocol's
   * implicit transaction), so a failing statement rolls them all back and the ones after it do not
   * run. Resolves to each statement's rows; a database error names the failing statement (`statement`).
   */
  pipeline(statements: Statement[]): Promise<Record<string, unknown>[][]>;
  /** Subscribes to NOTIFY on `channel`; resolves to the unsubscribe function. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** The fields of a Postgres error that we pass on to clients (same on pg and PGlite). */
export interface PgError {
  code?: string;
  message: string;
  detail?: string;
  hint?: string;
  /** In a pipeline, the index of the statement that failed. */
  statement?: number;
}

export function isPgError(e: unknown): e is PgError & Error {
  return e instanceof Error && typeof (e as PgError).code === 'string';
}

/**
 * The database cannot be reached right now (its connection was cut by a restart, a failover or an
 * administrator). The request failed but may be retried: the server answers 503 with Retry-After.
 */
export class DatabaseUnavailable extends Error {
  constructor(readonly cause: unknown) {
    super('The database connection was lost. Please retry.');
  }
}

const LOST_CONNECTION_CODES = new Set(['57P01', '57P02', '57P03', 'ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT']);

/** True for errors that mean the connection is gone, not that the statement was wrong. */
export function isConnectionLoss(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string' && (code.startsWith('08') || LOST_CONNECTION_CODES.has(code))) return true;
  return /Connection terminated|connection is closed|Client has encountered a connection error/i.test(e.message);
}
