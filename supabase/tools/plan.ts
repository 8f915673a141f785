import type { Queryable } from '../server/db/database';
import { quoteIdent } from '../server/db/quote';
import type { Difference } from './catalog';

/**
 * The statements that take a database defined as `migrations` to the one defined as `schemas`,
 * from their catalogs' differences: what `supabase db diff` does with a shadow database, here
 * without Docker. Definitions are read back from the schema database itself (pg_get_functiondef,
 * pg_get_viewdef, pg_get_constraintdef, pg_get_indexdef, pg_get_triggerdef, pg_policies), so a
 * migration says exactly what the schema files made.
 *
 * It writes drops first (policies, triggers, views, functions, constraints, indexes, columns,
 * tables), then creations in dependency order (tables and columns, functions, views, constraints,
 * indexes, triggers, policies, grants, comments). What it cannot write (a column moved, a type,
 * default privileges, reference rows) comes back in `unsupported`, for a person to write by hand.
 */
export interface Plan {
  statements: string[];
  unsupported: string[];
}

const KIND_ORDER = [
  'drop policy',
  'drop trigger',
  'drop view',
  'drop function',
  'drop constraint',
  'drop index',
  'drop column',
  'drop table',
  'schema',
  'extension',
  'table',
  'column',
  'function',
  'view',
  'constraint',
  'index',
  'trigger',
  'policy',
  'security',
  'grant',
  'comment',
] as const;
type Step = (typeof KIND_ORDER)[number];

