import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { emptyDataDirImage, openPglite } from '../../server/db/pglite';
import { MIGRATIONS_DIR, PLATFORM_FILE, migrate } from '../../server/db/migrate';

let image: Promise<Blob> | undefined;
let migrated: Promise<Blob> | undefined;

/**
 * The empty data directory the suites' in-memory PGlite databases start from, made once per PGlite
 * version and kept in the temp folder for the next test file and run: initdb took about two thirds
 * of each new database's start (3-5 s of 4-6 on this kind of machine), and the suites start about
 * sixty. Migrations and the seed still run on each database, as on any fresh install.
 */
export function pgliteImage(): Promise<Blob> {
  image ??= readOrMake();
  return image;
}

/**
 * The data directory after the platform and every migration, not seeded, made once per PGlite
 * version and set of migrations: the migrations took most of the rest of a database's start
 * (several seconds each, for each of the hundred-odd PGlite backends of a test run). The suites
 * seed each database themselves (seedDatabase), so its times are the test's own; the migrations'
 * own path, one by one onto a database, is integration/migrations.test.ts's.
 */
export function migratedPgliteImage(): Promise<Blob> {
  migrated ??= readOrMake(`migrated-${migrationsHash()}`, async () => {
    const db = await openPglite(undefined, await pgliteImage());
    await migrate(db, { seed: false });
    const made = await db.dumpDataDir();
    await db.close();
    return made;
  });
  return migrated;
}

async function readOrMake(name = 'empty', make: () => Promise<Blob> = emptyDataDirImage): Promise<Blob> {
  const file = path.join(os.tmpdir(), `repex-pglite-${pgliteVersion()}-${name}.tar`);
  if (fs.existsSync(file)) return new Blob([fs.readFileSync(file)]);
  const made = await make();
  // Written aside and renamed: a test file in another worker reads a whole image or none.
  const partial = `${file}.${process.pid}`;
  fs.writeFileSync(partial, Buffer.from(await made.arrayBuffer()));
  fs.renameSync(partial, file);
  return made;
}

/** What the migrated image depends on: the platform script and each migration, by name and content. */
export function migrationsHash(): string {
  const hash = crypto.createHash('sha256');
  hash.update(fs.readFileSync(PLATFORM_FILE));
  for (const file of fs.readdirSync(MIGRATIONS_DIR).sort()) {
    hash.update(file);
    hash.update(fs.readFileSync(path.join(MIGRATIONS_DIR, file)));
  }
  return hash.digest('hex').slice(0, 16);
}

function pgliteVersion(): string {
  const dist = path.dirname(require.resolve('@electric-sql/pglite'));
  return (JSON.parse(fs.readFileSync(path.join(dist, '..', 'package.json'), 'utf8')) as { version: string }).version;
}
