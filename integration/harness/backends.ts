import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startBackend, type Backend, type BackendOptions } from '../../server/index';
import { DEMO_JWT_SECRET } from '../../server/demo';
import { NO_RATE_LIMITS } from '../../server/http/rateLimit';
import { migratedPgliteImage, migrationsHash } from './pgliteImage';
import { openPostgres } from '../../server/db/postgres';
import { migrate, seedDatabase } from '../../server/db/migrate';
import { env } from '../../server/env';

/** The PostgreSQL server the suite may use; .ci/run sets TEST_DATABASE_URL explicitly. */
export const ADMIN_URL = env().TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export type Engine = 'pglite' | 'postgres';

const urlOf = (name: string) => {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
};

/** A throw-away database on the PostgreSQL server (a copy of `template`, if named); resolves to its connection string. */
export async function createDatabase(prefix = 'repex_test', template?: string): Promise<string> {
  const name = `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}${template ? ` template ${template}` : ''}`);
  await admin.end();
  return urlOf(name);
}

/**
 * The name of a database on the PostgreSQL server after the platform and every migration, not
 * seeded, made once per set of migrations (as the PGlite image is, pgliteImage.ts) and copied for
 * each backend: copying a database is a file copy, migrating one took seconds. The workers of a
 * run take turns to make it; older ones are dropped.
 */
async function migratedTemplate(): Promise<string> {
  const name = `repex_template_${migrationsHash()}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`select pg_advisory_lock(hashtext('repex_template'))`);
    const { rows } = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (rows.length) return name;
    const { rows: old } = await admin.query<{ datname: string }>(
      `select datname from pg_database where datname like 'repex\_template\_%'`,
    );
    for (const { datname } of old) await admin.query(`drop database if exists ${datname} with (force)`);
    const building = `${name}_building`;
    await admin.query(`drop database if exists ${building} with (force)`);
    await admin.query(`create database ${building}`);
    const db = await openPostgres(urlOf(building));
    try {
      await migrate(db, { seed: false });
    } finally {
      await db.close();
    }
    await admin.query(`alter database ${building} rename to ${name}`);
    return name;
  } finally {
    await admin.query(`select pg_advisory_unlock(hashtext('repex_template'))`).catch(() => undefined);
    await admin.end();
  }
}
let template: Promise<string> | undefined;

export async function dropDatabase(url: string): Promise<void> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`drop database if exists ${new URL(url).pathname.slice(1)} with (force)`);
  await admin.end();
}

/**
 * Where a backend keeps its data on `engine`, for a test or bench that starts and kills servers
 * itself: `options` for an in-process backend, `env` for a spawned one (DATABASE_URL empty on
 * PGlite, so an inherited one cannot leak in), and `cleanup` to throw it away.
 */
export async function throwAwayStorage(
  engine: Engine,
  prefix: string,
): Promise<{ options: BackendOptions; env: Record<string, string>; cleanup: () => Promise<void> }> {
  if (engine === 'postgres') {
    const url = await createDatabase(prefix);
    return { options: { databaseUrl: url }, env: { DATABASE_URL: url }, cleanup: () => dropDatabase(url) };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  const dataDir = path.join(dir, 'db');
  return {
    options: { dataDir },
    env: { DATA_DIR: dataDir, DATABASE_URL: '' },
    cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * bcrypt's lowest cost for the accounts the suites make: they make thousands, and at the
 * production cost (BCRYPT_COST) their hashes and first sign-ins were a quarter of the suites'
 * CPU. What a password check does is the same at any cost; passwords.test.ts tests the cost.
 */
const TEST_HASH_COST = 4;

/**
 * A backend on an in-memory PGlite database started from the migrated image, then seeded (unless
 * `seed` is false), as a fresh install is.
 */
export async function startMigratedPglite(opts: BackendOptions): Promise<Backend> {
  const backend = await startBackend({
    passwordHashCost: TEST_HASH_COST,
    ...opts,
    pgliteImage: await migratedPgliteImage(),
    seed: false,
  });
  if (opts.seed !== false) await seedDatabase(backend.db);
  return backend;
}

/**
 * A backend on a fresh database of the PostgreSQL server, a copy of the migrated template, then
 * seeded (unless `seed` is false); dropped when the backend closes.
 */
async function startOnPostgres(extra: BackendOptions = {}): Promise<Backend> {
  template ??= migratedTemplate();
  const url = await createDatabase('repex_test', await template);
  const backend = await startBackend({
    port: 0,
    databaseUrl: url,
    jwtSecret: DEMO_JWT_SECRET,
    rateLimits: NO_RATE_LIMITS,
    passwordHashCost: TEST_HASH_COST,
    ...extra,
    seed: false,
  });
  if (extra.seed !== false) await seedDatabase(backend.db);
  return {
    ...backend,
    close: async () => {
      await backend.close();
      await dropDatabase(url);
    },
  };
}

/**
 * The engines every integration test runs on: both by default (a PostgreSQL server must answer
 * at TEST_DATABASE_URL or 127.0.0.1:5432); TEST_ENGINES=pglite narrows it on a machine without one.
 */
export const ENGINES: Engine[] = env().TEST_ENGINES ?? ['pglite', 'postgres'];

/**
 * The suites sign up and in far more often than people do, so auth rate limits are off here
 * (rate-limit.test.ts tests the real ones). Integration tests sign their clients with the CLI's demo keys (helpers/clients), so they ask for its secret. */
export function backendFor(name: Engine, extra: BackendOptions = {}): () => Promise<Backend> {
  return name === 'pglite'
    ? () =>
        startMigratedPglite({
          port: 0,
          jwtSecret: DEMO_JWT_SECRET,
          rateLimits: NO_RATE_LIMITS,
          ...extra,
        })
    : () => startOnPostgres(extra);
}

/** Polls `check` until it returns a value other than undefined, or fails after `ms`. */
export async function eventually<T>(check: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not reached within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
