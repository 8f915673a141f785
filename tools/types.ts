import type { Queryable } from '../server/db/database';

/**
 * TypeScript types of the API's schema, in the shape `supabase gen types typescript` writes
 * (Database['public']['Tables'][name]['Row'], Insert, Update, Relationships; Views; Functions with
 * Args and Returns; Enums; CompositeTypes), read from a database's catalog. The browser's one
 * Supabase client is createClient<Database>, so every read and call is typed by the database itself.
 */

interface Column {
  relation: string;
  kind: string;
  name: string;
  type: string;
  element: string | null;
  notnull: boolean;
  has_default: boolean;
  generated: boolean;
  identity: string;
}

interface Relationship {
  relation: string;
  name: string;
  columns: string[];
  referenced: string;
  referenced_columns: string[];
  one_to_one: boolean;
}

interface Fn {
  name: string;
  arg_names: string[] | null;
  arg_types: string[];
  arg_modes: string[] | null;
  defaults: number;
  returns: string;
  returns_set: boolean;
  returns_kind: string;
  returns_relation: string | null;
}

const SCALARS: Record<string, string> = {
  bool: 'boolean',
  int2: 'number',
  int4: 'number',
  int8: 'number',
  float4: 'number',
  float8: 'number',
  numeric: 'number',
  oid: 'number',
  json: 'Json',
  jsonb: 'Json',
  void: 'undefined',
  record: 'Json',
};

/** A PostgreSQL type's name (pg_type.typname) as TypeScript sees it; arrays are element[]. */
function tsType(name: string, element: string | null): string {
  if (element) return `${tsType(element, null)}[]`;
  // A function's argument names its array type (_text) rather than the element.
  if (name.startsWith('_')) return `${tsType(name.slice(1), null)}[]`;
  return SCALARS[name] ?? 'string';
}

const key = (name: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : JSON.stringify(name));
const indent = (text: string, by: number) =>
  text
    .split('\n')
    .map((l) => (l ? ' '.repeat(by) + l : l))
    .join('\n');

async function columns(db: Queryable): Promise<Column[]> {
  return db.query<Column>(`
    select c.relname as relation, c.relkind::text as kind, a.attname as name, t.typname as type,
           (select e.typname from pg_type e where e.oid = t.typelem and t.typcategory = 'A') as element,
           a.attnotnull as notnull, a.atthasdef as has_default, a.attgenerated::text <> '' as generated,
           a.attidentity::text as identity
      from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
      join pg_type t on t.oid = a.atttypid
     where n.nspname = 'public' and c.relkind in ('r', 'p', 'v', 'm') and a.attnum > 0 and not a.attisdropped
     order by c.relname, a.attnum`);
}

async function relationships(db: Queryable): Promise<Relationship[]> {
  return db.query<Relationship>(`
    select c.relname as relation, k.conname as name,
           array(select a.attname from unnest(k.conkey) with ordinality u(n, i) join pg_attribute a on a.attrelid = k.conrelid and a.attnum = u.n order by u.i)::text[] as columns,
           r.relname as referenced,
           array(select a.attname from unnest(k.confkey) with ordinality u(n, i) join pg_attribute a on a.attrelid = k.confrelid and a.attnum = u.n order by u.i)::text[] as referenced_columns,
           exists (select from pg_constraint u where u.conrelid = k.conrelid and u.contype in ('p', 'u') and u.conkey::int[] <@ k.conkey::int[] and k.conkey::int[] <@ u.conkey::int[]) as one_to_one
      from pg_constraint k join pg_class c on c.oid = k.conrelid join pg_namespace n on n.oid = c.relnamespace
      join pg_class r on r.oid = k.confrelid join pg_namespace rn on rn.oid = r.relnamespace
     where k.contype = 'f' and n.nspname = 'public' and rn.nspname = 'public'
     order by c.relname, k.conname`);
}

async function functions(db: Queryable): Promise<Fn[]> {
  // What PostgREST exposes: the public schema's functions that anon or authenticated may call.
  return db.query<Fn>(`
    select p.proname as name, p.proargnames::text[] as arg_names,
           array(select t.typname from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) with ordinality u(o, i) join pg_type t on t.oid = u.o order by u.i)::text[] as arg_types,
           p.proargmodes::text[] as arg_modes, p.pronargdefaults as defaults,
           rt.typname as returns, p.proretset as returns_set, rt.typtype::text as returns_kind,
           (select c.relname from pg_class c where c.oid = rt.typrelid) as returns_relation
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace join pg_type rt on rt.oid = p.prorettype
     where n.nspname = 'public' and p.prokind = 'f' and rt.typname <> 'trigger'
       and (has_function_privilege('anon', p.oid, 'execute') or has_function_privilege('authenticated', p.oid, 'execute'))
     order by p.proname, p.oid`);
}

function rowType(cols: Column[], view: boolean): string {
  return cols
    .map((c) => `${key(c.name)}: ${tsType(c.type, c.element)}${view || !c.notnull ? ' | null' : ''}`)
    .join('\n');
}

function writeType(cols: Column[], all: boolean): string {
  return cols
    .filter((c) => !c.generated && c.identity !== 'a')
    .map((c) => {
      const optional = all || !c.notnull || c.has_default || c.identity === 'd';
      return `${key(c.name)}${optional ? '?' : ''}: ${tsType(c.type, c.element)}${c.notnull ? '' : ' | null'}`;
    })
    .join('\n');
}

