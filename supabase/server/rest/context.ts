import type { IncomingMessage } from 'node:http';
import type { Database, Queryable, Statement } from '../db/database';
import { isPgError } from '../db/database';
import { becomeCaller, callerStatement, httpContext, sessionEnded, type RequestIdentity } from '../db/caller';
import type { Catalog } from './catalog';
import { fromPgError } from './errors';

type Rows = Record<string, unknown>[];

/** What every REST endpoint works with: the schema cache and two ways to run as the caller. */
export interface RestContext {
  getCatalog: () => Catalog;
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

export function restContext(db: Database, getCatalog: () => Catalog, log?: (line: string) => void): RestContext {
  /** The client sees PostgREST's error (a generic 500 for the unexpected); the operator sees what the database said. */
  const refusal = (error: unknown, who: RequestIdentity, req: IncomingMessage, path: string) => {
    if (!isPgError(error)) return error;
    const mapped = fromPgError(error, who.role);
    if (mapped.status >= 500) log?.(`error ${req.method} ${path}: ${error.code} ${error.message}`);
    return mapped;
  };
  return {
    getCatalog,
    async pipeline(who, req, path, readOnly, statements) {
      try {
        const [, ...rows] = await db.pipeline([callerStatement(who, httpContext(req, path), readOnly), ...statements]);
        return rows;
      } catch (error) {
        throw (isPgError(error) && error.statement === 0 && sessionEnded(error)) || refusal(error, who, req, path);
      }
    },
    async run(who, req, path, readOnly, fn) {
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
