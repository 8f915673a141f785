import type { IncomingMessage } from 'node:http';
import type { RequestIdentity } from '../db/caller';
import type { Catalog, DbFunction, Relation } from './catalog';
import type { SelectItem } from './parse';

/**
 * Which reads may come from a replica, decided here and only here, from what the database declares
 * of each object rather than from a list: a GET of a relation every signed-in user reads alike
 * (Relation.everyone: the market, the book and tape, candles, the index, public profiles), with
 * each relation it embeds alike; and a GET of a function declared stable or immutable (a client
 * asks for one with GET, as supabase-js's `rpc(name, args, { get: true })`: Portfolio Analysis,
 * statements, candles, price history). Writes, and the caller's own rows (cash, holdings, orders:
 * relations with per-user policies, or functions called with POST), go to the primary.
 */
export function tolerantRead(
  catalog: Catalog,
  target: { relation: Relation; select: SelectItem[] } | { fn: DbFunction },
): boolean {
  if ('fn' in target) return target.fn.readsOnly;
  const alike = (rel: Relation | undefined, select: SelectItem[]): boolean =>
    !!rel?.everyone &&
    select.every((item) => item.kind !== 'embed' || alike(catalog.relations.get(item.relation), item.select));
  return alike(target.relation, target.select);
}

/** The header a browser sends with its reads for a while after it wrote: how many ms ago it last wrote. */
const WROTE_HEADER = 'x-repx-wrote-ms-ago';
/** The header of an answer to a request that may have written (a volatile function, a table's write). */
export const WROTE_RESPONSE_HEADER = 'X-Repx-Wrote';

/**
 * Read-your-writes, as Supabase's read replicas advise: a session that wrote within the replica's
 * allowed lag reads from the primary, so it never sees a book or a balance older than its own last
 * action. The browser says when it last wrote (WROTE_HEADER, from any tab: the platform keeps it
 * with the session), which holds whichever host or process serves the read; a write this process
 * made for the session counts too, for clients that do not send it.
 */
export class RecentWrites {
  private readonly at = new Map<string, number>();

  constructor(private readonly windowMs: number) {}

  /** A write by this caller, now. */
  wrote(who: RequestIdentity): void {
    const key = sessionOf(who);
    if (!key) return;
    this.at.set(key, Date.now());
    if (this.at.size > 10_000) for (const [k, t] of this.at) if (Date.now() - t > this.windowMs) this.at.delete(k);
  }

  /** Whether this caller wrote within the window: by its own word, or by this process's memory. */
  recent(who: RequestIdentity, req: IncomingMessage): boolean {
    const said = Number(req.headers[WROTE_HEADER]);
    if (Number.isFinite(said) && said >= 0 && said < this.windowMs) return true;
    const key = sessionOf(who);
    const t = key ? this.at.get(key) : undefined;
    return t !== undefined && Date.now() - t < this.windowMs;
  }
}

const sessionOf = (who: RequestIdentity) =>
  typeof who.claims.session_id === 'string' ? who.claims.session_id : undefined;
