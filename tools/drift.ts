import type { Database } from '../server/db/database';
import { migrate } from '../server/db/migrate';
import { compareCatalogs, readCatalog, type Difference } from './catalog';
import { applySchemas } from './schemas';

/**
 * Builds one database from the migrations and another from the schema files, and compares their
 * catalogs: empty when the migrations make exactly what the schema files describe.
 */
export async function schemaDrift(
  migrated: Database,
  declared: Database,
  opts: { schemaScript?: string; afterMigrations?: (db: Database) => Promise<void> } = {},
): Promise<Difference[]> {
  await migrate(migrated, { seed: false });
  await opts.afterMigrations?.(migrated);
  await applySchemas(declared, opts.schemaScript);
  return compareCatalogs(await readCatalog(migrated), await readCatalog(declared));
}
