import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'smol-toml';

/** The supabase folder: config.toml, schemas/, migrations/ and seed.sql. */
const SUPABASE_DIR = path.resolve(__dirname, '../supabase');
const CONFIG_FILE = path.join(SUPABASE_DIR, 'config.toml');

/** The auth settings a Supabase CLI user sets in config.toml, which the local server honours. */
export interface AuthConfig {
  /** [auth] site_url: the app's address, which auth's mail points the reader to. */
  siteUrl: string;
  /** [auth] jwt_expiry: seconds an access token lives. */
  jwtExpiry: number;
  /** [auth] minimum_password_length. */
  minimumPasswordLength: number;
  /** [auth.email] enable_confirmations: sign-up waits for the mailed code; off, it signs the account in at once. */
  emailConfirmations: boolean;
}

/**
 * The CLI's own defaults for what a config.toml leaves out (`supabase init`'s file): a project
 * that says nothing about confirmations has them off, as the CLI's local stack does.
 */
export const CLI_AUTH_DEFAULTS: AuthConfig = {
  siteUrl: 'http://127.0.0.1:3000',
  jwtExpiry: 3600,
  minimumPasswordLength: 6,
  emailConfirmations: false,
};

/** What RepX reads of supabase/config.toml, the Supabase CLI's project file. */
export interface ProjectConfig {
  /** The declarative schema's files, absolute, in the order they are applied. */
  schemaPaths: string[];
  auth: AuthConfig;
  /** [api] max_rows: PostgREST's db-max-rows, where its estimated counts stop counting (none: they count all). */
  maxRows?: number;
}

interface Toml {
  api?: { max_rows?: unknown };
  db?: { migrations?: { schema_paths?: unknown } };
  auth?: {
    site_url?: unknown;
    jwt_expiry?: unknown;
    minimum_password_length?: unknown;
    email?: { enable_confirmations?: unknown };
  };
}

export function readProjectConfig(file = CONFIG_FILE): ProjectConfig {
  const toml = parse(fs.readFileSync(file, 'utf8')) as Toml;
  const paths = toml.db?.migrations?.schema_paths;
  if (!Array.isArray(paths) || !paths.every((p) => typeof p === 'string')) {
    throw new Error(`${file}: [db.migrations] schema_paths must list the schema files.`);
  }
  const auth = toml.auth ?? {};
  const setting = <T>(value: unknown, type: 'string' | 'number' | 'boolean', name: string, fallback: T): T => {
    if (value === undefined) return fallback;
    if (typeof value !== type) throw new Error(`${file}: ${name} must be a ${type}.`);
    return value as T;
  };
  const maxRows = setting<number | undefined>(toml.api?.max_rows, 'number', '[api] max_rows', undefined);
  if (maxRows !== undefined && !(Number.isInteger(maxRows) && maxRows > 0)) {
    throw new Error(`${file}: [api] max_rows must be a positive whole number.`);
  }
  return {
    maxRows,
    schemaPaths: paths.map((p) => path.resolve(path.dirname(file), p)),
    auth: {
      siteUrl: setting(auth.site_url, 'string', '[auth] site_url', CLI_AUTH_DEFAULTS.siteUrl),
      jwtExpiry: setting(auth.jwt_expiry, 'number', '[auth] jwt_expiry', CLI_AUTH_DEFAULTS.jwtExpiry),
      minimumPasswordLength: setting(
        auth.minimum_password_length,
        'number',
        '[auth] minimum_password_length',
        CLI_AUTH_DEFAULTS.minimumPasswordLength,
      ),
      emailConfirmations: setting(
        auth.email?.enable_confirmations,
        'boolean',
        '[auth.email] enable_confirmations',
        CLI_AUTH_DEFAULTS.emailConfirmations,
      ),
    },
  };
}
