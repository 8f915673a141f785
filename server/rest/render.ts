import type { Statement } from '../db/database';
import type { Catalog, Relation } from './catalog';
import { parseError, restError } from './errors';
import { parseList, type Condition, type OrderTerm, type SelectItem } from './parse';
import type { CallPlan, MutatePlan, ReadPlan, RowWindow } from './plan';
import { requireRelation } from './plan';
import { quoteIdent as ident } from '../db/quote';

/**
 * From plan to SQL, the one module that writes a request's SQL (PostgREST's query builder). Every
 * value is a parameter; every name comes from the catalog and is quoted; a cast is one of the
 * parser's keywords.
 */

const qualified = (name: string) => `public.${ident(name)}`;
/** Rows as one JSON text and their number, from a subquery `_r`. */
const AS_JSON = `select coalesce(json_agg(_r), '[]')::text as body, count(*)::int as n from`;

/**
 * A read: its rows (none for HEAD) and, when a count is asked, its matches counted (all of them, or
 * up to `maxRows` and one more for an estimated count) and the planner's estimate of them (for a
 * planned count, or an estimated one past `maxRows`). One statement each, run together.
 */
export function renderRead(
  catalog: Catalog,
  plan: ReadPlan,
  maxRows?: number,
): { rows?: Statement; counted?: Statement; planned?: Statement } {
  const params = new Params();
  const cols = projection(catalog, plan.relation, 't0', plan.select);
  const where = whereOf(plan.relation, plan.filters, params);
  const from = `${qualified(plan.relation.name)} t0${where}`;
  const capped = plan.count === 'estimated' && maxRows !== undefined;
  const counts = plan.count === 'exact' || (plan.count === 'estimated' && !capped);
  return {
    rows: plan.head
      ? undefined
      : {
          text: `${AS_JSON} (select ${cols} from ${from}${orderPage(plan.relation, plan, maxRows)}) _r`,
          values: params.values,
        },
    counted: counts
      ? { text: `select count(*)::int as n from ${from}`, values: params.values }
      : capped
        ? {
            text: `select count(*)::int as n from (select from ${from} limit ${maxRows + 1}) _c`,
            values: params.values,
          }
        : undefined,
    planned:
      plan.count === 'planned' || capped
        ? { text: `explain (format json) select from ${from}`, values: params.values }
        : undefined,
  };
}

/** A write, answering the rows it touched (as the select asks) and their number. */
export function renderMutate(catalog: Catalog, plan: MutatePlan): Statement {
  const params = new Params();
  const table = qualified(plan.relation.name);
  let statement: string;
  if (plan.kind === 'insert') {
    const list = plan.columns.map(ident).join(', ');
    let conflict = '';
    if (plan.onConflict) {
      const { target, ignore } = plan.onConflict;
      const updates = plan.columns.filter((c) => !target.includes(c)).map((c) => `${ident(c)} = excluded.${ident(c)}`);
      conflict = ` on conflict (${target.map(ident).join(', ')}) ${
        ignore || !updates.length ? 'do nothing' : `do update set ${updates.join(', ')}`
      }`;
    }
    // Rows of {} take every column's default, as PostgREST does (no column list at all).
    statement = `insert into ${table}${list ? ` (${list})` : ''}
      select ${list} from json_populate_recordset(null::${table}, ${params.add(JSON.stringify(plan.rows), 'json')})${conflict}
      returning *`;
  } else {
    const where = whereOf(plan.relation, plan.filters, params);
    if (plan.kind === 'update') {
      const sets = Object.keys(plan.values)
        .map((c) => `${ident(c)} = _v.${ident(c)}`)
        .join(', ');
      statement = `update ${table} t0 set ${sets}
        from json_populate_record(null::${table}, ${params.add(JSON.stringify(plan.values), 'json')}) _v${where} returning t0.*`;
    } else statement = `delete from ${table} t0${where} returning t0.*`;
  }
  const cols = projection(catalog, plan.relation, 't0', plan.select);
  return { text: `with _m as (${statement}) ${AS_JSON} (select ${cols} from _m t0) _r`, values: params.values };
}

/** A call: no rows (void), rows to filter and page (a set or a row type, at most `maxRows`), or one value. */
export function renderCall(plan: CallPlan, maxRows?: number): Statement {
  const params = new Params();
  const call = `public.${ident(plan.fn.name)}(${plan.args
    .map(({ name, type, value }) => `${ident(name)} := ${argument(params, type, value)}`)
    .join(', ')})`;
  let text: string;
  if (plan.fn.isVoid) text = `select ${call}`;
  else if (plan.fn.returnsSet || plan.fn.returnsRow) {
    const where = plan.result ? whereOf(plan.result, plan.filters, params) : '';
    const order = orderPage(plan.result, plan, maxRows);
    text = `${AS_JSON} (select t0.* from ${call} t0${where}${order}) _r`;
  } else text = `select to_json(${call})::text as body`;
  return { text, values: params.values };
}

/** An argument, passed as text and cast to the parameter's type (JSON for json and arrays). */
function argument(params: Params, type: string, value: unknown): string {
  if (value === null || value === undefined) return `null::${type}`;
  if (type.endsWith('[]'))
    return `array(select json_array_elements_text(${params.add(JSON.stringify(value), 'json')}))::${type}`;
  if (typeof value === 'object') return params.add(JSON.stringify(value), type);
  return params.add(String(value), type);
}

function whereOf(rel: Relation, filters: Condition[], params: Params): string {
  const where = filters.map((c) => condition(rel, 't0', c, params)).join(' and ');
  return where ? ` where ${where}` : '';
}

/**
 * The order and the window of rows. No answer holds more than `maxRows` rows (config.toml's
 * [api] max_rows, PostgREST's db-max-rows), whatever the request asks: one request cannot make the
 * server build and send a whole table.
 */
function orderPage(rel: Relation | undefined, w: RowWindow, maxRows: number | undefined): string {
  const order = rel && w.order.length ? ` order by ${orderBy(rel, 't0', w.order)}` : '';
  const limit = maxRows === undefined ? w.limit : Math.min(w.limit ?? maxRows, maxRows);
  return `${order}${limit !== undefined ? ` limit ${limit}` : ''}${w.offset ? ` offset ${w.offset}` : ''}`;
}

/** Collects query parameters as $1, $2... */
class Params {
  readonly values: unknown[] = [];
  /** A typed parameter is sent as text and cast by the database, so a value of the wrong type is a 400 (22P02), not a driver error. */
  add(value: unknown, type?: string): string {
    this.values.push(value);
    return type ? `$${this.values.length}::text::${type}` : `$${this.values.length}`;
  }
}

function requireColumn(rel: Relation, column: string): string {
  const type = rel.columns.get(column);
  if (!type) throw restError(400, '42703', `column ${rel.name}.${column} does not exist`);
  return type;
}

/** The select list for rows of `rel` aliased `alias`, with embedded resources as sub-queries. */
function projection(catalog: Catalog, rel: Relation, alias: string, items: SelectItem[], depth = 0): string {
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

function condition(rel: Relation, alias: string, cond: Condition, params: Params): string {
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

function orderBy(rel: Relation, alias: string, terms: OrderTerm[]): string {
  return terms
    .map((t) => {
      requireColumn(rel, t.column);
      return `${alias}.${ident(t.column)} ${t.descending ? 'desc' : 'asc'}${t.nulls ? ` nulls ${t.nulls}` : ''}`;
    })
    .join(', ');
}
