import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestIdentity } from '../db/caller';
import type { Statement } from '../db/database';
import { sendEmpty, sendJson } from '../http/io';
import type { RestContext } from './context';
import type { Relation } from './catalog';
import { parseSelect } from './parse';
import { contentRange, page, prefer, readShape, SINGLE_OBJECT, singleOrThrow } from './shape';
import { Params, projection, qualified } from './sql';
import { tolerantRead } from './replica';

const CUSTOM_PLANS: Statement = { text: "select set_config('plan_cache_mode', 'force_custom_plan', true)", values: [] };

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
  const select = parseSelect(url.searchParams.get('select') ?? '*');
  const cols = projection(ctx.getCatalog(), rel, 't0', select);
  const shape = readShape(rel, url, params);
  const wantCount = prefer(req).get('count');
  const head = req.method === 'HEAD';
  // The rows (none for HEAD, which wants only the count) and the count when asked: one round trip.
  // Planned for this request's values: the statements are prepared once per connection, and a plan
  // made for any values (which PostgreSQL switches to after five runs) can walk the wrong index
  // for a range the values make wide.
  const statements: Statement[] = [CUSTOM_PLANS];
  if (!head)
    statements.push({
      text: `select coalesce(json_agg(_r), '[]')::text as body, count(*)::int as n
           from (select ${cols} from ${qualified(rel.name)} t0${shape.where}${shape.order}${page(shape)}) _r`,
      values: params.values,
    });
  if (wantCount)
    statements.push({
      text: `select count(*)::int as n from ${qualified(rel.name)} t0${shape.where}`,
      values: params.values,
    });
  const tolerant = tolerantRead(ctx.getCatalog(), { relation: rel, select });
  const answers = (await ctx.pipeline(who, req, url.pathname, true, statements, tolerant)) as {
    body: string;
    n: number;
  }[][];
  answers.shift();
  const rows = head ? { body: '', n: 0 } : answers.shift()![0]!;
  const result = { ...rows, total: wantCount ? answers[0]![0]!.n : undefined };
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