function relationshipsType(rels: Relationship[]): string {
  if (!rels.length) return '[]';
  const each = rels.map((r) =>
    [
      '{',
      `  foreignKeyName: ${JSON.stringify(r.name)}`,
      `  columns: [${r.columns.map((c) => JSON.stringify(c)).join(', ')}]`,
      `  isOneToOne: ${r.one_to_one}`,
      `  referencedRelation: ${JSON.stringify(r.referenced)}`,
      `  referencedColumns: [${r.referenced_columns.map((c) => JSON.stringify(c)).join(', ')}]`,
      '},',
    ].join('\n'),
  );
  return `[\n${indent(each.join('\n'), 2)}\n]`;
}

function functionType(f: Fn, tables: Map<string, Column[]>): string {
  const modes = f.arg_modes ?? f.arg_types.map(() => 'i');
  const names = f.arg_names ?? [];
  const ins = f.arg_types
    .map((t, i) => ({ t, i, name: names[i] ?? `arg${i}`, mode: modes[i] }))
    .filter((a) => a.mode === 'i' || a.mode === 'b');
  const firstDefault = ins.length - f.defaults;
  const args = ins.length
    ? `{\n${indent(ins.map((a, i) => `${key(a.name)}${i >= firstDefault ? '?' : ''}: ${tsType(a.t, null)}`).join('\n'), 2)}\n}`
    : 'never';
  const outs = f.arg_types
    .map((t, i) => ({ t, name: names[i] ?? `column${i}`, mode: modes[i] }))
    .filter((a) => a.mode === 'o' || a.mode === 't' || a.mode === 'b');
  let returns: string;
  if (outs.length) returns = `{\n${indent(outs.map((o) => `${key(o.name)}: ${tsType(o.t, null)}`).join('\n'), 2)}\n}`;
  else if (f.returns_relation && tables.has(f.returns_relation))
    returns = `{\n${indent(rowType(tables.get(f.returns_relation)!, false), 2)}\n}`;
  else returns = tsType(f.returns, null);
  if (f.returns_set) returns = outs.length || f.returns_relation ? `${returns}[]` : `${returns}[]`;
  return `{\n  Args: ${indent(args, 2).trimStart()}\n  Returns: ${indent(returns, 2).trimStart()}\n}`;
}

/** The module text: the Database type and the CLI's helper types. */
export async function databaseTypes(db: Queryable): Promise<string> {
  const cols = await columns(db);
  const rels = await relationships(db);
  const fns = await functions(db);
  const byRelation = new Map<string, Column[]>();
  for (const c of cols) byRelation.set(c.relation, [...(byRelation.get(c.relation) ?? []), c]);
  const kindOf = (r: string) => byRelation.get(r)![0]!.kind;
  const relsOf = (r: string) => relationshipsType(rels.filter((x) => x.relation === r));
  const tables = [...byRelation.keys()].filter((r) => ['r', 'p'].includes(kindOf(r)));
  const views = [...byRelation.keys()].filter((r) => ['v', 'm'].includes(kindOf(r)));
  const table = (r: string) =>
    `${key(r)}: {\n  Row: {\n${indent(rowType(byRelation.get(r)!, false), 4)}\n  }\n  Insert: {\n${indent(writeType(byRelation.get(r)!, false), 4)}\n  }\n  Update: {\n${indent(writeType(byRelation.get(r)!, true), 4)}\n  }\n  Relationships: ${indent(relsOf(r), 2).trimStart()}\n}`;
  const view = (r: string) =>
    `${key(r)}: {\n  Row: {\n${indent(rowType(byRelation.get(r)!, true), 4)}\n  }\n  Relationships: ${indent(relsOf(r), 2).trimStart()}\n}`;
  const fnGroups = new Map<string, string[]>();
  for (const f of fns) fnGroups.set(f.name, [...(fnGroups.get(f.name) ?? []), functionType(f, byRelation)]);
  const fnText = [...fnGroups].map(([name, overloads]) =>
    overloads.length === 1
      ? `${key(name)}: ${overloads[0]}`
      : `${key(name)}:\n${indent(overloads.map((o) => `| ${o}`).join('\n'), 2)}`,
  );
  const section = (items: string[]) =>
    items.length ? `{\n${indent(items.join('\n'), 2)}\n}` : '{\n  [_ in never]: never\n}';
  const schema = [
    `Tables: ${indent(section(tables.map(table)), 2).trimStart()}`,
    `Views: ${indent(section(views.map(view)), 2).trimStart()}`,
    `Functions: ${indent(section(fnText), 2).trimStart()}`,
    `Enums: {\n  [_ in never]: never\n}`,
    `CompositeTypes: {\n  [_ in never]: never\n}`,
  ].join('\n');
  return `${HEADER}export type Database = {\n  public: {\n${indent(schema, 4)}\n  }\n}\n${HELPERS}`;
}

const HEADER = `/* Generated by \`npm run db:types\` from the database the migrations make: do not edit by hand. */
export type Json = string | number | boolean | null | { [key: string]: Json | undefined } | Json[]

`;

const HELPERS = `
type PublicSchema = Database['public']

export type Tables<T extends keyof (PublicSchema['Tables'] & PublicSchema['Views'])> = (PublicSchema['Tables'] &
  PublicSchema['Views'])[T] extends { Row: infer R }
  ? R
  : never

export type TablesInsert<T extends keyof PublicSchema['Tables']> = PublicSchema['Tables'][T]['Insert']

export type TablesUpdate<T extends keyof PublicSchema['Tables']> = PublicSchema['Tables'][T]['Update']

export type FunctionArgs<T extends keyof PublicSchema['Functions']> = PublicSchema['Functions'][T] extends {
  Args: infer A
}
  ? A
  : never

export type FunctionReturns<T extends keyof PublicSchema['Functions']> = PublicSchema['Functions'][T] extends {
  Returns: infer R
}
  ? R
  : never
`;
