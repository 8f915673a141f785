import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestIdentity } from '../db/caller';
import { sendEmpty, sendJson } from '../http/io';
import type { RestContext } from './context';
import { callPlan } from './plan';
import { renderCall } from './render';
import { singleOrThrow } from './respond';
import { WROTE_RESPONSE_HEADER, tolerantRead } from './replica';

/** POST /rpc/name (arguments as JSON) and GET /rpc/name (read-only, arguments in the query). */
export async function rpc(
  ctx: RestContext,
  req: IncomingMessage,
  res: ServerResponse,
  who: RequestIdentity,
  name: string,
  url: URL,
) {
  const plan = await callPlan(req, ctx.getCatalog(), name, url);
  const { fn } = plan;
  // A call that may write says so, so the browser then reads its own writes from the primary (rest/replica.ts).
  if (!plan.readOnly) res.setHeader(WROTE_RESPONSE_HEADER, '1');
  const viaGet = req.method === 'GET' || req.method === 'HEAD';
  const tolerant = viaGet && tolerantRead(ctx.getCatalog(), { fn });
  const [[row]] = (await ctx.pipeline(
    who,
    req,
    url.pathname,
    plan.readOnly,
    [renderCall(plan, ctx.maxRows)],
    tolerant,
  )) as [{ body: string; n: number }[]];
  if (fn.isVoid) return sendEmpty(res, 204);
  if (fn.returnsSet) return sendJson(res, 200, singleOrThrow(req, row!.body, row!.n));
  sendJson(res, 200, fn.returnsRow ? JSON.stringify((JSON.parse(row!.body) as unknown[])[0] ?? null) : row!.body);
}
