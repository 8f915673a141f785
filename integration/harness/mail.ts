import type { Queryable } from '../../server/db/database';
import type { SupabaseClient } from '@supabase/supabase-js';

/** The mail the local server caught for an address (its outbox, where an inbox would be), oldest first. */
export const mailsTo = (db: Queryable, email: string) =>
  db.query<{ subject: string; body: string }>(
    'select subject, body from local_server.outbox where recipient = $1 order by id',
    [email],
  );

/** The code in the last mail to `email` that carries one (a new-browser notice may come after it). */
export async function lastCodeFor(db: Queryable, email: string): Promise<string | undefined> {
  const codes = (await mailsTo(db, email)).map((m) => /code is (\d+)\./.exec(m.body)?.[1]).filter(Boolean);
  return codes.at(-1);
}

/** Enters the code mailed at sign-up to `email` in client `c`, as the person would: `c` is signed in after. */
export async function confirmSignUp(db: Queryable, c: SupabaseClient, email: string): Promise<void> {
  const token = await lastCodeFor(db, email);
  if (!token) throw new Error(`no sign-up code was mailed to ${email}`);
  const { error } = await c.auth.verifyOtp({ email, token, type: 'signup' });
  if (error) throw new Error(`confirming ${email} failed: ${error.message}`);
}
