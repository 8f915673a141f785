import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Database } from '../db/database';
import type { Replica } from '../db/replica';
import type { RequestIdentity } from '../db/caller';
import { HttpError } from '../http/io';
import type { Catalog } from './catalog';
import { restContext } from './context';
import { restError } from './errors';
import { read } from './read';
import { rpc } from './rpc';
import { requireRelation } from './plan';
import { WROTE_RESPONSE_HEADER } from './replica';
import { write } from './write';

export type { RequestIdentity };

/** The /rest/v1 subset of PostgREST that postgrest-js uses: request -> plan (plan.ts) -> SQL (render.ts) -> answer (read.ts, write.ts, rpc.ts). */
export function restRoutes(
  db: Database,
  getCatalog: () => Catalog,
  { log, maxRows }: { log?: (line: string) => void; maxRows?: number },
  replica?: Replica,
) {
  const ctx = { ...restContext(db, getCatalog, log, replica), maxRows };
  return async function handle(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    url: URL,
    who: RequestIdentity,
  ) {
    const profile = req.headers['accept-profile'] ?? req.headers['content-profile'];
    if (profile && profile !== 'public') {
      throw restError(406, 'PGRST106', 'The schema must be one of the following: public');
    }
    const rpcMatch = /^\/rpc\/([A-Za-z_][A-Za-z0-9_]*)$/.exec(path);
    if (rpcMatch) {
      if (!['GET', 'HEAD', 'POST'].includes(req.method ?? ''))
        throw new HttpError(405, { message: 'Method not allowed' });
      return rpc(ctx, req, res, who, rpcMatch[1]!, url);
    }
    const relMatch = /^\/([A-Za-z_][A-Za-z0-9_]*)$/.exec(path);
    if (!relMatch) throw restError(404, 'PGRST125', `Invalid path specified in request URL: ${path}`);
    const rel = requireRelation(ctx.getCatalog(), relMatch[1]!);
    if (req.method === 'GET' || req.method === 'HEAD') return read(ctx, req, res, who, rel, url);
    if (req.method === 'POST' || req.method === 'PATCH' || req.method === 'DELETE') {
      res.setHeader(WROTE_RESPONSE_HEADER, '1');
      return write(ctx, req, res, who, rel, url);
    }
    throw new HttpError(405, { message: 'Method not allowed' });
  };
}
