import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'smol-toml';

/** The supabase folder: config.toml, schemas/, migrations/ and seed.sql. */
export const SUPABASE_DIR = path.resolve(__dirname, '..');
const CONFIG_FILE = path.join(SUPABASE_DIR, 'config.toml');

/** What RepX reads of supabase/config.toml, the Supabase CLI's project file. */
export interface ProjectConfig {
  /** The declarative schema's files, absolute, in the order they are applied. */
  schemaPaths: string[];
}

export function readProjectConfig(file = CONFIG_FILE): ProjectConfig {
  const toml = parse(fs.readFileSync(file, 'utf8')) as { db?: { migrations?: { schema_paths?: unknown } } };
  const paths = toml.db?.migrations?.schema_paths;
  if (!Array.isArray(paths) || !paths.every((p) => typeof p === 'string')) {
    throw new Error(`${file}: [db.migrations] schema_paths must list the schema files.`);
  }
  return { schemaPaths: paths.map((p) => path.resolve(path.dirname(file), p)) };
}
