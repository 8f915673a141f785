import type { Database } from './db/database';

/**
 * The local server's scheduled jobs (pg_cron's role on a hosted project): each runs one SQL
 * statement every `everyMs`, never two of the same at once, and logs a failure instead of stopping.
 */
export function schedule(
  db: Database,
  jobs: ({ name: string; everyMs: number } & ({ sql: string } | { run: () => Promise<unknown> }))[],
  log?: (line: string) => void,
) {
  const timers = jobs.map((job) => {
    let running = false;
    return setInterval(() => {
      if (running) return;
      running = true;
      ('sql' in job ? db.query(job.sql) : job.run())
        .catch((error: unknown) =>
          log?.(`error schedule ${job.name}: ${error instanceof Error ? error.message : String(error)}`),
        )
        .finally(() => {
          running = false;
        });
    }, job.everyMs);
  });
  return { close: () => timers.forEach(clearInterval) };
}

/**
 * Runs `sql`, which answers whether it did one piece of work (`ran`), until it did none or `most`
 * times: one statement each, so that each piece commits on its own and holds its locks only while
 * it runs.
 */
async function drain(db: Database, sql: string, most: number): Promise<number> {
  let ran = 0;
  while (ran < most) {
    const [row] = await db.query<{ ran: boolean }>(sql);
    if (!row?.ran) break;
    ran++;
    // Embedded PGlite answers without leaving the event loop: let requests in between runs.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return ran;
}

/** Auto-Invest's due plans (supabase/schemas/auto_invest.sql), one per transaction. */
export const runDuePlans = (db: Database, most = 1000) => drain(db, 'select private.run_next_plan() as ran', most);

/** Offerings whose window has passed (supabase/schemas/offerings.sql), each closed in its own transaction. */
export const closeDueOfferings = (db: Database, most = 100) =>
  drain(db, 'select private.close_next_offering() as ran', most);
