import type { Database } from '../db/database';
import type { PaymentProvider } from './provider';
import { notifiedLoop } from '../notifiedLoop';

export interface PaymentWorkerOptions {
  /** How long a withdrawal waits, cancellable, before it is paid out (a payout batch). */
  payoutAfterMs: number;
  /** A payment left processing this long (a crash mid-way) is handed to the provider again. */
  leaseMs: number;
  /** How often to look for due payments besides the notices of new ones. */
  pollMs: number;
  log?: (line: string) => void;
}

interface Job {
  reference: string;
  type: 'deposit' | 'withdrawal';
  amount: string;
  method: string;
}

/**
 * Plays the provider's side for the local server: claims each due deposit or withdrawal, asks the
 * provider, and applies the answer with settle_payment (once per reference, in the transaction
 * that moves the cash). New requests arrive by NOTIFY; a poll catches payouts coming due and
 * anything left processing by a crash.
 */
export async function startPaymentWorker(db: Database, provider: PaymentProvider, opts: PaymentWorkerOptions) {
  let stopped = false;
  const inFlight = new Set<Promise<void>>();

  const settle = async (job: Job) => {
    try {
      const outcome = job.type === 'deposit' ? await provider.charge(job) : await provider.payout(job);
      if (stopped) return; // left processing: the next start hands it out again after the lease
      await db.query('select public.settle_payment($1, $2, $3)', [
        job.reference,
        outcome.succeeded,
        outcome.succeeded ? null : outcome.message,
      ]);
    } catch (error) {
      opts.log?.(
        `error payments: ${job.type} ${job.reference}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  };

  // Each payment is asked of the provider as it is claimed, without waiting for the one before.
  const loop = await notifiedLoop(db, { name: 'payments', channel: 'repx_payments', ...opts }, async () => {
    while (!stopped) {
      const [job] = await db.query<Job>('select * from public.claim_payment($1::interval, $2::interval)', [
        `${opts.payoutAfterMs} milliseconds`,
        `${opts.leaseMs} milliseconds`,
      ]);
      if (!job) return;
      const running = settle(job).finally(() => inFlight.delete(running));
      inFlight.add(running);
    }
  });
  return {
    async close() {
      stopped = true;
      await loop.close();
      await Promise.all(inFlight);
    },
  };
}
