import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestIdentity } from '../db/caller';
import type { Statement } from '../db/database';
import { sendEmpty, sendJson } from '../http/io';
import type { RestContext } from './context';
import type { Relation } from './catalog';
import { SINGLE_OBJECT, readPlan, wantsSingle } from './plan';
import { renderRead } from './render';
import { contentRange, singleOrThrow } from './respond';
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
  const plan = readPlan(req, rel, url);
  const { rows, count } = renderRead(ctx.getCatalog(), plan);
  // The rows and the count, one round trip. Planned for this request's values: the statements are
  // prepared once per connection, and a plan made for any values (which PostgreSQL switches to
  // after five runs) can walk the wrong index for a range the values make wide.
  const statements = [CUSTOM_PLANS, ...(rows ? [rows] : []), ...(count ? [count] : [])];
  const tolerant = tolerantRead(ctx.getCatalog(), plan);
  const answers = (await ctx.pipeline(who, req, url.pathname, true, statements, tolerant)) as {
    body: string;
    n: number;
  }[][];
  answers.shift();
  const got = rows ? answers.shift()![0]! : { body: '', n: 0 };
  const total = count ? answers[0]![0]!.n : undefined;
  const offset = plan.offset ?? 0;
  if (plan.head) return sendEmpty(res, 200, { 'Content-Range': contentRange(offset, 0, total) });
  const body = singleOrThrow(req, got.body, got.n);
  const headers = {
    'Content-Range': contentRange(offset, got.n, total),
    ...(wantsSingle(req) ? { 'Content-Type': `${SINGLE_OBJECT}; charset=utf-8` } : {}),
  };
  sendJson(res, total !== undefined && got.n < total ? 206 : 200, body, headers);
}
