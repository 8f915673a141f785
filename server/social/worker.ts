import type { Database } from '../db/database';
import { notifiedLoop } from '../notifiedLoop';
import { analyseAccount } from './analysis';
import type { Platform, SocialProvider } from './provider';

/** How many of an account's recent posts are read for its analysis. */
const POSTS_READ = 40;

interface Job {
  id: string;
  platform: Platform;
  handle: string;
  phrase: string;
  status: 'checking' | 'connected';
}

/**
 * Plays the platform's side for the local server, as the payment worker does for the rail: claims
 * each account waiting for its proof or due for its daily read (private.claim_social_job, leased,
 * skip locked), asks the provider, analyses what it read (analysis.ts) and writes the result with
 * private.record_social_read, or the reason with private.fail_social_job. A person's "Check" or
 * "Refresh now" arrives by NOTIFY; a poll finds the daily reads coming due.
 */
export async function startSocialWorker(
  db: Database,
  provider: SocialProvider,
  opts: { pollMs: number; leaseMs: number; log?: (line: string) => void },
) {
  const run = async (job: Job, stopped: () => boolean) => {
    try {
      if (job.status === 'checking') {
        const proof = await provider.prove(job.platform, job.handle, job.phrase);
        if (!proof.proven) {
          await db.query('select private.fail_social_job($1, $2)', [job.id, proof.message]);
          return;
        }
      }
      const profile = await provider.profile(job.platform, job.handle);
      if (!profile) {
        await db.query('select private.fail_social_job($1, $2)', [
          job.id,
          `There is no account @${job.handle} on ${job.platform}.`,
        ]);
        return;
      }
      const posts = await provider.posts(job.platform, job.handle, POSTS_READ);
      if (stopped()) return; // left claimed: handed out again after the lease
      await db.query('select private.record_social_read($1, $2::jsonb)', [
        job.id,
        JSON.stringify(analyseAccount(job.platform, profile, posts)),
      ]);
    } catch (error) {
      opts.log?.(
        `error social: ${job.platform} @${job.handle}: ${error instanceof Error ? error.message : String(error)}`,
      );
      await db
        .query('select private.fail_social_job($1, $2)', [job.id, 'The platform could not be read: try again later.'])
        .catch(() => undefined);
    }
  };

  return notifiedLoop(db, { name: 'social', channel: 'repx_social', ...opts }, async (stopped) => {
    while (!stopped()) {
      const [job] = await db.query<Job>('select * from private.claim_social_job($1::interval)', [
        `${opts.leaseMs} milliseconds`,
      ]);
      if (!job) return;
      await run(job, stopped);
    }
  });
}