export async function planMigration(diffs: Difference[], schemas: Queryable): Promise<Plan> {
  const steps: { step: Step; sql: string; order?: number }[] = [];
  const unsupported: string[] = [];
  const add = (step: Step, sql: string, order = 0) => steps.push({ step, sql, order });

  for (const d of diffs) {
    const [kind, ...rest] = d.key.split(' ');
    const name = rest.join(' ');
    const gone = d.change === 'only in migrations';
    const changed = d.change === 'differs';
    switch (kind) {
      case 'schema':
        if (gone) add('drop table', `drop schema ${name} cascade;`);
        else {
          if (!changed) add('schema', `create schema ${name};`);
          add('grant', aclStatements('schema', name, d.schemas ?? ''));
        }
        break;
      case 'extension':
        if (gone) unsupported.push(`${d.key}: drop it by hand if nothing needs it`);
        else add('extension', `create extension if not exists ${name} with schema ${d.schemas};`);
        break;
      case 'table':
        if (gone) add('drop table', `drop table ${name};`);
        else if (!changed) add('table', `create table ${name} ();`, await relationOrder(schemas, name));
        add('security', await tableFlags(schemas, name, d, unsupported));
        break;
      case 'column': {
        const dot = name.lastIndexOf('.');
        const table = name.slice(0, dot);
        const column = name.slice(dot + 1);
        if (!(await isTable(schemas, table)) && !gone) break; // a view's column comes with the view
        if (gone) {
          if (d.migrations !== undefined && (await isTable(schemas, table)))
            add('drop column', `alter table ${table} drop column ${quoteIdent(column)};`);
        } else if (!changed)
          add('column', await addColumn(schemas, table, column), await columnOrder(schemas, table, column));
        else add('column', (await alterColumn(schemas, table, column, d, unsupported)).join('\n'));
        break;
      }
      case 'constraint': {
        const [table, conname] = splitLast(name);
        // PostgreSQL 18 lists NOT NULL as constraints: the column's own definition makes them.
        if (/^NOT NULL /.test(d.schemas ?? d.migrations ?? '')) break;
        if (gone || changed)
          add('drop constraint', `alter table ${table} drop constraint if exists ${quoteIdent(conname)};`);
        if (!gone) {
          const def = await one(
            schemas,
            `select pg_get_constraintdef(oid) as def, contype::text as type from pg_constraint where conrelid = $1::regclass and conname = $2`,
            [table, conname],
          );
          // Keys before the foreign keys that reference them.
          add(
            'constraint',
            `alter table ${table} add constraint ${quoteIdent(conname)} ${def.def};`,
            def.type === 'f' ? 1 : 0,
          );
        }
        break;
      }
      case 'index': {
        const constraintBacked =
          !gone &&
          (
            await one(schemas, `select exists (select from pg_constraint where conindid = $1::regclass) as backed`, [
              name,
            ])
          ).backed;
        if (constraintBacked) break; // made by its constraint
        if (gone || changed) add('drop index', `drop index if exists ${name};`);
        if (!gone) add('index', `${(await one(schemas, `select pg_get_indexdef($1::regclass) as def`, [name])).def};`);
        break;
      }
      case 'sequence':
        if (!(await ownedByIdentity(schemas, name, gone))) unsupported.push(`${d.key}: ${d.change}`);
        break;
      case 'function': {
        if (gone || (changed && headerOf(d.migrations) !== headerOf(d.schemas)))
          add('drop function', `drop function if exists ${name};`);
        if (!gone) add('function', `${(d.schemas ?? '').trim()};`);
        break;
      }
      case 'view': {
        if (gone || changed) add('drop view', `drop view if exists ${name};`);
        if (!gone) {
          const v = await one(
            schemas,
            `select pg_get_viewdef($1::regclass) as def, array_to_string(reloptions, ', ') as options, relkind::text as kind from pg_class where oid = $1::regclass`,
            [name],
          );
          const options = v.options ? ` with (${v.options})` : '';
          add(
            'view',
            `create ${v.kind === 'm' ? 'materialized view' : 'view'} ${name}${options} as\n${v.def.replace(/;\s*$/, '')};`,
            await relationOrder(schemas, name),
          );
        }
        break;
      }
      case 'trigger': {
        const [table, tgname] = splitLast(name);
        if (gone || changed) add('drop trigger', `drop trigger if exists ${quoteIdent(tgname)} on ${table};`);
        if (!gone) {
          const t = await one(
            schemas,
            `select pg_get_triggerdef(oid) as def, tgenabled::text as enabled from pg_trigger where tgrelid = $1::regclass and tgname = $2`,
            [table, tgname],
          );
          add('trigger', `${t.def};`);
          if (t.enabled === 'D') add('trigger', `alter table ${table} disable trigger ${quoteIdent(tgname)};`);
        }
        break;
      }
      case 'policy': {
        const m = /^(.+?) "(.*)"$/.exec(name)!;
        const [table, policy] = [m[1]!, m[2]!];
        if (gone || changed) add('drop policy', `drop policy if exists ${quoteIdent(policy)} on ${table};`);
        if (!gone) add('policy', await createPolicy(schemas, table, policy));
        break;
      }
      case 'grant': {
        // grant on table|view|sequence|function|column NAME
        const [, objectKind, ...objectName] = rest;
        add('grant', aclStatements(objectKind!, objectName.join(' '), gone ? '' : (d.schemas ?? '')));
        break;
      }
      case 'comment': {
        const [, objectKind, ...objectName] = rest;
        const target = `${objectKind === 'relation' ? await relationKind(schemas, objectName.join(' ')) : objectKind} ${objectName.join(' ')}`;
        add('comment', `comment on ${target} is ${gone ? 'null' : literal(d.schemas ?? '')};`);
        break;
      }
      case 'publication': {
        const [pub, table] = rest;
        add('grant', `alter publication ${pub} ${gone ? 'drop' : 'add'} table ${table};`);
        break;
      }
      default:
        unsupported.push(`${d.key}: ${d.change}`);
    }
  }
  const statements = steps
    .filter((s) => s.sql)
    .map((s, i) => ({ ...s, i }))
    .sort(
      (a, b) => KIND_ORDER.indexOf(a.step) - KIND_ORDER.indexOf(b.step) || (a.order ?? 0) - (b.order ?? 0) || a.i - b.i,
    )
    .map((s) => s.sql);
  return { statements: [...new Set(statements)], unsupported };
}

async function one(
  db: Queryable,
  sql: string,
  params: unknown[],
): Promise<Record<string, string> & { backed?: boolean }> {
  const [row] = await db.query<Record<string, string>>(sql, params);
  if (!row) throw new Error(`Not found in the schema database: ${String(params.join(' '))}`);
  return row;
}

function splitLast(name: string): [string, string] {
  const i = name.lastIndexOf(' ');
  return [name.slice(0, i), name.slice(i + 1)];
}

/** A function's header up to its body: a change there (result, argument names) needs a drop. */
function headerOf(def: string | undefined): string {
  return (def ?? '')
    .split(/\n AS |\nAS /)[0]!
    .replace(/\n\s*(SET|SECURITY|STABLE|IMMUTABLE|VOLATILE|LEAKPROOF|STRICT|COST|ROWS|PARALLEL).*/g, '');
}

