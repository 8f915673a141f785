import type { IncomingMessage } from 'node:http';
import type { Database, Queryable } from '../db/database';
import { isPgError } from '../db/database';
import { becomeCaller, httpContext, type RequestIdentity } from '../db/caller';
import type { Catalog } from './catalog';
import { fromPgError } from './errors';

/** What every REST endpoint works with: the schema cache and a way to run as the caller. */
export interface RestContext {
  getCatalog: () => Catalog;
  /** Runs `fn` in one transaction as the caller (role, claims, request), mapping database errors to PostgREST's. */
  run: <T>(
    who: RequestIdentity,
    req: IncomingMessage,
    path: string,
    readOnly: boolean,
    fn: (tx: Queryable) => Promise<T>,
  ) => Promise<T>;
}

export function restContext(db: Database, getCatalog: () => Catalog, log?: (line: string) => void): RestContext {
  return {
    getCatalog,
    async run<T>(
      who: RequestIdentity,
      req: IncomingMessage,
      path: string,
      readOnly: boolean,
      fn: (tx: Queryable) => Promise<T>,
    ) {
      try {
        return await db.transaction(async (tx) => {
          await becomeCaller(tx, who, httpContext(req, path), readOnly);
          return fn(tx);
        });
      } catch (error) {
        if (!isPgError(error)) throw error;
        const refusal = fromPgError(error, who.role);
        // The client sees a generic 500; the operator sees what the database said.
        if (refusal.status >= 500) log?.(`error ${req.method} ${path}: ${error.code} ${error.message}`);
        throw refusal;
      }
    },
  };
}
