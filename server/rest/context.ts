import type { IncomingMessage } from 'node:http';
import type { Database, Queryable, Statement } from '../db/database';
import { isPgError } from '../db/database';
import { becomeCaller, callerStatement, httpContext, callerEnded, type RequestIdentity } from '../db/caller';
import { DatabaseUnavailable } from '../db/database';
import { REPLICA_ANSWER_MS, within, type Replica } from '../db/replica';
import type { Catalog } from './catalog';
import { fromPgError } from './errors';
import { RecentWrites } from './replica';

type Rows = Record<string, unknown>[];

/** What every REST endpoint works with: the schema cache and two ways to run as the caller. */
export interface RestContext {
  getCatalog: () => Catalog;
  /** config.toml's [api] max_rows: where an estimated count stops counting. */
  maxRows?: number;
  /**
   * Runs the statements as the caller in one round trip (one transaction: the caller's statement,
   * then these, committed together), mapping database errors to PostgREST's. Each statement's rows.
   */
  pipeline: (
    who: RequestIdentity,
    req: IncomingMessage,
    path: string,
    readOnly: boolean,
    statements: Statement[],
    /** A read that tolerates a replica's lag (rest/replica.ts decides). */
    tolerant?: boolean,
  ) => Promise<Rows[]>;
  /** Runs `fn` in one transaction as the caller, for a request that decides between statements (a round trip each). */
  run: <T>(
    who: RequestIdentity,
    req: IncomingMessage,
    path: string,
    readOnly: boolean,
    fn: (tx: Queryable) => Promise<T>,
  ) => Promise<T>;
}

export function restContext(
  db: Database,
  getCatalog: () => Catalog,
  log?: (line: string) => void,
  replica?: Replica,
): RestContext {
  const writes = new RecentWrites(replica?.maxLagMs ?? 0);
  /**
   * Where a request runs: a tolerant read from a session that has not just written goes to the
   * replica while it is usable; everything else to the primary.
   */
  const pick = (who: RequestIdentity, req: IncomingMessage, readOnly: boolean, tolerant: boolean) => {
    if (!readOnly) writes.wrote(who);
    return replica && tolerant && readOnly && replica.usable && !writes.recent(who, req) ? replica : undefined;
  };
  /** The client sees PostgREST's error (a generic 500 for the unexpected); the operator sees what the database said. */
  const refusal = (error: unknown, who: RequestIdentity, req: IncomingMessage, path: string) => {
    if (!isPgError(error)) return error;
    const mapped = fromPgError(error, who.role);
    if (mapped.status >= 500) log?.(`error ${req.method} ${path}: ${error.code} ${error.message}`);
    return mapped;
  };
  return {
    getCatalog,
    async pipeline(who, req, path, readOnly, statements, tolerant = false) {
      const all = [callerStatement(who, httpContext(req, path), readOnly), ...statements];
      const from = pick(who, req, readOnly, tolerant);
      if (from) {
        try {
          const [, ...rows] = await within(from.db.pipeline(all), REPLICA_ANSWER_MS, 'the replica');
          from.counters.served++;
          return rows;
        } catch (error) {
          // The replica is gone (or silent), or has not replayed the caller's new session yet: the primary answers.
          if (error instanceof DatabaseUnavailable || !isPgError(error)) from.down(error);
          else if (!(isPgError(error) && error.statement === 0 && callerEnded(error)))
            throw refusal(error, who, req, path);
          from.counters.fellBack++;
        }
      }
      try {
        const [, ...rows] = await db.pipeline(all);
        return rows;
      } catch (error) {
        throw (isPgError(error) && error.statement === 0 && callerEnded(error)) || refusal(error, who, req, path);
      }
    },
    async run(who, req, path, readOnly, fn) {
      if (!readOnly) writes.wrote(who);
      try {
        return await db.transaction(async (tx) => {
          await becomeCaller(tx, who, httpContext(req, path), readOnly);
          return fn(tx);
        });
      } catch (error) {
        throw refusal(error, who, req, path);
      }
    },
  };
}