function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

async function isTable(db: Queryable, name: string): Promise<boolean> {
  const [row] = await db.query<{ kind: string }>(
    `select relkind::text as kind from pg_class where oid = to_regclass($1)`,
    [name],
  );
  return !!row && ['r', 'p', 'f'].includes(row.kind);
}

async function relationKind(db: Queryable, name: string): Promise<string> {
  const [row] = await db.query<{ kind: string }>(
    `select relkind::text as kind from pg_class where oid = to_regclass($1)`,
    [name],
  );
  return row?.kind === 'v' ? 'view' : row?.kind === 'm' ? 'materialized view' : 'table';
}

/** Creation order in the schema database: a view after the views it reads. */
async function relationOrder(db: Queryable, name: string): Promise<number> {
  const [row] = await db.query<{ oid: number }>(`select to_regclass($1)::oid::int as oid`, [name]);
  return row?.oid ?? 0;
}

async function columnOrder(db: Queryable, table: string, column: string): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    `select attnum::int as n from pg_attribute where attrelid = $1::regclass and attname = $2`,
    [table, column],
  );
  return (await relationOrder(db, table)) * 1000 + (row?.n ?? 0);
}

async function ownedByIdentity(db: Queryable, sequence: string, gone: boolean): Promise<boolean> {
  if (gone) return true; // dropped with its column or table
  const [row] = await db.query<{ owned: boolean }>(
    `select exists (select from pg_depend where objid = to_regclass($1) and deptype = 'i') as owned`,
    [sequence],
  );
  return !!row?.owned;
}

interface ColumnInfo {
  type: string;
  notnull: boolean;
  def: string | null;
  generated: string;
  identity: string;
  collation: string | null;
}

async function columnInfo(db: Queryable, table: string, column: string): Promise<ColumnInfo> {
  const [row] = await db.query<ColumnInfo>(
    `select format_type(a.atttypid, a.atttypmod) as type, a.attnotnull as notnull, pg_get_expr(d.adbin, d.adrelid) as def,
            a.attgenerated::text as generated, a.attidentity::text as identity,
            case when a.attcollation <> 0 and co.collname <> 'default' then co.collname end as collation
       from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
       left join pg_collation co on co.oid = a.attcollation
      where a.attrelid = $1::regclass and a.attname = $2`,
    [table, column],
  );
  return row!;
}

async function addColumn(db: Queryable, table: string, column: string): Promise<string> {
  const c = await columnInfo(db, table, column);
  const parts = [quoteIdent(column), c.type];
  if (c.collation) parts.push(`collate ${quoteIdent(c.collation)}`);
  if (c.generated === 's') parts.push(`generated always as (${c.def}) stored`);
  else if (c.def !== null) parts.push(`default ${c.def}`);
  if (c.identity === 'a') parts.push('generated always as identity');
  if (c.identity === 'd') parts.push('generated by default as identity');
  if (c.notnull && !c.identity) parts.push('not null');
  return `alter table ${table} add column ${parts.join(' ')};`;
}

async function alterColumn(
  db: Queryable,
  table: string,
  column: string,
  d: Difference,
  unsupported: string[],
): Promise<string[]> {
  const c = await columnInfo(db, table, column);
  const was = d.migrations ?? '';
  const col = `alter table ${table} alter column ${quoteIdent(column)}`;
  if (c.generated || c.identity || /\b(generated|identity) /.test(was)) {
    unsupported.push(`column ${table}.${column}: a generated or identity column changed; drop and add it by hand`);
    return [];
  }
  const out: string[] = [];
  if (!was.startsWith(`${c.type} `) && was !== c.type)
    out.push(`${col} type ${c.type} using ${quoteIdent(column)}::${c.type};`);
  if (c.def === null) out.push(`${col} drop default;`);
  else out.push(`${col} set default ${c.def};`);
  out.push(`${col} ${c.notnull ? 'set' : 'drop'} not null;`);
  return out;
}

