import nodemailer from 'nodemailer';
import type { Database, Queryable } from './db/database';
import { sendMail, type Mail } from './auth/mail';
import { notifiedLoop } from './notifiedLoop';

/** As many as public.take_account_mail hands out at once. */
const TAKEN_AT_ONCE = 100;

/** Hands one message on, inside the transaction that took it: a failure puts it back. */
export type Deliver = (tx: Queryable, mail: Mail) => Promise<void>;

/** The local server's delivery: its outbox and the log (auth/mail.ts), in the taking transaction. */
export const toOutbox =
  (mailer: { siteUrl: string; log?: (line: string) => void }): Deliver =>
  (tx, mail) =>
    sendMail(tx, mail, mailer);

/**
 * Delivery by SMTP (`SMTP_URL`, smtp://user:pass@host:587 or smtps://…), for a database whose
 * server has no outbox (`npm run workers` over a hosted project). A message is sent before its
 * transaction commits: a failure to send leaves it to be taken again; a commit lost after the send
 * would send it again (at least once, never lost). Nodemailer speaks SMTP, TLS and auth for us.
 */
export function bySmtp(url: string, from: string, siteUrl: string): Deliver {
  const transport = nodemailer.createTransport(url);
  return async (_tx, mail) => {
    await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: `${mail.text}\n\nRepX · ${siteUrl}` });
  };
}

/**
 * Relays the mail the database asks to send (private.account_mail: a bank account added, a
 * withdrawal) by `deliver`. Each message is taken and delivered in one transaction, so none is
 * lost, also with several server processes. New mail arrives by NOTIFY; a poll catches what a
 * notice missed.
 */
export async function startAccountMailRelay(
  db: Database,
  opts: { pollMs: number; deliver: Deliver; log?: (line: string) => void },
) {
  // A batch as large as the function hands out may have left more behind: take again at once.
  return notifiedLoop(db, { name: 'account mail', channel: 'repx_mail', ...opts }, async () => {
    for (;;) {
      const taken = await db.transaction(async (tx) => {
        const rows = await tx.query<{ recipient: string; subject: string; body: string }>(
          'select recipient, subject, body from public.take_account_mail()',
        );
        for (const m of rows) await opts.deliver(tx, { to: m.recipient, subject: m.subject, text: m.body });
        return rows.length;
      });
      if (taken < TAKEN_AT_ONCE) return;
    }
  });
}
