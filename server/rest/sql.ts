import type { Catalog, Relation } from './catalog';
import { parseError, restError } from './errors';
import { parseList, type Condition, type OrderTerm, type SelectItem } from './parse';
import { quoteIdent as ident } from '../db/quote';

export { ident };
export const qualified = (name: string) => `public.${ident(name)}`;

/** Collects query parameters as $1, $2... */
export class Params {
  readonly values: unknown[] = [];
  /** A typed parameter is sent as text and cast by the database, so a value of the wrong type is a 400 (22P02), not a driver error. */
  add(value: unknown, type?: string): string {
    this.values.push(value);
    return type ? `$${this.values.length}::text::${type}` : `$${this.values.length}`;
  }
}

export function requireRelation(catalog: Catalog, name: string): Relation {
  const rel = catalog.relations.get(name);
  if (!rel) {
    throw restError(404, 'PGRST205', `Could not find the table 'public.${name}' in the schema cache`);
  }
  return rel;
}

function requireColumn(rel: Relation, column: string): string {
  const type = rel.columns.get(column);
  if (!type) throw restError(400, '42703', `column ${rel.name}.${column} does not exist`);
  return type;
}

/** The select list for rows of `rel` aliased `alias`, with embedded resources as sub-queries. */
export function projection(catalog: Catalog, rel: Relation, alias: string, items: SelectItem[], depth = 0): string {
  return items
    .map((item) => {
      if (item.kind === 'star') return `${alias}.*`;
      if (item.kind === 'column') {
        requireColumn(rel, item.name);
        const cast = item.cast ? `::${item.cast}` : ''; // one of parse's CASTS, a keyword
        return `${alias}.${ident(item.name)}${cast} as ${ident(item.alias ?? item.name)}`;
      }
      return `${embed(catalog, rel, alias, item, depth)} as ${ident(item.alias ?? item.relation)}`;
    })
    .join(', ');
}

function embed(
  catalog: Catalog,
  rel: Relation,
  alias: string,
  item: Extract<SelectItem, { kind: 'embed' }>,
  depth: number,
): string {
  const target = requireRelation(catalog, item.relation);
  const child = `t${depth + 1}`;
  const cols = projection(catalog, target, child, item.select, depth + 1);
  const toOne = catalog.foreignKeys.find((fk) => fk.from === rel.name && fk.to === target.name);
  if (toOne) {
    const on = toOne.fromColumns
      .map((c, i) => `${child}.${ident(toOne.toColumns[i]!)} = ${alias}.${ident(c)}`)
      .join(' and ');
    return `(select row_to_json(_e) from (select ${cols} from ${qualified(target.name)} ${child} where ${on}) _e)`;
  }
  const toMany = catalog.foreignKeys.find((fk) => fk.from === target.name && fk.to === rel.name);
  if (toMany) {
    const on = toMany.fromColumns
      .map((c, i) => `${child}.${ident(c)} = ${alias}.${ident(toMany.toColumns[i]!)}`)
      .join(' and ');
    return `(select coalesce(json_agg(_e), '[]') from (select ${cols} from ${qualified(target.name)} ${child} where ${on}) _e)`;
  }
  const computed = catalog.computedRelationship(rel.name, target.name);
  if (computed) {
    const rows = `(select ${cols} from ${qualified(target.name)}(${alias}) ${child}) _e`;
    return computed.singleRow
      ? `(select row_to_json(_e) from ${rows} limit 1)`
      : `(select coalesce(json_agg(_e), '[]') from ${rows})`;
  }
  throw restError(
    400,
    'PGRST200',
    `Could not find a relationship between '${rel.name}' and '${target.name}' in the schema cache`,
  );
}

const COMPARATORS: Record<string, string> = { eq: '=', neq: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' };

export function condition(rel: Relation, alias: string, cond: Condition, params: Params): string {
  if (cond.kind === 'logic') {
    const inner = cond.items.map((c) => condition(rel, alias, c, params)).join(` ${cond.op} `) || 'true';
    return cond.negate ? `not (${inner})` : `(${inner})`;
  }
  const type = requireColumn(rel, cond.column);
  const col = `${alias}.${ident(cond.column)}`;
  let sql: string;
  switch (cond.op) {
    case 'eq':
    case 'neq':
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      sql = `${col} ${COMPARATORS[cond.op]} ${params.add(cond.value, type)}`;
      break;
    case 'like':
    case 'ilike':
      sql = `${col}::text ${cond.op} ${params.add(cond.value.replace(/\*/g, '%'), 'text')}`;
      break;
    case 'match':
    case 'imatch':
      sql = `${col}::text ${cond.op === 'match' ? '~' : '~*'} ${params.add(cond.value, 'text')}`;
      break;
    case 'is': {
      const v = cond.value.toLowerCase();
      if (!['null', 'true', 'false', 'unknown'].includes(v))
        throw parseError(`"is" accepts null, true, false or unknown, got "${cond.value}"`);
      sql = `${col} is ${v}`;
      break;
    }
    case 'in': {
      const list = parseList(cond.value);
      sql = list.length ? `${col} in (${list.map((v) => params.add(v, type)).join(', ')})` : 'false';
      break;
    }
    default:
      throw parseError(`unsupported operator "${cond.op}"`);
  }
  return cond.negate ? `not (${sql})` : sql;
}

export function orderBy(rel: Relation, alias: string, terms: OrderTerm[]): string {
  return terms
    .map((t) => {
      requireColumn(rel, t.column);
      return `${alias}.${ident(t.column)} ${t.descending ? 'desc' : 'asc'}${t.nulls ? ` nulls ${t.nulls}` : ''}`;
    })
    .join(', ');
}
