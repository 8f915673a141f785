import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Database, Queryable } from '../db/database';
import { isPgError } from '../db/database';
import { HttpError, readJson, sendEmpty, sendJson } from '../http/io';
import type { Catalog, DbFunction, Relation } from './catalog';
import { fromPgError, parseError, restError } from './errors';
import { parseFilter, parseNonNegativeInt, parseOrder, parseSelect, type Condition } from './parse';
import { Params, condition, ident, orderBy, projection, qualified, requireRelation } from './sql';
import { becomeCaller, httpContext, type RequestIdentity } from '../db/caller';

export type { RequestIdentity };


const RESERVED = new Set(['select', 'order', 'limit', 'offset', 'columns', 'on_conflict']);
const SINGLE_OBJECT = 'application/vnd.pgrst.object+json';

interface ReadShape {
  where: string;
  order: string;
  limit?: number;
  offset?: number;
}

function prefer(req: IncomingMessage): Map<string, string> {
  const map = new Map<string, string>();
  for (const part of String(req.headers.prefer ?? '').split(',')) {
    const [k, v] = part.trim().split('=');
    if (k) map.set(k, v ?? '');
  }
  return map;
}

function filters(url: URL): Condition[] {
  const conds: Condition[] = [];
  for (const [key, value] of url.searchParams) {
    if (RESERVED.has(key) || key.endsWith('.order') || key.endsWith('.limit') || key.endsWith('.offset')) continue;
    conds.push(parseFilter(key, value));
  }
  return conds;
}

function readShape(rel: Relation, url: URL, params: Params, skip: Set<string> = new Set()): ReadShape {
  const conds = filters(url).filter((c) => !(c.kind === 'compare' && skip.has(c.column)));
  const where = conds.map((c) => condition(rel, 't0', c, params)).join(' and ');
  const order = url.searchParams.get('order');
  return {
    where: where ? ` where ${where}` : '',
    order: order ? ` order by ${orderBy(rel, 't0', parseOrder(order))}` : '',
    limit: parseNonNegativeInt('limit', url.searchParams.get('limit')),
    offset: parseNonNegativeInt('offset', url.searchParams.get('offset')),
  };
}

const page = (s: ReadShape) => `${s.limit !== undefined ? ` limit ${s.limit}` : ''}${s.offset ? ` offset ${s.offset}` : ''}`;

function contentRange(offset: number, rows: number, total?: number): string {
  const range = rows > 0 ? `${offset}-${offset + rows - 1}` : '*';
  return `${range}/${total ?? '*'}`;
}