/** Row-level security and the column order, which a table's catalog entry carries. */
async function tableFlags(db: Queryable, table: string, d: Difference, unsupported: string[]): Promise<string> {
  if (d.change === 'only in migrations') return '';
  const was = d.migrations ?? '';
  const now = d.schemas ?? '';
  const columns = (s: string) => (/columns=(\S*)/.exec(s)?.[1] ?? '').split(',').filter(Boolean);
  const before = columns(was);
  const after = columns(now);
  const kept = after.filter((c) => before.includes(c));
  const keptBefore = before.filter((c) => after.includes(c));
  const added = after.filter((c) => !before.includes(c));
  if (kept.join() !== keptBefore.join() || after.slice(after.length - added.length).join() !== added.join()) {
    if (d.change === 'differs') {
      unsupported.push(
        `table ${table}: its columns are in another order (PostgreSQL adds a column at the end: write new columns last)`,
      );
    }
  }
  const out: string[] = [];
  const flag = (s: string, f: string) => s.split(' ').includes(f);
  if (flag(now, 'rls') !== flag(was, 'rls'))
    out.push(`alter table ${table} ${flag(now, 'rls') ? 'enable' : 'disable'} row level security;`);
  if (flag(now, 'force-rls') !== flag(was, 'force-rls'))
    out.push(`alter table ${table} ${flag(now, 'force-rls') ? '' : 'no '}force row level security;`);
  const options = (s: string) => /options=(\S*)/.exec(s)?.[1] ?? '';
  if (options(now) !== options(was)) {
    const opts = await db.query<{ o: string }>(
      `select unnest(reloptions) as o from pg_class where oid = $1::regclass`,
      [table],
    );
    if (opts.length) out.push(`alter table ${table} set (${opts.map((o) => o.o).join(', ')});`);
    else unsupported.push(`table ${table}: its storage options were removed; reset them by hand`);
  }
  return out.join('\n');
}

async function createPolicy(db: Queryable, table: string, policy: string): Promise<string> {
  const [schema, name] = table.split('.') as [string, string];
  const p = await one(
    db,
    `select permissive, cmd, array_to_string(array(select unnest(roles) order by 1), ', ') as roles, qual, with_check
       from pg_policies where schemaname = $1 and tablename = $2 and policyname = $3`,
    [schema, name, policy],
  );
  const roles = p.roles === 'public' ? 'public' : p.roles!;
  return [
    `create policy ${quoteIdent(policy)} on ${table} as ${p.permissive!.toLowerCase()} for ${p.cmd!.toLowerCase()} to ${roles}`,
    p.qual ? `  using (${p.qual})` : '',
    p.with_check ? `  with check (${p.with_check})` : '',
  ]
    .filter(Boolean)
    .join('\n')
    .concat(';');
}

const PRIVILEGES: Record<string, string> = {
  r: 'select',
  a: 'insert',
  w: 'update',
  d: 'delete',
  D: 'truncate',
  x: 'references',
  t: 'trigger',
  X: 'execute',
  U: 'usage',
  C: 'create',
  m: 'maintain',
};

/**
 * An object's grants made exactly what `acl` says: everything revoked from the API roles and
 * PUBLIC, then granted again per entry. The owner's own entry is the owner's.
 */
function aclStatements(kind: string, name: string, acl: string): string {
  const target = kind === 'column' ? columnTarget(name) : `${kind === 'view' ? 'table' : kind} ${name}`;
  if (kind === 'column') {
    const [table, column] = splitColumn(name);
    const out = [`revoke all (${quoteIdent(column)}) on ${table} from public, anon, authenticated, service_role;`];
    for (const [grantee, privs] of entries(acl)) {
      out.push(
        `grant ${privs.map((p) => PRIVILEGES[p]).join(', ')} (${quoteIdent(column)}) on ${table} to ${grantee};`,
      );
    }
    return out.join('\n');
  }
  const out = [`revoke all on ${target} from public, anon, authenticated, service_role;`];
  for (const [grantee, privs] of entries(acl)) {
    if (grantee === 'postgres' || grantee === 'pg_database_owner') continue;
    out.push(`grant ${privs.map((p) => PRIVILEGES[p]).join(', ')} on ${target} to ${grantee};`);
  }
  return out.join('\n');
}

function entries(acl: string): [string, string[]][] {
  return acl
    .split(',')
    .filter(Boolean)
    .map((item) => {
      const [grantee, rest] = item.split('=') as [string, string];
      return [grantee === '' ? 'public' : grantee, [...rest.split('/')[0]!].filter((p) => PRIVILEGES[p])];
    });
}

function splitColumn(name: string): [string, string] {
  const dot = name.lastIndexOf('.');
  return [name.slice(0, dot), name.slice(dot + 1)];
}

function columnTarget(name: string): string {
  return splitColumn(name).join(' ');
}
