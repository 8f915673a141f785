import type { Database } from './db/database';
import { simulatedProvider } from './payments/simulated';
import { startPaymentWorker } from './payments/worker';
import { simulatedSocialProvider } from './social/simulated';
import { startSocialWorker } from './social/worker';
import { startAccountMailRelay, type Deliver } from './accountMail';

/**
 * The workers that play the outside world's part: the payment rail (payments/worker.ts), the social
 * platforms (social/worker.ts) and account mail (accountMail.ts), delivered by `mail`: to the local
 * server's outbox, or by SMTP. The local server runs them in its process; `npm run workers` runs them alone
 * over a PostgreSQL database someone else migrated, a hosted project's included (workersMain.ts).
 * Several of them may run at once: each claims its work with a lease, skip locked.
 */
export interface WorkerOptions {
  /** The simulated payment rail: its answer delay, how long withdrawals wait (cancellable), the lease. */
  payments?: { delayMs?: number; payoutAfterMs?: number; leaseMs?: number };
  /** The simulated social platform's answer time, and how often the worker looks for due reads (social.sql). */
  social?: { delayMs?: number; pollMs?: number };
  log?: (line: string) => void;
}

export async function startWorkers(db: Database, opts: WorkerOptions & { mail?: Deliver }) {
  const payments = await startPaymentWorker(db, simulatedProvider(opts.payments?.delayMs ?? 1500), {
    payoutAfterMs: opts.payments?.payoutAfterMs ?? 30_000,
    leaseMs: opts.payments?.leaseMs ?? 30_000,
    pollMs: 1000,
    log: opts.log,
  });
  const social = await startSocialWorker(db, simulatedSocialProvider(opts.social?.delayMs ?? 300), {
    pollMs: opts.social?.pollMs ?? 10_000,
    leaseMs: 60_000,
    log: opts.log,
  });
  const mail = opts.mail && (await startAccountMailRelay(db, { pollMs: 10_000, deliver: opts.mail, log: opts.log }));
  return {
    async close() {
      await Promise.all([payments.close(), social.close(), mail && mail.close()]);
    },
  };
}
