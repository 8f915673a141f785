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
 * tables), then creations in dependency order (tables and columns, functions, views, constraints,
 * indexes, triggers, policies, grants, comments). What it cannot write (a column moved, a type,
 * default privileges, reference rows) comes back in `unsupported`, for a person to write by hand.
 */
export interface Plan {
  statements: string[];
  unsupported: string[];
}

export async function planMigration(diffs: Difference[], schemas: Queryable, script = schemaScript()): Promise<Plan> {
  const steps: { step: Step; sql: string; order: number }[] = [];
  const unsupported: string[] = [];
  const add = (step: Step, sql: string, order = 0) => void steps.push({ step, sql, order });
  for (const d of diffs) {
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
