/**
 * npm run db:types              writes shared-ui/src/contracts/database.ts from the database the migrations make
 * npm run db:types -- --check   says whether that file is current (npm test checks it too)
 *
 * The Supabase CLI's `supabase gen types typescript --local` writes the same shape; this runs on
 * the embedded PGlite, so it needs nothing but `npm install`.
 */
import fs from 'node:fs';
import { emptyDataDirImage, openPglite } from '../server/db/pglite';
import { migrate } from '../server/db/migrate';
import { DATABASE_TYPES_FILE, formattedTypes } from './typesFile';

async function main(): Promise<void> {
  const db = await openPglite(undefined, await emptyDataDirImage());
  try {
    await migrate(db, { seed: false });
    const text = await formattedTypes(db);
    if (process.argv.includes('--check')) {
      const current = fs.existsSync(DATABASE_TYPES_FILE) ? fs.readFileSync(DATABASE_TYPES_FILE, 'utf8') : '';
      if (current !== text) {
        console.error('shared-ui/src/contracts/database.ts is stale: run npm run db:types.');
        process.exitCode = 1;
      } else console.log('shared-ui/src/contracts/database.ts is current.');
      return;
    }
    fs.writeFileSync(DATABASE_TYPES_FILE, text);
    console.log('Wrote shared-ui/src/contracts/database.ts.');
  } finally {
    await db.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
