import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestIdentity } from '../db/caller';
import { sendEmpty, sendJson } from '../http/io';
import type { RestContext } from './context';
import type { Relation } from './catalog';
import { mutatePlan } from './plan';
import { renderMutate } from './render';
import { singleOrThrow } from './respond';

type Answer = { body: string; n: number };

/** POST (insert, upsert), PATCH and DELETE of a table, returning the representation when asked. */
export async function write(
  ctx: RestContext,
  req: IncomingMessage,
  res: ServerResponse,
  who: RequestIdentity,
  rel: Relation,
  url: URL,
) {
  const plan = await mutatePlan(req, rel, url);
  const statement = renderMutate(ctx.getCatalog(), plan);
  // A .single() write that touched other than one row is rolled back, as PostgREST does: that one
  // decides between commit and rollback, so it holds its transaction open; any other write is one round trip.
  const answer =
    plan.returnRows && plan.single
      ? await ctx.run(who, req, url.pathname, false, async (tx) => {
          const [row] = await tx.query<Answer>(statement.text, statement.values);
          singleOrThrow(req, row!.body, row!.n);
          return row!;
        })
      : ((await ctx.pipeline(who, req, url.pathname, false, [statement]))[0]![0] as Answer);
  const status = req.method === 'POST' ? 201 : plan.returnRows ? 200 : 204;
  const headers = { 'Content-Range': `*/${answer.n}` };
  if (!plan.returnRows) return sendEmpty(res, status, headers);
  sendJson(res, status, singleOrThrow(req, answer.body, answer.n), headers);
}
