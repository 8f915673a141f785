import type { IncomingMessage } from 'node:http';
import { readJson } from '../http/io';
import type { Catalog, DbFunction, Relation } from './catalog';
import { parseError, restError } from './errors';
import {
  parseFilter,
  parseNonNegativeInt,
  parseOrder,
  parseSelect,
  type Condition,
  type OrderTerm,
  type SelectItem,
} from './parse';

/**
 * From request to plan, as PostgREST does it: what a request asks for (read, mutate or call),
 * checked against the catalog, and no SQL. render.ts alone turns a plan into SQL; read.ts,
 * write.ts and rpc.ts run it and answer.
 *
 * A plan holds names the catalog knows (a relation, a function, its parameters) and values; a
 * value is never SQL. A cast is one of parse.ts's keywords, and a GET argument is a parameter of
 * the function by name, whatever its value looks like ('a.b' included), never a filter.
 */

const RESERVED = new Set(['select', 'order', 'limit', 'offset', 'columns', 'on_conflict']);
export const SINGLE_OBJECT = 'application/vnd.pgrst.object+json';

/** Which rows, in which order, which page: a read's, or a set-returning call's result's. */
export interface RowWindow {
  filters: Condition[];
  order: OrderTerm[];
  limit?: number;
  offset?: number;
}

export interface ReadPlan extends RowWindow {
  kind: 'read';
  relation: Relation;
  select: SelectItem[];
  /** No rows, only the count (HEAD). */
  head: boolean;
  /**
   * The count asked for, as PostgREST counts: `exact` counts every match; `planned` is the
   * planner's estimate; `estimated` counts exactly up to `[api] max_rows` and past it gives the
   * estimate, so a wide match costs no more than max_rows rows.
   */
  count?: CountMethod;
}

type CountMethod = 'exact' | 'planned' | 'estimated';
const COUNT_METHODS: readonly string[] = ['exact', 'planned', 'estimated'] satisfies CountMethod[];

export type MutatePlan = { relation: Relation; select: SelectItem[]; returnRows: boolean; single: boolean } & (
  | { kind: 'insert'; columns: string[]; rows: unknown[]; onConflict?: { target: string[]; ignore: boolean } }
  | { kind: 'update'; filters: Condition[]; values: Record<string, unknown> }
  | { kind: 'delete'; filters: Condition[] }
);

export interface CallPlan extends RowWindow {
  kind: 'call';
  fn: DbFunction;
  args: { name: string; type: string; value: unknown }[];
  /** The columns of a set or row result, when the catalog has them, so it can be filtered and ordered. */
  result?: Relation;
  readOnly: boolean;
}

function prefer(req: IncomingMessage): Map<string, string> {
  const map = new Map<string, string>();
  for (const part of String(req.headers.prefer ?? '').split(',')) {
    const [k, v] = part.trim().split('=');
    if (k) map.set(k, v ?? '');
  }
  return map;
}

export const wantsSingle = (req: IncomingMessage) => String(req.headers.accept ?? '').includes(SINGLE_OBJECT);

export function requireRelation(catalog: Catalog, name: string): Relation {
  const rel = catalog.relations.get(name);
  if (!rel) throw restError(404, 'PGRST205', `Could not find the table 'public.${name}' in the schema cache`);
  return rel;
}

function requireColumns(rel: Relation, columns: string[]): void {
  for (const c of columns) {
    if (!rel.columns.has(c))
      throw restError(400, 'PGRST204', `Could not find the '${c}' column of '${rel.name}' in the schema cache`);
  }
}

/** The query's filters, order and page; `skip` names parameters that are a call's arguments. */
function rowWindow(url: URL, skip: Set<string> = new Set()): RowWindow {
  const filters: Condition[] = [];
  for (const [key, value] of url.searchParams) {
    if (RESERVED.has(key) || skip.has(key) || /\.(order|limit|offset)$/.test(key)) continue;
    filters.push(parseFilter(key, value));
  }
  const order = url.searchParams.get('order');
  return {
    filters,
    order: order ? parseOrder(order) : [],
    limit: parseNonNegativeInt('limit', url.searchParams.get('limit')),
    offset: parseNonNegativeInt('offset', url.searchParams.get('offset')),
  };
}