/** The /rest/v1 subset of PostgREST that postgrest-js uses. */
export function restRoutes(db: Database, getCatalog: () => Catalog, log?: (line: string) => void) {
  async function run<T>(who: RequestIdentity, req: IncomingMessage, path: string, readOnly: boolean, fn: (tx: Queryable) => Promise<T>) {
    try {
      return await db.transaction(async (tx) => {
        await becomeCaller(tx, who, httpContext(req, path), readOnly);
        return fn(tx);
      });
    } catch (error) {
      if (!isPgError(error)) throw error;
      const refusal = fromPgError(error, who.role);
      // The client sees a generic 500; the operator sees what the database said.
      if (refusal.status >= 500) log?.(`error ${req.method} ${path}: ${error.code} ${error.message}`);
      throw refusal;
    }
  }

  function singleOrThrow(req: IncomingMessage, body: string, n: number): string {
    if (!String(req.headers.accept ?? '').includes(SINGLE_OBJECT)) return body;
    if (n !== 1) {
      throw restError(406, 'PGRST116', 'Cannot coerce the result to a single JSON object', `The result contains ${n} rows`);
    }
    return JSON.stringify((JSON.parse(body) as unknown[])[0]);
  }

  async function read(req: IncomingMessage, res: ServerResponse, who: RequestIdentity, rel: Relation, url: URL) {
    const params = new Params();
    const cols = projection(getCatalog(), rel, 't0', parseSelect(url.searchParams.get('select') ?? '*'));
    const shape = readShape(rel, url, params);
    const wantCount = prefer(req).get('count');
    const head = req.method === 'HEAD';
    const result = await run(who, req, url.pathname, true, async (tx) => {
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
        const [c] = await tx.query<{ n: number }>(`select count(*)::int as n from ${qualified(rel.name)} t0${shape.where}`, params.values);
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
      ...(String(req.headers.accept ?? '').includes(SINGLE_OBJECT) ? { 'Content-Type': `${SINGLE_OBJECT}; charset=utf-8` } : {}),
    };
    sendJson(res, partial ? 206 : 200, body, headers);
  }

  async function write(req: IncomingMessage, res: ServerResponse, who: RequestIdentity, rel: Relation, url: URL) {
    const params = new Params();
    const prefs = prefer(req);
    const representation = prefs.get('return') === 'representation';
    const catalog = getCatalog();
    let statement: string;
    if (req.method === 'POST') {
      const body = await readJson(req);
      const rows = Array.isArray(body) ? body : body && typeof body === 'object' ? [body] : null;
      if (!rows) throw restError(400, 'PGRST102', 'Empty or invalid json');
      const listed = url.searchParams.get('columns');
      const columns = listed
        ? listed.split(',').map((c) => c.replace(/^"|"$/g, ''))
        : [...new Set(rows.flatMap((r) => Object.keys(r as object)))];
      for (const c of columns) {
        if (!rel.columns.has(c)) throw restError(400, 'PGRST204', `Could not find the '${c}' column of '${rel.name}' in the schema cache`);
      }
      const list = columns.map(ident).join(', ');
      let conflict = '';
      const resolution = prefs.get('resolution');
      if (resolution) {
        const target = url.searchParams.get('on_conflict')?.split(',') ?? rel.primaryKey;
        const updates = columns.filter((c) => !target.includes(c)).map((c) => `${ident(c)} = excluded.${ident(c)}`);
        conflict = ` on conflict (${target.map(ident).join(', ')}) ${
          resolution === 'ignore-duplicates' || !updates.length ? 'do nothing' : `do update set ${updates.join(', ')}`
        }`;
      }
      // Rows of {} take every column's default, as PostgREST does (no column list at all).
      statement = `insert into ${qualified(rel.name)}${list ? ` (${list})` : ''}
        select ${list} from json_populate_recordset(null::${qualified(rel.name)}, ${params.add(JSON.stringify(rows), 'json')})${conflict}
        returning *`;
    } else {
      const shape = readShape(rel, url, params);
      if (!shape.where) {
        throw restError(400, '21000', `${req.method === 'PATCH' ? 'UPDATE' : 'DELETE'} requires a WHERE clause`);
      }
      if (req.method === 'PATCH') {
        const body = await readJson(req);
        if (!body || typeof body !== 'object' || Array.isArray(body)) throw restError(400, 'PGRST102', 'Empty or invalid json');
        const columns = Object.keys(body);
        if (!columns.length) throw restError(400, 'PGRST102', 'An update needs at least one column to change.');
        for (const c of columns) {
          if (!rel.columns.has(c)) throw restError(400, 'PGRST204', `Could not find the '${c}' column of '${rel.name}' in the schema cache`);
        }
        const sets = columns.map((c) => `${ident(c)} = _v.${ident(c)}`).join(', ');
        statement = `update ${qualified(rel.name)} t0 set ${sets}
          from json_populate_record(null::${qualified(rel.name)}, ${params.add(JSON.stringify(body), 'json')}) _v${shape.where} returning t0.*`;
      } else {
        statement = `delete from ${qualified(rel.name)} t0${shape.where} returning t0.*`;
      }
    }
    const cols = projection(catalog, rel, 't0', parseSelect(url.searchParams.get('select') ?? '*'));
    const result = await run(who, req, url.pathname, false, async (tx) => {
      const [row] = await tx.query<{ body: string; n: number }>(
        `with _m as (${statement}) select coalesce(json_agg(_r), '[]')::text as body, count(*)::int as n
         from (select ${cols} from _m t0) _r`,
        params.values,
      );
      // A .single() write that touched other than one row is rolled back, as PostgREST does.
      const body = representation ? singleOrThrow(req, row!.body, row!.n) : '';
      return { body, n: row!.n };
    });
    const status = req.method === 'POST' ? 201 : representation ? 200 : 204;
    const headers = { 'Content-Range': `*/${result.n}` };
    if (!representation) return sendEmpty(res, status, headers);
    sendJson(res, status, result.body, headers);
  }

  async function rpc(req: IncomingMessage, res: ServerResponse, who: RequestIdentity, name: string, url: URL) {
    const readOnly = req.method === 'GET' || req.method === 'HEAD';
    let args: Record<string, unknown>;
    if (readOnly) {
      args = {};
      for (const [k, v] of url.searchParams) if (!RESERVED.has(k) && !/^[a-z_]+\..+/.test(v)) args[k] = v;
    } else {
      const body = await readJson(req);
      if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
        throw restError(400, 'PGRST102', 'The body of an RPC call must be a JSON object of named arguments');
      }
      args = (body ?? {}) as Record<string, unknown>;
    }
    const fn = pickFunction(getCatalog(), name, Object.keys(args));
    const params = new Params();
    const call = `public.${ident(fn.name)}(${Object.entries(args)
      .map(([k, v]) => `${ident(k)} := ${argument(params, fn.args.find((a) => a.name === k)!.type, v)}`)
      .join(', ')})`;
    const { body, n } = await run(who, req, url.pathname, readOnly, async (tx) => {
      if (fn.isVoid) {
        await tx.query(`select ${call}`, params.values);
        return { body: '', n: 0 };
      }
      if (fn.returnsSet || fn.returnsRow) {
        const rel = resultRelation(fn);
        const skip = new Set(Object.keys(args));
        const shape = rel ? readShape(rel, url, params, skip) : { where: '', order: '' };
        const [row] = await tx.query<{ body: string; n: number }>(
          `select coalesce(json_agg(_r), '[]')::text as body, count(*)::int as n
           from (select t0.* from ${call} t0${shape.where}${shape.order}${page(shape)}) _r`,
          params.values,
        );
        if (!fn.returnsSet) return { body: JSON.stringify((JSON.parse(row!.body) as unknown[])[0] ?? null), n: -1 };
        return { body: row!.body, n: row!.n };
      }
      const [row] = await tx.query<{ body: string }>(`select to_json(${call})::text as body`, params.values);
      return { body: row!.body, n: -1 };
    });
    if (fn.isVoid) return sendEmpty(res, 204);
    sendJson(res, 200, n >= 0 ? singleOrThrow(req, body, n) : body);
  }

  /** The columns a set-returning function yields, so its result can be filtered and ordered. */
  function resultRelation(fn: DbFunction): Relation | undefined {
    return getCatalog().relations.get(fn.returnType);
  }

  return async function handle(req: IncomingMessage, res: ServerResponse, path: string, url: URL, who: RequestIdentity) {
    const profile = req.headers['accept-profile'] ?? req.headers['content-profile'];
    if (profile && profile !== 'public') {
      throw restError(406, 'PGRST106', 'The schema must be one of the following: public');
    }
    const rpcMatch = /^\/rpc\/([A-Za-z_][A-Za-z0-9_]*)$/.exec(path);
    if (rpcMatch) {
      if (!['GET', 'HEAD', 'POST'].includes(req.method ?? '')) throw new HttpError(405, { message: 'Method not allowed' });
      return rpc(req, res, who, rpcMatch[1]!, url);
    }
    const relMatch = /^\/([A-Za-z_][A-Za-z0-9_]*)$/.exec(path);
    if (!relMatch) throw restError(404, 'PGRST125', `Invalid path specified in request URL: ${path}`);
    const rel = requireRelation(getCatalog(), relMatch[1]!);
    if (req.method === 'GET' || req.method === 'HEAD') return read(req, res, who, rel, url);
    if (req.method === 'POST' || req.method === 'PATCH' || req.method === 'DELETE') return write(req, res, who, rel, url);
    throw new HttpError(405, { message: 'Method not allowed' });
  };
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
