import type { Queryable } from '../server/db/database';
import type { Difference } from './catalog';
import { KINDS, KIND_ORDER, type Step } from './kinds';
import { schemaScript } from './schemas';

/**
 * The statements that take a database defined as `migrations` to the one defined as `schemas`,
 * from their catalogs' differences: what `supabase db diff` does with a shadow database, here
 * without Docker. Definitions are read back from the schema database itself (pg_get_functiondef,
 * pg_get_constraintdef, pg_get_indexdef, pg_get_triggerdef, pg_policies), so a migration says
 * exactly what the schema files made; a view is its schema file's own statement (`script`).
 *
 * It writes drops first (policies, triggers, views, functions, constraints, indexes, columns,
 * tables; a changed view's readers before it), then creations in dependency order (tables and columns, functions, views, constraints,
 * indexes, triggers, policies, grants, comments). What it cannot write (a column moved, a type,
 * default privileges, reference rows) comes back in `unsupported`, for a person to write by hand.
 */
export interface Plan {
  statements: string[];
  unsupported: string[];
}

/**
 * The views that read `view`, at any depth, in the schema database: PostgreSQL will not drop a
 * view others read, so a changed view's readers are dropped before it and made again after it.
 */
async function readersOf(schemas: Queryable, view: string): Promise<string[]> {
  const rows = await schemas.query<{ name: string }>(
    `with recursive readers(oid) as (
       select r.ev_class from pg_depend d join pg_rewrite r on r.oid = d.objid
        where d.classid = 'pg_rewrite'::regclass and d.refclassid = 'pg_class'::regclass
          and d.refobjid = $1::regclass and r.ev_class <> $1::regclass
       union
       select r.ev_class from readers x join pg_depend d on d.refobjid = x.oid
         join pg_rewrite r on r.oid = d.objid
        where d.classid = 'pg_rewrite'::regclass and d.refclassid = 'pg_class'::regclass and r.ev_class <> x.oid)
     select quote_ident(n.nspname) || '.' || quote_ident(c.relname) as name
       from readers x join pg_class c on c.oid = x.oid join pg_namespace n on n.oid = c.relnamespace`,
    [view],
  );
  return rows.map((r) => r.name);
}

/** The differences, with each changed view's readers changed too, put before it (so dropped first). */
async function withReaders(diffs: Difference[], schemas: Queryable): Promise<Difference[]> {
  const out: Difference[] = [];
  const named = new Set(diffs.map((d) => d.key));
  for (const d of diffs) {
    if (d.key.startsWith('view ') && d.change === 'differs')
      for (const reader of await readersOf(schemas, d.key.slice('view '.length))) {
        const key = `view ${reader}`;
        if (named.has(key)) continue;
        named.add(key);
        out.push({ key, change: 'differs' });
      }
    out.push(d);
  }
  return out;
}

export async function planMigration(diffs: Difference[], schemas: Queryable, script = schemaScript()): Promise<Plan> {
  const steps: { step: Step; sql: string; order: number }[] = [];
  const unsupported: string[] = [];
  const add = (step: Step, sql: string, order = 0) => void steps.push({ step, sql, order });
  for (const d of await withReaders(diffs, schemas)) {
    const [kind, ...rest] = d.key.split(' ');
    const handler = KINDS[kind!];
    if (!handler) {
      unsupported.push(`${d.key}: ${d.change}`);
      continue;
    }
    const gone = d.change === 'only in migrations';
    const changed = d.change === 'differs';
    await handler({ d, name: rest.join(' '), rest, gone, changed, schemas, script, add, unsupported });
  }
  const statements = steps
    .filter((s) => s.sql)
    .map((s, i) => ({ ...s, i }))
    .sort((a, b) => KIND_ORDER.indexOf(a.step) - KIND_ORDER.indexOf(b.step) || a.order - b.order || a.i - b.i)
    .map((s) => s.sql);
  return { statements: [...new Set(statements)], unsupported };
}