const selected = (url: URL) => parseSelect(url.searchParams.get('select') ?? '*');

/** GET and HEAD of a table or view. */
export function readPlan(req: IncomingMessage, relation: Relation, url: URL): ReadPlan {
  return {
    kind: 'read',
    relation,
    select: selected(url),
    ...rowWindow(url),
    head: req.method === 'HEAD',
    count: countMethod(prefer(req).get('count')),
  };
}

/** PostgREST ignores a preference it does not know. */
function countMethod(value: string | undefined): CountMethod | undefined {
  return value !== undefined && COUNT_METHODS.includes(value) ? (value as CountMethod) : undefined;
}

/** POST (insert, upsert), PATCH and DELETE of a table. */
export async function mutatePlan(req: IncomingMessage, relation: Relation, url: URL): Promise<MutatePlan> {
  const prefs = prefer(req);
  const common = {
    relation,
    select: selected(url),
    returnRows: prefs.get('return') === 'representation',
    single: wantsSingle(req),
  };
  if (req.method === 'POST') {
    const body = await readJson(req);
    const rows = Array.isArray(body) ? body : body && typeof body === 'object' ? [body] : null;
    if (!rows) throw restError(400, 'PGRST102', 'Empty or invalid json');
    const listed = url.searchParams.get('columns');
    const columns = listed
      ? listed.split(',').map((c) => c.replace(/^"|"$/g, ''))
      : [...new Set(rows.flatMap((r) => Object.keys(r as object)))];
    requireColumns(relation, columns);
    const resolution = prefs.get('resolution');
    const target = url.searchParams.get('on_conflict')?.split(',') ?? relation.primaryKey;
    if (resolution) requireColumns(relation, target);
    const onConflict = resolution ? { target, ignore: resolution === 'ignore-duplicates' } : undefined;
    return { ...common, kind: 'insert', columns, rows, onConflict };
  }
  const { filters } = rowWindow(url);
  if (!filters.length) {
    throw restError(400, '21000', `${req.method === 'PATCH' ? 'UPDATE' : 'DELETE'} requires a WHERE clause`);
  }
  if (req.method === 'DELETE') return { ...common, kind: 'delete', filters };
  const body = await readJson(req);
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw restError(400, 'PGRST102', 'Empty or invalid json');
  const values = body as Record<string, unknown>;
  if (!Object.keys(values).length) throw restError(400, 'PGRST102', 'An update needs at least one column to change.');
  requireColumns(relation, Object.keys(values));
  return { ...common, kind: 'update', filters, values };
}

/** POST /rpc/name (arguments as JSON) and GET /rpc/name (read-only, arguments in the query). */
export async function callPlan(req: IncomingMessage, catalog: Catalog, name: string, url: URL): Promise<CallPlan> {
  const viaGet = req.method === 'GET' || req.method === 'HEAD';
  const given: Record<string, unknown> = {};
  if (viaGet) {
    const names = new Set((catalog.functions.get(name) ?? []).flatMap((f) => f.args.map((a) => a.name)));
    for (const [k, v] of url.searchParams) if (!RESERVED.has(k) && names.has(k)) given[k] = v;
  } else {
    const body = await readJson(req);
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
      throw restError(400, 'PGRST102', 'The body of an RPC call must be a JSON object of named arguments');
    }
    Object.assign(given, body);
  }
  const fn = pickFunction(catalog, name, Object.keys(given));
  const args = Object.entries(given).map(([k, value]) => {
    const type = fn.args.find((a) => a.name === k)!.type;
    if (type.endsWith('[]') && value !== null && value !== undefined && !Array.isArray(value))
      throw parseError(`Expected an array for a parameter of type ${type}`);
    return { name: k, type, value };
  });
  const result = fn.table ?? (fn.returnsSet || fn.returnsRow ? catalog.relations.get(fn.returnType) : undefined);
  return {
    kind: 'call',
    fn,
    args,
    result,
    // As PostgREST: a GET, or a function declared stable or immutable, runs read-only; only a
    // volatile function called with POST may write.
    readOnly: viaGet || fn.readsOnly,
    ...(result ? rowWindow(url, new Set(Object.keys(given))) : { filters: [], order: [] }),
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
