import type { Queryable } from '../db/database';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Where mail is sent from: the app's address it signs with ([auth] site_url), and the log. */
export interface Mailer {
  siteUrl: string;
  log?: (line: string) => void;
}

/**
 * Sends auth's mail, signed with the app's address so the reader knows where to enter a code or
 * sign in (and that a mail naming another address is not ours). The local server has no mail relay: it catches every message in
 * local_server.outbox, as the Supabase CLI's Inbucket catches a local project's mail, and writes it
 * to the log, so that `npm start` shows a recovery code. A hosted project's auth sends real email.
 */
export async function sendMail(tx: Queryable, mail: Mail, mailer: Mailer): Promise<void> {
  const body = `${mail.text}\n\nRepX · ${mailer.siteUrl}`;
  await tx.query('insert into local_server.outbox (recipient, subject, body) values ($1, $2, $3)', [
    mail.to,
    mail.subject,
    body,
  ]);
  mailer.log?.(`mail to ${mail.to}: ${mail.subject}\n${body}`);
}
