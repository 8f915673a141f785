import type { Database } from '../server/db/database';

/**
 * A database's schema as a flat map from an object's name ("function private.money(numeric)",
 * "column public.orders.price", "policy public.orders \"own orders\"") to what defines it, read
 * from PostgreSQL's catalog. Two databases hold the same schema when their maps are equal; the
 * drift check and the migration generator both compare these maps.
 *
 * What is read: schemas and their grants, extensions, tables (row-level security, options,
 * comments, grants), columns in order (type, default, nullability, identity, generation, grants,
 * comments), constraints, indexes, sequences, types, functions (pg_get_functiondef: arguments,
 * result, language, volatility, security, settings and body), views, triggers, policies, default
 * privileges and the realtime publication. Objects an extension owns are the extension's.
 * The platform's own bookkeeping (applied migration versions) is left out.
 */
export type Catalog = Map<string, string>;

/** Schemas that PostgreSQL itself owns; everything else is read. */
const SYSTEM = `n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast', 'supabase_migrations') and n.nspname not like 'pg_temp%' and n.nspname not like 'pg_toast_temp%'`;
/** Leaves out what an extension created (pg_trgm's functions, say). */
const NOT_EXTENSION = (classId: string, oid: string) =>
  `not exists (select from pg_depend d where d.classid = '${classId}'::regclass and d.objid = ${oid} and d.deptype = 'e')`;

interface Row {
  key: string;
  def: string | null;
}

const QUERIES: string[] = [
  `select 'schema ' || n.nspname as key,
          array_to_string(array(select unnest(coalesce(n.nspacl, acldefault('n', n.nspowner)))::text order by 1), ',') as def
     from pg_namespace n where ${SYSTEM}`,
  `select 'extension ' || e.extname as key, n.nspname as def from pg_extension e join pg_namespace n on n.oid = e.extnamespace`,
  `select 'table ' || c.oid::regclass::text as key,
          concat_ws(' ', c.relkind::text, case when c.relrowsecurity then 'rls' end, case when c.relforcerowsecurity then 'force-rls' end,
                    'options=' || array_to_string(c.reloptions, ','),
                    'columns=' || (select string_agg(a.attname, ',' order by a.attnum) from pg_attribute a
                                     where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped)) as def
     from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p', 'f') and ${SYSTEM} and ${NOT_EXTENSION('pg_class', 'c.oid')}`,
  `select 'column ' || c.oid::regclass::text || '.' || a.attname as key,
          concat_ws(' ', format_type(a.atttypid, a.atttypmod), case when a.attnotnull then 'not null' end,
                    'collate ' || nullif(co.collname, 'default'),
                    'default ' || case when a.attgenerated::text = '' then pg_get_expr(ad.adbin, ad.adrelid) end,
                    'generated ' || case when a.attgenerated::text <> '' then pg_get_expr(ad.adbin, ad.adrelid) end,
                    'identity ' || nullif(a.attidentity::text, '')) as def
     from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
     left join pg_attrdef ad on ad.adrelid = a.attrelid and ad.adnum = a.attnum
     left join pg_collation co on co.oid = a.attcollation and a.attcollation <> 0 and co.collname <> 'default'
    where c.relkind in ('r', 'p', 'f', 'v', 'm') and a.attnum > 0 and not a.attisdropped and ${SYSTEM}
      and ${NOT_EXTENSION('pg_class', 'c.oid')}`,
  `select 'constraint ' || c.conrelid::regclass::text || ' ' || c.conname as key,
          concat_ws(' ', pg_get_constraintdef(c.oid), case when c.condeferrable then 'deferrable' end,
                    case when c.condeferred then 'initially deferred' end, case when not c.convalidated then 'not valid' end) as def
     from pg_constraint c join pg_namespace n on n.oid = c.connamespace
    where c.conrelid <> 0 and ${SYSTEM}`,
  `select 'index ' || n.nspname || '.' || i.relname as key, pg_get_indexdef(i.oid) as def
     from pg_index x join pg_class i on i.oid = x.indexrelid join pg_namespace n on n.oid = i.relnamespace
    where ${SYSTEM} and ${NOT_EXTENSION('pg_class', 'x.indrelid')}`,
  `select 'sequence ' || c.oid::regclass::text as key,
          concat_ws(' ', format_type(s.seqtypid, null), s.seqstart, s.seqincrement, s.seqmin, s.seqmax, s.seqcache, s.seqcycle) as def
     from pg_sequence s join pg_class c on c.oid = s.seqrelid join pg_namespace n on n.oid = c.relnamespace where ${SYSTEM}`,
  `select 'type ' || t.oid::regtype::text as key,
          concat_ws(' ', t.typtype::text,
                    (select string_agg(e.enumlabel, ',' order by e.enumsortorder) from pg_enum e where e.enumtypid = t.oid),
                    case when t.typtype = 'd' then format_type(t.typbasetype, t.typtypmod) end,
                    (select string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod), ',' order by a.attnum)
                       from pg_attribute a where a.attrelid = t.typrelid and t.typtype = 'c' and a.attnum > 0)) as def
     from pg_type t join pg_namespace n on n.oid = t.typnamespace
    where t.typtype in ('e', 'd', 'c') and (t.typrelid = 0 or (select relkind from pg_class where oid = t.typrelid) = 'c')
      and ${SYSTEM} and ${NOT_EXTENSION('pg_type', 't.oid')}`,
  `select 'function ' || p.oid::regprocedure::text as key, pg_get_functiondef(p.oid) as def
     from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where p.prokind in ('f', 'p') and ${SYSTEM} and ${NOT_EXTENSION('pg_proc', 'p.oid')}`,
  `select 'view ' || c.oid::regclass::text as key,
          concat_ws(' ', c.relkind::text, 'options=' || array_to_string(c.reloptions, ','), pg_get_viewdef(c.oid)) as def
     from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('v', 'm') and ${SYSTEM} and ${NOT_EXTENSION('pg_class', 'c.oid')}`,
  `select 'trigger ' || t.tgrelid::regclass::text || ' ' || t.tgname as key, pg_get_triggerdef(t.oid) || ' enabled=' || t.tgenabled::text as def
     from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
    where not t.tgisinternal and ${SYSTEM}`,
  `select 'policy ' || p.schemaname || '.' || p.tablename || ' "' || p.policyname || '"' as key,
          concat_ws(' ', p.permissive, p.cmd, 'to ' || array_to_string(array(select unnest(p.roles) order by 1), ','),
                    'using ' || p.qual, 'check ' || p.with_check) as def
     from pg_policies p`,
  // Grants as they take effect: an object still on PostgreSQL's defaults (no ACL yet) reads as those.
  `select 'grant on ' || case when c.relkind in ('v', 'm') then 'view ' when c.relkind = 'S' then 'sequence ' else 'table ' end
            || c.oid::regclass::text as key,
          array_to_string(array(select unnest(coalesce(c.relacl, acldefault((case when c.relkind = 'S' then 'S' else 'r' end)::"char", c.relowner)))::text
                                order by 1), ',') as def
     from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p', 'v', 'm', 'S', 'f') and ${SYSTEM} and ${NOT_EXTENSION('pg_class', 'c.oid')}`,
  `select 'grant on column ' || c.oid::regclass::text || '.' || a.attname as key,
          array_to_string(array(select unnest(a.attacl)::text order by 1), ',') as def
     from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
    where a.attacl is not null and ${SYSTEM}`,
  `select 'grant on function ' || p.oid::regprocedure::text as key,
          array_to_string(array(select unnest(coalesce(p.proacl, acldefault('f', p.proowner)))::text order by 1), ',') as def
     from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where ${SYSTEM} and ${NOT_EXTENSION('pg_proc', 'p.oid')}`,
  `select 'default privileges ' || pg_get_userbyid(d.defaclrole) || ' ' || coalesce(n.nspname, '*') || ' ' || d.defaclobjtype::text as key,
          array_to_string(array(select unnest(d.defaclacl)::text order by 1), ',') as def
     from pg_default_acl d left join pg_namespace n on n.oid = d.defaclnamespace`,
  `select 'comment on ' || case when d.objsubid = 0 then 'relation ' || c.oid::regclass::text
                               else 'column ' || c.oid::regclass::text || '.' || a.attname end as key, d.description as def
     from pg_description d join pg_class c on c.oid = d.objoid and d.classoid = 'pg_class'::regclass
     join pg_namespace n on n.oid = c.relnamespace
     left join pg_attribute a on a.attrelid = c.oid and a.attnum = d.objsubid
    where ${SYSTEM}`,
  `select 'comment on function ' || p.oid::regprocedure::text as key, d.description as def
     from pg_description d join pg_proc p on p.oid = d.objoid and d.classoid = 'pg_proc'::regclass
     join pg_namespace n on n.oid = p.pronamespace where ${SYSTEM} and ${NOT_EXTENSION('pg_proc', 'p.oid')}`,
  `select 'publication ' || p.pubname || ' ' || t.schemaname || '.' || t.tablename as key, 'published' as def
     from pg_publication_tables t join pg_publication p on p.pubname = t.pubname`,
];

