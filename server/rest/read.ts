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

/** GET and HEAD of a table or view: rows as JSON, with their count when asked (PostgREST's three kinds). */
export async function read(
  ctx: RestContext,
  req: IncomingMessage,
  res: ServerResponse,
  who: RequestIdentity,
  rel: Relation,
  url: URL,
) {
  const plan = readPlan(req, rel, url);
  const { rows, counted, planned } = renderRead(ctx.getCatalog(), plan, ctx.maxRows);
  // The rows and the count, one round trip. Planned for this request's values: the statements are
  // prepared once per connection, and a plan made for any values (which PostgreSQL switches to
  // after five runs) can walk the wrong index for a range the values make wide.
  const statements = [CUSTOM_PLANS, rows, counted, planned].filter((s) => s !== undefined);
  const tolerant = tolerantRead(ctx.getCatalog(), plan);
  const answers = await ctx.pipeline(who, req, url.pathname, true, statements, tolerant);
  answers.shift();
  const got = rows ? (answers.shift()![0] as { body: string; n: number }) : { body: '', n: 0 };
  const exact = counted ? (answers.shift()![0] as { n: number }).n : undefined;
  const total = planned ? estimate(exact, plannedRows(answers[0]![0]!), ctx.maxRows) : exact;
  const offset = plan.offset ?? 0;
  if (plan.head) return sendEmpty(res, 200, { 'Content-Range': contentRange(offset, 0, total) });
  const body = singleOrThrow(req, got.body, got.n);
  const headers = {
    'Content-Range': contentRange(offset, got.n, total),
    ...(wantsSingle(req) ? { 'Content-Type': `${SINGLE_OBJECT}; charset=utf-8` } : {}),
  };
  sendJson(res, total !== undefined && got.n < total ? 206 : 200, body, headers);
}

/** The top node's rows in `explain (format json)`: the planner's estimate of the matches. */
function plannedRows(row: Record<string, unknown>): number {
  const value = Object.values(row)[0];
  const plan = (typeof value === 'string' ? JSON.parse(value) : value) as { Plan: { 'Plan Rows': number } }[];
  return Math.round(plan[0]!.Plan['Plan Rows']);
}

/**
 * A planned count is the estimate. An estimated count is exact up to `maxRows`; past it, the
 * estimate, which never says fewer than the rows already counted.
 */
function estimate(exact: number | undefined, planned: number, maxRows: number | undefined): number {
  if (exact === undefined || maxRows === undefined) return planned;
  return exact <= maxRows ? exact : Math.max(planned, exact);
}
