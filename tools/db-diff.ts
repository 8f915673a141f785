/**
 * npm run db:diff                compare the migrations with the schema files; say what differs
 * npm run db:diff -- NAME        write supabase/migrations/<timestamp>_NAME.sql, the migration that
 *                                takes a database from the migrations to the schema files, and check it
 * npm run db:diff -- --squash    replace every migration with one baseline: the schema files as they are
 *
 * The Supabase CLI's `supabase db diff -f NAME` does the same with Docker; this runs on the
 * embedded PGlite, so it needs nothing but `npm install`. See docs/database.md.
 */
import fs from 'node:fs';
import path from 'node:path';
import { openPglite, emptyDataDirImage } from '../server/db/pglite';
import { MIGRATIONS_DIR, migrate } from '../server/db/migrate';
import { compareCatalogs, describeDifferences, readCatalog } from './catalog';
import { schemaDrift } from './drift';
import { planMigration } from './plan';
import { schemaScript } from './schemas';

const HEADER = (name: string) =>
  `-- ${name}: derived from supabase/schemas by \`npm run db:diff\`. Read the schema files, not this.\n` +
  `-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.\n` +
  `set local check_function_bodies = off;\n\n`;

function timestamp(): string {
  return new Date().toISOString().replace(/\D/g, '').slice(0, 14);
}

async function main(): Promise<void> {
  const arg = process.argv[2];
  if (arg === '--squash') {
    for (const f of fs.readdirSync(MIGRATIONS_DIR)) fs.rmSync(path.join(MIGRATIONS_DIR, f));
    const file = path.join(MIGRATIONS_DIR, `${timestamp()}_baseline.sql`);
    fs.writeFileSync(file, HEADER('The baseline') + schemaScript());
    console.log(
      `Wrote ${path.relative(process.cwd(), file)}: every migration squashed into the schema files as they are.`,
    );
    console.log('A database migrated by the old files is refused at start; start it afresh.');
    return;
  }
  const image = await emptyDataDirImage();
  const migrated = await openPglite(undefined, image);
  const declared = await openPglite(undefined, image);
  try {
    const diffs = await schemaDrift(migrated, declared);
    if (!diffs.length) {
      console.log('No difference: the migrations make exactly what supabase/schemas describes.');
      return;
    }
    if (!arg) {
      console.log(`The schema files differ from what the migrations make:\n${describeDifferences(diffs)}`);
      console.log('\nWrite the migration with: npm run db:diff -- <name>');
      process.exitCode = 1;
      return;
    }
    if (!/^[a-z0-9_]+$/.test(arg))
      throw new Error('Name the migration in lower case, digits and underscores: npm run db:diff -- add_stop_orders');
    const plan = await planMigration(diffs, declared);
    const file = path.join(MIGRATIONS_DIR, `${timestamp()}_${arg}.sql`);
    const todo = plan.unsupported.map((u) => `-- TODO by hand: ${u}\n`).join('');
    fs.writeFileSync(file, HEADER(arg) + todo + plan.statements.join('\n\n') + '\n');
    console.log(`Wrote ${path.relative(process.cwd(), file)} (${plan.statements.length} statements).`);
    await migrate(migrated, { seed: false });
    const left = compareCatalogs(await readCatalog(migrated), await readCatalog(declared));
    if (left.length || plan.unsupported.length) {
      console.log(`\nStill to write by hand, then run npm run db:diff again to check:\n${describeDifferences(left)}`);
      for (const u of plan.unsupported) console.log(`${u}`);
      process.exitCode = 1;
    } else {
      console.log('Checked: the migrations now make exactly what supabase/schemas describes.');
    }
  } finally {
    await migrated.close();
    await declared.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
