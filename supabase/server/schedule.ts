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
