import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestIdentity } from '../db/caller';
import { sendEmpty, sendJson } from '../http/io';
import type { RestContext } from './context';
import type { Relation } from './catalog';
import { parseSelect } from './parse';
import { contentRange, page, prefer, readShape, SINGLE_OBJECT, singleOrThrow } from './shape';
import { Params, projection, qualified } from './sql';

/** GET and HEAD of a table or view: rows as JSON, with an exact count when asked. */
export async function read(
  ctx: RestContext,
  req: IncomingMessage,
  res: ServerResponse,
  who: RequestIdentity,
  rel: Relation,
  url: URL,
) {
  const params = new Params();
  const cols = projection(ctx.getCatalog(), rel, 't0', parseSelect(url.searchParams.get('select') ?? '*'));
  const shape = readShape(rel, url, params);
  const wantCount = prefer(req).get('count');
  const head = req.method === 'HEAD';
  const result = await ctx.run(who, req, url.pathname, true, async (tx) => {
    // HEAD wants only the count (Content-Range): no rows are built.
    const [row] = head
      ? [{ body: '', n: 0 }]
      : await tx.query<{ body: string; n: number }>(
          `select coalesce(json_agg(_r), '[]')::text as body, count(*)::int as n
           from (select ${cols} from ${qualified(rel.name)} t0${shape.where}${shape.order}${page(shape)}) _r`,
          params.values,
        );
    let total: number | undefined;
    if (wantCount) {
      const [c] = await tx.query<{ n: number }>(
        `select count(*)::int as n from ${qualified(rel.name)} t0${shape.where}`,
        params.values,
      );
      total = c!.n;
    }
    return { body: row!.body, n: row!.n, total };
  });
  const offset = shape.offset ?? 0;
  if (head) return sendEmpty(res, 200, { 'Content-Range': contentRange(offset, 0, result.total) });
  const body = singleOrThrow(req, result.body, result.n);
  const partial = result.total !== undefined && result.n < result.total;
  const headers = {
    'Content-Range': contentRange(offset, result.n, result.total),
    ...(String(req.headers.accept ?? '').includes(SINGLE_OBJECT)
      ? { 'Content-Type': `${SINGLE_OBJECT}; charset=utf-8` }
      : {}),
  };
  sendJson(res, partial ? 206 : 200, body, headers);
}
