/**
 * `npm run workers` runs the payment, connected-account and account-mail workers alone (workers.ts) over
 * DATABASE_URL: a PostgreSQL database that someone else migrated, the local server or a hosted
 * project's `supabase db push`. Nothing is migrated or seeded here, and a database that lacks a
 * migration is refused: the workers call what the migrations define. LISTEN needs a session, so a
 * hosted project's address is its direct connection or its session pooler, not the transaction one.
 */
import { openPostgres } from './db/postgres';
import { unappliedMigrations } from './db/migrate';
import { backendOptionsFromEnv } from './options';
import { startWorkers } from './workers';
import { bySmtp } from './accountMail';
import { env } from './env';

async function main() {
  const opts = backendOptionsFromEnv();
  if (!opts.databaseUrl)
    throw new Error(
      'npm run workers needs DATABASE_URL: the PostgreSQL database whose payments and connected accounts it serves.',
    );
  const db = await openPostgres(opts.databaseUrl, 4);
  const missing = await unappliedMigrations(db);
  if (missing.length) {
    await db.close();
    throw new Error(
      `The database lacks ${missing.length} of supabase/migrations (the first: ${missing[0]}): ` +
        'apply them first (npm start with this DATABASE_URL, or supabase db push).',
    );
  }
  // The local server's outbox is not there: account mail goes by SMTP, or waits until it is set.
  const { SMTP_URL: smtp, MAIL_FROM: from = 'RepX <no-reply@repx.dev>' } = env();
  const mail = smtp ? bySmtp(smtp, from, opts.siteUrl!) : undefined;
  const workers = await startWorkers(db, { ...opts, mail });
  console.log(
    `workers on: payments, connected accounts, ${mail ? 'account mail by SMTP' : 'no account mail (SMTP_URL)'}`,
  );
  const stop = async () => {
    await workers.close();
    await db.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
