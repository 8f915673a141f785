import { parseError } from './errors';

/** The grammar of PostgREST's query string that postgrest-js produces, parsed into trees. */

export type SelectItem =
  | { kind: 'star' }
  | { kind: 'column'; name: string; alias?: string; cast?: Cast }
  | { kind: 'embed'; relation: string; alias?: string; inner: boolean; select: SelectItem[] };

export type Condition =
  | { kind: 'compare'; column: string; op: string; value: string; negate: boolean }
  | { kind: 'logic'; op: 'and' | 'or'; negate: boolean; items: Condition[] };

export interface OrderTerm {
  column: string;
  descending: boolean;
  nulls?: 'first' | 'last';
}

const IDENT = '[A-Za-z_][A-Za-z0-9_]*';

/** Splits on commas that are outside parentheses and double quotes. */
export function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\\' && quoted && i + 1 < text.length) {
      current += ch + text[++i];
      continue;
    }
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === '(') depth++;
    else if (!quoted && ch === ')') depth--;
    if (ch === ',' && depth === 0 && !quoted) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  if (depth !== 0 || quoted) throw parseError('Unbalanced parentheses or quotes', text);
  parts.push(current);
  return parts;
}

/** Bounds that keep a request's parsing and its SQL small: no client needs more. */
const MAX_SELECT_ITEMS = 100;
export const MAX_LOGIC_DEPTH = 10;

export function parseSelect(text: string): SelectItem[] {
  const cleaned = text.replace(/\s+(?=(?:[^"]*"[^"]*")*[^"]*$)/g, '');
  if (!cleaned) return [{ kind: 'star' }];
  const items = splitTopLevel(cleaned);
  if (items.length > MAX_SELECT_ITEMS) throw parseError(`A select may name at most ${MAX_SELECT_ITEMS} items.`);
  return items.map(parseSelectItem);
}

/**
 * The types a selected column may be cast to, as a client formats a value: a cast to a catalog
 * type (regclass, oid) would look objects up, and one the value cannot take is the request's error.
 * Written into the SQL as the lower-case keyword itself, never quoted: `"integer"` is no type, and
 * `"char"` is PostgreSQL's one-byte type, not SQL's char.
 */
const CAST_NAMES = [
  'text',
  'varchar',
  'char',
  'integer',
  'int',
  'int4',
  'bigint',
  'int8',
  'smallint',
  'int2',
  'numeric',
  'decimal',
  'real',
  'float4',
  'float8',
  'boolean',
  'bool',
  'date',
  'time',
  'timestamp',
  'timestamptz',
  'interval',
  'uuid',
  'json',
  'jsonb',
] as const;
type Cast = (typeof CAST_NAMES)[number];
const CASTS = new Set<string>(CAST_NAMES);

function parseSelectItem(item: string): SelectItem {
  if (item === '*') return { kind: 'star' };
  const embed = new RegExp(`^(?:(${IDENT}):)?(${IDENT})(?:!(${IDENT}))?(?:!(inner|left))?\\((.*)\\)$`, 's').exec(item);
  if (embed) {
    const [, alias, relation, hint, join, inner] = embed;
    const isInner = hint === 'inner' || join === 'inner';
    return { kind: 'embed', relation: relation!, alias, inner: isInner, select: parseSelect(inner!) };
  }
  const column = new RegExp(`^(?:(${IDENT}):)?(${IDENT})(?:::(${IDENT}))?$`).exec(item);
  if (column) {
    const cast = column[3];
    if (cast && !CASTS.has(cast.toLowerCase()))
      throw parseError(`A column cannot be cast to ${cast}.`, `Cast to one of: ${[...CASTS].join(', ')}.`);
    return { kind: 'column', alias: column[1], name: column[2]!, cast: cast?.toLowerCase() as Cast | undefined };
  }
  throw parseError(
    `failed to parse select parameter (${item})`,
    'This server supports columns, aliases, casts, * and embedded resources.',
  );
}

const OPERATORS = new Set(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'is', 'in', 'match', 'imatch']);

/** `[not.]op.value` */
function parseOperation(column: string, text: string): Condition {
  let negate = false;
  let rest = text;
  if (rest.startsWith('not.')) {
    negate = true;
    rest = rest.slice(4);
  }
  const dot = rest.indexOf('.');
  const op = dot < 0 ? rest : rest.slice(0, dot);
  if (!OPERATORS.has(op)) throw parseError(`unknown or unsupported operator "${op}" in filter on "${column}"`);
  const raw = dot < 0 ? '' : rest.slice(dot + 1);
  // A double-quoted value may hold the reserved characters , ( ) of the logic syntax.
  const value =
    op !== 'in' && raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"')
      ? raw.slice(1, -1).replace(/\\(.)/g, '$1')
      : raw;
  return { kind: 'compare', column, op, value, negate };
}

/** A filter query parameter: `col=[not.]op.value`, or `or=(...)`, `and=(...)`, `not.or=(...)`. */
export function parseFilter(key: string, value: string): Condition {
  const logic = /^(not\.)?(and|or)$/.exec(key);
  if (logic) return parseLogic(logic[2] as 'and' | 'or', !!logic[1], value);
  if (key.includes('.')) throw parseError(`Filtering on embedded resources is not supported: "${key}"`);
  return parseOperation(key, value);
}

function parseLogic(op: 'and' | 'or', negate: boolean, text: string, depth = 1): Condition {
  if (depth > MAX_LOGIC_DEPTH) throw parseError(`Logic trees (and, or) may nest at most ${MAX_LOGIC_DEPTH} levels.`);
  if (!text.startsWith('(') || !text.endsWith(')')) throw parseError(`"${op}" needs a list in parentheses`, text);
  const items = splitTopLevel(text.slice(1, -1)).map((part) => {
    const nested = /^(not\.)?(and|or)(\(.*\))$/s.exec(part);
    if (nested) return parseLogic(nested[2] as 'and' | 'or', !!nested[1], nested[3]!, depth + 1);
    const dot = part.indexOf('.');
    if (dot < 0) throw parseError(`failed to parse logic tree (${text})`);
    return parseOperation(part.slice(0, dot), part.slice(dot + 1));
  });
  return { kind: 'logic', op, negate, items };
}

export function parseOrder(text: string): OrderTerm[] {
  return splitTopLevel(text).map((term) => {
    const [column, ...mods] = term.split('.');
    if (!column || !new RegExp(`^${IDENT}$`).test(column)) throw parseError(`failed to parse order (${text})`);
    const t: OrderTerm = { column, descending: false };
    for (const m of mods) {
      if (m === 'desc') t.descending = true;
      else if (m === 'asc') t.descending = false;
      else if (m === 'nullsfirst') t.nulls = 'first';
      else if (m === 'nullslast') t.nulls = 'last';
      else throw parseError(`failed to parse order (${text})`);
    }
    return t;
  });
}

/** `(a,"b,c")` -> ['a', 'b,c'] */
export function parseList(value: string): string[] {
  if (!value.startsWith('(') || !value.endsWith(')')) throw parseError(`"in" needs a list in parentheses: ${value}`);
  const inner = value.slice(1, -1);
  if (!inner) return [];
  return splitTopLevel(inner).map((v) =>
    v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1).replace(/\\(.)/g, '$1') : v,
  );
}

export function parseNonNegativeInt(name: string, value: string | null): number | undefined {
  if (value === null) return undefined;
  if (!/^\d+$/.test(value)) throw parseError(`"${name}" must be a non-negative integer, got "${value}"`);
  return Number(value);
}
