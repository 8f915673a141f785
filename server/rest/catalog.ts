import type { Queryable } from '../db/database';

export interface Relation {
  name: string;
  columns: Map<string, string>; // column name -> SQL type
  primaryKey: string[];
  /**
   * Every signed-in user may read all of it, the same for each: a table with no row-level
   * security or a `using (true)` policy, or a view that runs as its owner and asks nothing of the
   * caller (rest/replica.ts: such reads may come from a replica).
   */
  everyone: boolean;
}

export interface ForeignKey {
  from: string;
  fromColumns: string[];
  to: string;
  toColumns: string[];
}

export interface DbFunction {
  name: string;
  args: { name: string; type: string }[];
  requiredArgs: number;
  returnsSet: boolean;
  returnType: string;
  /** Returns a row type (table, view or composite) rather than a scalar. */
  returnsRow: boolean;
  isVoid: boolean;
  /** A to-one computed relationship (`rows 1`). */
  singleRow: boolean;
  /** Declared stable or immutable: it reads, never writes (PostgREST lets only these be called with GET). */
  readsOnly: boolean;
  /** A `returns table (...)` function's columns, so its rows can be filtered, ordered and paged as a table's. */
  table?: Relation;
}

/** What PostgREST keeps in its schema cache, for the `public` schema. */
export class Catalog {
  constructor(
    readonly relations: Map<string, Relation>,
    readonly foreignKeys: ForeignKey[],
    readonly functions: Map<string, DbFunction[]>,
  ) {}

  static async load(db: Queryable): Promise<Catalog> {
    const cols = await db.query<{ rel: string; col: string; type: string }>(`
      select c.relname as rel, a.attname as col, format_type(a.atttypid, a.atttypmod) as type
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      where n.nspname = 'public' and c.relkind in ('r', 'v', 'm', 'p')
      order by c.relname, a.attnum`);
    const open = await db.query<{ rel: string }>(`
      select c.relname as rel
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'v', 'm', 'p')
        and has_table_privilege('authenticated', c.oid, 'SELECT')
        and case when c.relkind = 'v'
              then not coalesce(c.reloptions && array['security_invoker=true', 'security_invoker=on', 'security_invoker=1'], false)
                   and pg_get_viewdef(c.oid) !~* '(auth\\.(uid|jwt|role|email)\\(|current_setting|current_user|session_user)'
              else not c.relrowsecurity
                   or (exists (select from pg_policies p where p.schemaname = n.nspname and p.tablename = c.relname
                                 and p.permissive = 'PERMISSIVE' and p.cmd in ('SELECT', 'ALL') and p.qual = 'true'
                                 and p.roles && array['authenticated', 'public']::name[])
                       and not exists (select from pg_policies p where p.schemaname = n.nspname and p.tablename = c.relname
                                         and p.permissive = 'RESTRICTIVE' and p.cmd in ('SELECT', 'ALL')))
            end`);
    const everyone = new Set(open.map((r) => r.rel));
    const pks = await db.query<{ rel: string; cols: string[] }>(`
      select cl.relname as rel, array(select a.attname from unnest(co.conkey) k join pg_attribute a on a.attrelid = co.conrelid and a.attnum = k) as cols
      from pg_constraint co join pg_class cl on cl.oid = co.conrelid join pg_namespace n on n.oid = cl.relnamespace
      where n.nspname = 'public' and co.contype = 'p'`);
    const fks = await db.query<{ from_rel: string; from_cols: string[]; to_rel: string; to_cols: string[] }>(`
      select src.relname as from_rel, dst.relname as to_rel,
        array(select a.attname from unnest(co.conkey) with ordinality k(n, i) join pg_attribute a on a.attrelid = co.conrelid and a.attnum = k.n order by k.i) as from_cols,
        array(select a.attname from unnest(co.confkey) with ordinality k(n, i) join pg_attribute a on a.attrelid = co.confrelid and a.attnum = k.n order by k.i) as to_cols
      from pg_constraint co
      join pg_class src on src.oid = co.conrelid join pg_namespace sn on sn.oid = src.relnamespace
      join pg_class dst on dst.oid = co.confrelid join pg_namespace dn on dn.oid = dst.relnamespace
      where co.contype = 'f' and sn.nspname = 'public' and dn.nspname = 'public'`);
    const fns = await db.query<{
      name: string;
      names: string[] | null;
      modes: string[] | null;
      types: string[];
      alltypes: string[];
      ndefaults: number;
      retset: boolean;
      rettype: string;
      typtype: string;
      isvoid: boolean;
      rows: number;
      volatility: string;
    }>(`
      select p.proname as name, p.proargnames as names, p.proargmodes::text[] as modes,
        array(select format_type(t, null) from unnest(p.proargtypes) t) as types,
        array(select format_type(t, null) from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) t) as alltypes,
        p.pronargdefaults as ndefaults, p.proretset as retset, format_type(p.prorettype, null) as rettype,
        t.typtype::text as typtype, p.prorettype = 'void'::regtype as isvoid, p.prorows::int as rows,
        p.provolatile::text as volatility
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace join pg_type t on t.oid = p.prorettype
      where n.nspname = 'public' and p.prokind = 'f' and p.prorettype <> 'trigger'::regtype`);

    const relations = new Map<string, Relation>();
    for (const c of cols) {
      if (!relations.has(c.rel))
        relations.set(c.rel, { name: c.rel, columns: new Map(), primaryKey: [], everyone: everyone.has(c.rel) });
      relations.get(c.rel)!.columns.set(c.col, c.type);
    }
    for (const pk of pks) {
      const rel = relations.get(pk.rel);
      if (rel) rel.primaryKey = pk.cols;
    }
    const functions = new Map<string, DbFunction[]>();
    for (const f of fns) {
      // Input arguments are those without a mode, or with mode i (in), b (inout) or v (variadic).
      const names = f.names ?? [];
      const inputNames = f.modes ? names.filter((_, i) => ['i', 'b', 'v'].includes(f.modes![i]!)) : names;
      const args = f.types.map((type, i) => ({ name: inputNames[i] ?? '', type }));
      const fn: DbFunction = {
        name: f.name,
        args,
        requiredArgs: args.length - f.ndefaults,
        returnsSet: f.retset,
        returnType: f.rettype,
        returnsRow: f.typtype === 'c' || (f.retset && !!f.modes?.includes('t')),
        isVoid: f.isvoid,
        singleRow: f.rows === 1,
        readsOnly: f.volatility !== 'v',
        table: tableOf(f),
      };
      functions.set(f.name, [...(functions.get(f.name) ?? []), fn]);
    }
    return new Catalog(
      relations,
      fks.map((f) => ({ from: f.from_rel, fromColumns: f.from_cols, to: f.to_rel, toColumns: f.to_cols })),
      functions,
    );
  }

  /** A computed relationship: a function `target(source)` returning rows of `target`. */
  computedRelationship(source: string, target: string): DbFunction | undefined {
    return this.functions
      .get(target)
      ?.find((f) => f.args.length === 1 && f.args[0]!.type === source && f.returnType === target);
  }
}

/** The columns of a `returns table (...)` function: its arguments of mode t, in order. */
function tableOf(f: { name: string; names: string[] | null; modes: string[] | null; alltypes: string[] }) {
  if (!f.modes?.includes('t')) return undefined;
  const columns = new Map<string, string>();
  f.modes.forEach((mode, i) => mode === 't' && columns.set(f.names![i]!, f.alltypes[i]!));
  return { name: f.name, columns, primaryKey: [], everyone: false } satisfies Relation;
}
