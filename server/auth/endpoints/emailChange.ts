import type { ServerResponse } from 'node:http';
import type { Queryable } from '../../db/database';
import { isPgError } from '../../db/database';
import { sendJson } from '../../http/io';
import { API_VERSION_HEADER, AuthErrors, authError } from '../errors';
import { sendMail } from '../mail';
import { USER_COLUMNS, userJson, type UserRow } from '../users';
import { findUserByEmail, type AuthContext } from '../context';
import { MAILED_CODE, codeMatches, issueCode, spendCode } from '../codes';

/*
 * A new email takes effect only once a code mailed to it is entered, as GoTrue's email change
 * does (PUT /user keeps it in email_change; POST /verify type email_change confirms it). A typo in
 * the new address would otherwise take the account's recovery mail, and with it the way back in,
 * to an address nobody reads.
 */

export const emailExists = () =>
  authError(422, 'email_exists', 'A user with this email address has already been registered');

/**
 * Mails the code to the new address and tells the current one, in `tx` (PUT /user's transaction,
 * after the current password was checked). A new request replaces the last code and address.
 */
export async function askEmailChange(ctx: AuthContext, tx: Queryable, user: UserRow, email: string): Promise<void> {
  const code = await issueCode(tx, user.id, 'email_change_token_new', email);
  await tx.query('update auth.users set email_change = $2, email_change_sent_at = now() where id = $1', [
    user.id,
    email,
  ]);
  await sendMail(
    tx,
    {
      to: email,
      subject: 'Confirm your new RepX email',
      text:
        `Enter this code in RepX to make ${email} your account's email: your code is ${code}.\n` +
        `It works once, for ${MAILED_CODE.minutes} minutes. If you did not ask for it, ignore this email.`,
    },
    ctx.mailer,
  );
  await sendMail(
    tx,
    {
      to: user.email,
      subject: 'A change of your RepX email was asked for',
      text:
        `Someone signed in to your RepX account asked to change its email to ${email}. It changes once the code mailed there is entered.\n` +
        'If it was not you, reset your password now with Forgot password? on the sign-in page.',
    },
    ctx.mailer,
  );
}

/** POST /verify, type email_change: the code mailed to the new address makes it the account's email. */
export async function verifyEmailChange(
  ctx: AuthContext,
  res: ServerResponse,
  email: string,
  code: string,
  address: string,
) {
  // Wrong codes are bounded per address (auth/lockout.ts) rather than burning the code: a stranger
  // guessing at the new address must not be able to spend the owner's code.
  const guess = await ctx.lockout.guess(`email-change:${await ctx.lockout.accountOf(email)}`, address);
  if (guess.wait > 0) throw AuthErrors.accountLocked(guess.wait);
  let changed: UserRow | null;
  try {
    changed = await ctx.db.transaction(async (tx) => {
      // Several accounts may be waiting to move to the same address; the code tells whose it is.
      const held = await tx.query<{ user_id: string; token_hash: string; attempts: number; live: boolean }>(
        `select user_id, token_hash, attempts, created_at > now() - make_interval(mins => $2) as live
         from auth.one_time_tokens where token_type = 'email_change_token_new' and relates_to = $1
         order by user_id for update`,
        [email, MAILED_CODE.minutes],
      );
      const mine = held.find((h) => h.live && codeMatches(h.token_hash, h.user_id, code));
      if (!mine) return null;
      const [user] = await tx.query<UserRow>(`select ${USER_COLUMNS} from auth.users where id = $1 for update`, [
        mine.user_id,
      ]);
      if (user!.banned) throw AuthErrors.banned();
      const other = await findUserByEmail(tx, email);
      if (other && other.id !== user!.id) throw emailExists();
      await spendCode(tx, user!.id, 'email_change_token_new');
      const [row] = await tx.query<UserRow>(
        `update auth.users set email = $2, email_change = null, email_change_sent_at = null,
           email_confirmed_at = now(), updated_at = now()
         where id = $1 returning ${USER_COLUMNS}`,
        [user!.id, email],
      );
      await sendMail(
        tx,
        {
          to: user!.email,
          subject: 'Your RepX email was changed',
          text: `Your RepX account's email was changed from ${user!.email} to ${email}. If it was not you, contact support at once.`,
        },
        ctx.mailer,
      );
      return row!;
    });
  } catch (error) {
    // Another account took the address between the check and the update.
    if (isPgError(error) && error.code === '23505') throw emailExists();
    throw error;
  }
  if (!changed) throw authError(403, 'otp_expired', 'Token has expired or is invalid');
  await guess.right();
  // The user, without a new session: the session that asked stays, and its next token carries the
  // new address (GoTrue would also start a session here; auth-js takes either answer).
  sendJson(res, 200, userJson(changed), API_VERSION_HEADER);
}
