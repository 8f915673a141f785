import type { IncomingMessage } from 'node:http';
import type { Relation } from './catalog';
import { restError } from './errors';
import { parseFilter, parseNonNegativeInt, parseOrder, type Condition } from './parse';
import { Params, condition, orderBy } from './sql';

/** From request to plan: what a PostgREST request asks for, before any SQL runs. */
export const RESERVED = new Set(['select', 'order', 'limit', 'offset', 'columns', 'on_conflict']);
export const SINGLE_OBJECT = 'application/vnd.pgrst.object+json';

export interface ReadShape {
  where: string;
  order: string;
  limit?: number;
  offset?: number;
}

export function prefer(req: IncomingMessage): Map<string, string> {
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

export function readShape(rel: Relation, url: URL, params: Params, skip: Set<string> = new Set()): ReadShape {
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

export const page = (s: ReadShape) =>
  `${s.limit !== undefined ? ` limit ${s.limit}` : ''}${s.offset ? ` offset ${s.offset}` : ''}`;

export function contentRange(offset: number, rows: number, total?: number): string {
  const range = rows > 0 ? `${offset}-${offset + rows - 1}` : '*';
  return `${range}/${total ?? '*'}`;
}

/** A `.single()` answer: exactly one row, or 406 as PostgREST says it. */
export function singleOrThrow(req: IncomingMessage, body: string, n: number): string {
  if (!String(req.headers.accept ?? '').includes(SINGLE_OBJECT)) return body;
  if (n !== 1) {
    throw restError(
      406,
      'PGRST116',
      'Cannot coerce the result to a single JSON object',
      `The result contains ${n} rows`,
    );
  }
  return JSON.stringify((JSON.parse(body) as unknown[])[0]);
}
