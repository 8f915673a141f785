import type { PGlite } from '@electric-sql/pglite';
import { Parser } from 'pg-protocol/dist/parser';

/**
 * The two places the server reaches past a library's public API, in one module, so that an
 * upgrade that changes them fails pgliteInternals.test.ts, not a pipeline in production. Both
 * packages are pinned to exact versions in supabase/package.json for the same reason. What we
 * would ask upstream for instead is in docs/architecture.md ("Private APIs we use").
 */

/**
 * Runs `fn` holding both of PGlite's locks (its transaction lock and its query lock), as its own
 * `transaction()` and `query()` take them: no other query, and no open transaction, can
 * interleave with what `fn` sends through execProtocolRawStream. PGlite has no public call that
 * takes them for a raw protocol exchange.
 */
export function exclusively<T>(db: PGlite, fn: () => Promise<T>): Promise<T> {
  return db._runExclusiveTransaction(() => db._runExclusiveQuery(fn));
}

/**
 * node-postgres's protocol parser: it turns PostgreSQL's raw answer into messages. pg-protocol
 * exports only `parse` over a stream; the class that parses a buffer in place is in its dist.
 */
export const ProtocolParser = Parser;