export async function readCatalog(db: Database): Promise<Catalog> {
  const catalog: Catalog = new Map();
  // An empty search path makes every name in a definition schema-qualified, whatever the engine's default.
  await db.transaction(async (tx) => {
    await tx.query(`set local search_path = ''`);
    for (const sql of QUERIES) {
      for (const row of await tx.query<Row>(sql)) catalog.set(row.key, row.def ?? '');
    }
  });
  return catalog;
}

export interface Difference {
  key: string;
  /** Present in the first catalog only, the second only, or in both but defined differently. */
  change: 'only in migrations' | 'only in schemas' | 'differs';
  migrations?: string;
  schemas?: string;
}

/** Every object defined differently in the two catalogs, named, in a stable order. */
export function compareCatalogs(migrations: Catalog, schemas: Catalog): Difference[] {
  const keys = [...new Set([...migrations.keys(), ...schemas.keys()])].sort();
  const out: Difference[] = [];
  for (const key of keys) {
    const a = migrations.get(key);
    const b = schemas.get(key);
    if (a === b) continue;
    if (b === undefined) out.push({ key, change: 'only in migrations', migrations: a });
    else if (a === undefined) out.push({ key, change: 'only in schemas', schemas: b });
    else out.push({ key, change: 'differs', migrations: a, schemas: b });
  }
  return out;
}

/** The differences as a reader wants them: one line per object, with the first differing line of each. */
export function describeDifferences(diffs: Difference[]): string {
  return diffs
    .map((d) => {
      if (d.change !== 'differs') return `${d.key}: ${d.change}`;
      const a = (d.migrations ?? '').split('\n');
      const b = (d.schemas ?? '').split('\n');
      const i = a.findIndex((line, k) => line !== b[k]);
      const at = i < 0 ? a.length : i;
      return `${d.key}: differs\n    migrations: ${(a[at] ?? '(end)').trim()}\n    schemas:    ${(b[at] ?? '(end)').trim()}`;
    })
    .join('\n');
}
