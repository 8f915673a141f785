import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestIdentity } from '../db/caller';
import { readJson, sendEmpty, sendJson } from '../http/io';
import type { RestContext } from './context';
import type { Catalog, DbFunction, Relation } from './catalog';
import { parseError, restError } from './errors';
import { RESERVED, page, readShape, singleOrThrow } from './shape';
import { Params, ident } from './sql';
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
  const viaGet = req.method === 'GET' || req.method === 'HEAD';
  let args: Record<string, unknown>;
  if (viaGet) {
    // As PostgREST: a query parameter named as one of the function's parameters is an argument,
    // whatever its value looks like ('a.b' included); any other is a filter on its result.
    const names = new Set((ctx.getCatalog().functions.get(name) ?? []).flatMap((f) => f.args.map((a) => a.name)));
    args = {};
    for (const [k, v] of url.searchParams) if (!RESERVED.has(k) && names.has(k)) args[k] = v;
  } else {
    const body = await readJson(req);
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
      throw restError(400, 'PGRST102', 'The body of an RPC call must be a JSON object of named arguments');
    }
    args = (body ?? {}) as Record<string, unknown>;
  }
  const fn = pickFunction(ctx.getCatalog(), name, Object.keys(args));
  // As PostgREST: a GET, or a function declared stable or immutable, runs read-only; only a
  // volatile function called with POST may write, and its answer says so (the browser then reads
  // its own writes from the primary: rest/replica.ts).
  const readOnly = viaGet || fn.readsOnly;
  if (!readOnly) res.setHeader(WROTE_RESPONSE_HEADER, '1');
  const params = new Params();
  const call = `public.${ident(fn.name)}(${Object.entries(args)
    .map(([k, v]) => `${ident(k)} := ${argument(params, fn.args.find((a) => a.name === k)!.type, v)}`)
    .join(', ')})`;
  // One statement per kind of function: no rows (void), rows to filter and page (a set or a row
  // type), or one value; run with the caller's statement in one round trip.
  let text: string;
  if (fn.isVoid) text = `select ${call}`;
  else if (fn.returnsSet || fn.returnsRow) {
    const rel = resultRelation(ctx, fn);
    const skip = new Set(Object.keys(args));
    const shape = rel ? readShape(rel, url, params, skip) : { where: '', order: '' };
    text = `select coalesce(json_agg(_r), '[]')::text as body, count(*)::int as n
         from (select t0.* from ${call} t0${shape.where}${shape.order}${page(shape)}) _r`;
  } else text = `select to_json(${call})::text as body`;
  const tolerant = viaGet && tolerantRead(ctx.getCatalog(), { fn });
  const [[row]] = (await ctx.pipeline(
    who,
    req,
    url.pathname,
    readOnly,
    [{ text, values: params.values }],
    tolerant,
  )) as [{ body: string; n: number }[]];
  if (fn.isVoid) return sendEmpty(res, 204);
  if (fn.returnsSet) return sendJson(res, 200, singleOrThrow(req, row!.body, row!.n));
  sendJson(res, 200, fn.returnsRow ? JSON.stringify((JSON.parse(row!.body) as unknown[])[0] ?? null) : row!.body);
}

/** The columns a set-returning function yields, so its result can be filtered and ordered. */
function resultRelation(ctx: RestContext, fn: DbFunction): Relation | undefined {
  return ctx.getCatalog().relations.get(fn.returnType);
}

function pickFunction(catalog: Catalog, name: string, given: string[]): DbFunction {
  const candidates = catalog.functions.get(name) ?? [];
  const fn = candidates.find(
    (f) =>
      given.every((g) => f.args.some((a) => a.name === g)) &&
      f.args.slice(0, f.requiredArgs).every((a) => given.includes(a.name)),
  );
  if (!fn) {
    throw restError(
      404,
      'PGRST202',
      `Could not find the function public.${name}(${given.join(', ')}) in the schema cache`,
      null,
      candidates.length ? `Expected arguments: ${candidates[0]!.args.map((a) => a.name).join(', ')}` : null,
    );
  }
  return fn;
}

/** An RPC argument, passed as text and cast to the parameter's type (JSON for json and arrays). */
function argument(params: Params, type: string, value: unknown): string {
  if (value === null || value === undefined) return `null::${type}`;
  if (type.endsWith('[]')) {
    if (!Array.isArray(value)) throw parseError(`Expected an array for a parameter of type ${type}`);
    return `array(select json_array_elements_text(${params.add(JSON.stringify(value), 'json')}))::${type}`;
  }
  if (typeof value === 'object') return params.add(JSON.stringify(value), type);
  return params.add(String(value), type);
}
