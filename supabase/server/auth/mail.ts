import type { Queryable } from '../db/database';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/**
 * Sends auth's mail. The local server has no mail relay: it catches every message in
 * local_server.outbox, as the Supabase CLI's Inbucket catches a local project's mail, and writes it
 * to the log, so that `npm start` shows a recovery code. A hosted project's auth sends real email.
 */
export async function sendMail(tx: Queryable, mail: Mail, log?: (line: string) => void): Promise<void> {
  await tx.query('insert into local_server.outbox (recipient, subject, body) values ($1, $2, $3)', [
    mail.to,
    mail.subject,
    mail.text,
  ]);
  log?.(`mail to ${mail.to}: ${mail.subject}\n${mail.text}`);
}
