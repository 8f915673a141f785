import fs from 'node:fs';
import path from 'node:path';
import type { Database } from './database';

const SUPABASE_DIR = path.resolve(__dirname, '../../supabase');
export const MIGRATIONS_DIR = path.join(SUPABASE_DIR, 'migrations');
const SEED_FILE = path.join(SUPABASE_DIR, 'seed.sql');
export const PLATFORM_FILE = path.join(__dirname, '../platform/platform.sql');

/**
 * Prepares a database as `supabase db reset` would: the platform (roles, auth schema), then each
 * migration not yet applied, in file-name order, each in its own transaction; then the seed,
 * once, on a database that had no migration before.
 */
export async function migrate(db: Database, opts: { seed: boolean }): Promise<{ applied: string[]; seeded: boolean }> {
  await applyPlatform(db);
  const done = new Set(
    (await db.query<{ version: string }>('select version from supabase_migrations.schema_migrations')).map(
      (r) => r.version,
    ),
  );
  const fresh = done.size === 0;
  const files = migrationFiles();
  refuseForeignHistory(done, new Set(files.map((f) => f.split('_')[0]!)));
  const applied: string[] = [];
  for (const file of files) {
    const [version, ...rest] = file.replace(/\.sql$/, '').split('_');
    if (done.has(version!)) continue;
    const sql = fs.readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8');
    await db
      .exec(
        `begin;\n${sql}\n;insert into supabase_migrations.schema_migrations (version, name) values ('${version}', '${rest.join('_')}');\ncommit;`,
      )
      .catch(async (error: unknown) => {
        await db.exec('rollback').catch(() => undefined);
        throw new Error(`Migration ${file} failed: ${error instanceof Error ? error.message : String(error)}`);
      });
    applied.push(file);
  }
  const seeded = fresh && opts.seed;
  if (seeded) await seedDatabase(db);
  return { applied, seeded };
}

/** The seed (supabase/seed.sql), in one transaction. */
export async function seedDatabase(db: Database): Promise<void> {
  await db.exec(`begin;\n${fs.readFileSync(SEED_FILE, 'utf8')}\ncommit;`);
}

const migrationFiles = () =>
  fs
    .readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith('.sql'))
    .sort();

/**
 * The migration files a database has not applied, without applying anything (a database someone
 * else migrates: a hosted project's, by `supabase db push`). A database that has none applied, or
 * no history table at all, lacks every file.
 */
export async function unappliedMigrations(db: Database): Promise<string[]> {
  const [{ known }] = (await db.query<{ known: boolean }>(
    `select to_regclass('supabase_migrations.schema_migrations') is not null as known`,
  )) as [{ known: boolean }];
  const done = known
    ? new Set(
        (await db.query<{ version: string }>('select version from supabase_migrations.schema_migrations')).map(
          (r) => r.version,
        ),
      )
    : new Set<string>();
  return migrationFiles().filter((f) => !done.has(f.split('_')[0]!));
}

/** What a Supabase project has before its first migration (roles, the auth schema); idempotent. */
export async function applyPlatform(db: Database): Promise<void> {
  await db.exec(fs.readFileSync(PLATFORM_FILE, 'utf8'));
}

/**
 * A database that has applied a version this checkout does not have was migrated by another
 * history (one squashed into the baseline since), so its objects may differ from the files'. It is
 * refused, as the Supabase CLI refuses a remote history it does not know.
 */
function refuseForeignHistory(done: Set<string>, known: Set<string>): void {
  const foreign = [...done].filter((v) => !known.has(v)).sort();
  if (!foreign.length) return;
  throw new Error(
    `This database was migrated by a history that supabase/migrations does not hold (version ${foreign.join(', ')}): ` +
      'it predates the squashed baseline. Start it afresh: delete its DATA_DIR (.data/pglite by default) ' +
      'or point DATABASE_URL at a new database.',
  );
}
