import os from 'node:os';
import type { Database } from './db/database';

type Job = { name: string; everyMs: number } & ({ sql: string } | { run: () => Promise<unknown> });

/** Who claimed a run, as local_server.job_runs shows it. */
const ME = `${os.hostname()}:${process.pid}`;
const CLAIM = 'select local_server.claim_job($1, $2, $3) as claimed';

/**
 * The local server's scheduled jobs (pg_cron's role on a hosted project): each runs `sql`, or
 * `run`, every `everyMs`, and logs a failure instead of stopping. Every process of every host
 * schedules every job, but a run must first claim the job's period in the database
 * (local_server.claim_job, platform.sql), so a job runs once per deployment, however many
 * processes or hosts there are. A statement job claims in its own transaction, so no other
 * process starts it while it runs; a job that drains (several transactions) holds its claim for
 * the period.
 */
export function schedule(db: Database, jobs: Job[], log?: (line: string) => void) {
  const timers = jobs.map((job) => {
    let running = false;
    return setInterval(() => {
      if (running) return;
      running = true;
      runOnce(db, job)
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

async function runOnce(db: Database, job: Job): Promise<void> {
  const claim = [job.name, job.everyMs, ME];
  if ('sql' in job) {
    await db.transaction(async (tx) => {
      const [row] = await tx.query<{ claimed: boolean }>(CLAIM, claim);
      if (row?.claimed) await tx.query(job.sql);
    });
    return;
  }
  const [row] = await db.query<{ claimed: boolean }>(CLAIM, claim);
  if (row?.claimed) await job.run();
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

/** Volatility auctions (supabase/schemas/auctions.sql): holders told of a start, then the due uncrossed, each in its own transaction. */
export const runVolatilityAuctions = (db: Database, most = 100) =>
  drain(db, 'select private.step_volatility_auctions() as ran', most);

/** Portfolio Analysis's closed days kept (analysis.sql), 50 people per transaction. */
export const keepPortfolioCloses = (db: Database, most = 20) =>
  drain(db, 'select private.keep_next_portfolio() as ran', most);
