import type { Database } from './db/database';
import { sendMail } from './auth/mail';
import { notifiedLoop } from './notifiedLoop';

/** As many as public.take_account_mail hands out at once. */
const TAKEN_AT_ONCE = 100;

/**
 * Relays the mail the database asks to send (private.account_mail: a bank account added, a
 * withdrawal) to the local server's outbox, as a hosted project's scheduled function would to a
 * mail service. Each message is taken and sent in one transaction, so none is lost or sent twice,
 * also with several server processes. New mail arrives by NOTIFY; a poll catches what a notice missed.
 */

export async function startAccountMailRelay(
  db: Database,
  opts: { pollMs: number; siteUrl: string; log?: (line: string) => void },
) {
  // A batch as large as the function hands out may have left more behind: take again at once.
  return notifiedLoop(db, { name: 'account mail', channel: 'repx_mail', ...opts }, async () => {
    for (;;) {
      const taken = await db.transaction(async (tx) => {
        const rows = await tx.query<{ recipient: string; subject: string; body: string }>(
          'select recipient, subject, body from public.take_account_mail()',
        );
        for (const m of rows) await sendMail(tx, { to: m.recipient, subject: m.subject, text: m.body }, opts);
        return rows.length;
      });
      if (taken < TAKEN_AT_ONCE) return;
    }
  });
}
