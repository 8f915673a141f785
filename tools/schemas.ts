import fs from 'node:fs';
import type { Database } from '../server/db/database';
import { applyPlatform } from '../server/db/migrate';
import { readProjectConfig } from '../server/projectConfig';

/** The declarative schema as one script: its files in config.toml's order. */
export function schemaScript(files = readProjectConfig().schemaPaths): string {
  return files.map((file) => fs.readFileSync(file, 'utf8')).join('\n');
}

/**
 * Builds a database from the declarative schema alone, as the Supabase CLI's shadow database is
 * built from it: the platform, then every schema file, in one transaction.
 */
export async function applySchemas(db: Database, script = schemaScript()): Promise<void> {
  await applyPlatform(db);
  await db.exec(`begin;\n${script}\n;commit;`).catch(async (error: unknown) => {
    await db.exec('rollback').catch(() => undefined);
    throw new Error(`The schema files failed to apply: ${error instanceof Error ? error.message : String(error)}`);
  });
}
