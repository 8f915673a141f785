import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJson, sendJson } from '../../http/io';
import { API_VERSION_HEADER, AuthErrors, authError } from '../errors';
import { sendMail } from '../mail';
import { startSession } from '../sessions';
import { USER_COLUMNS, type UserRow } from '../users';
import { EMAIL, asBody, findUserByEmail, str, type AuthContext } from '../context';

/**
 * Password recovery by a mailed code, as GoTrue does it: POST /recover mails the code, POST /verify
 * (type recovery) trades it for a session, and PUT /user sets the new password in that session.
 * Eight digits, an hour, five tries, and the account's lockout after wrong ones (shared with wrong
 * passwords): guessing a code is hopeless, while reading it off an email is easy.
 */
export const RECOVERY_CODE = { digits: 8, minutes: 60, tries: 5 };

const hashCode = (userId: string, code: string) =>
  crypto.createHash('sha256').update(`${userId}:${code}`).digest('hex');

function sameHash(a: string, b: string): boolean {
  return a.length === b.length && crypto.timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** POST /recover: mails a code if the address has an account that may sign in; the answer is the same either way. */
export async function recover(ctx: AuthContext, req: IncomingMessage, res: ServerResponse) {
  const email = str(asBody(await readJson(req)).email)
    .trim()
    .toLowerCase();
  if (!EMAIL.test(email)) throw authError(400, 'validation_failed', 'Unable to validate email address: invalid format');
  await ctx.limit('recovery', ctx.address(req));
  const wait = await ctx.limiter.recoveryEmail.take(email);
  if (wait > 0) throw AuthErrors.emailRateLimited(wait);
  const user = await findUserByEmail(ctx.db, email);
  if (user?.email && user.encrypted_password && !user.banned) {
    const code = crypto
      .randomInt(0, 10 ** RECOVERY_CODE.digits)
      .toString()
      .padStart(RECOVERY_CODE.digits, '0');
    await ctx.db.transaction(async (tx) => {
      // A new code replaces the last one, with its tries.
      await tx.query(
        `insert into auth.one_time_tokens (user_id, token_type, token_hash, relates_to)
         values ($1, 'recovery_token', $2, $3)
         on conflict (user_id, token_type) do update
           set token_hash = excluded.token_hash, relates_to = excluded.relates_to, attempts = 0, created_at = now()`,
        [user.id, hashCode(user.id, code), user.email],
      );
      await sendMail(
        tx,
        {
          to: user.email,
          subject: 'Your RepX password reset code',
          text:
            `Someone asked to reset the password of your RepX account. Your code is ${code}.\n` +
            `It works once, for ${RECOVERY_CODE.minutes} minutes. If it was not you, ignore this email: your password stays as it is.`,
        },
        ctx.log,
      );
    });
  }
  sendJson(res, 200, {}, API_VERSION_HEADER);
}

/** POST /verify, type recovery: a mailed code for a session in which the user sets a new password. */
export async function verify(ctx: AuthContext, req: IncomingMessage, res: ServerResponse) {
  const body = asBody(await readJson(req));
  if (str(body.type) !== 'recovery') {
    throw authError(400, 'validation_failed', 'Only password recovery codes are verified here.');
  }
  const email = str(body.email).trim().toLowerCase();
  const code = str(body.token).replace(/\s/g, '');
  if (!email || !code) throw authError(400, 'validation_failed', 'Verify requires an email and a token');
  await ctx.limit('signIn', ctx.address(req));
  const locked = await ctx.limiter.accountFailures.waitFor(email);
  if (locked > 0) throw AuthErrors.accountLocked(locked);
  const session = await ctx.db.transaction(async (tx) => {
    const user = await findUserByEmail(tx, email);
    if (!user) return null;
    const [held] = await tx.query<{ token_hash: string; attempts: number; live: boolean }>(
      `select token_hash, attempts, created_at > now() - make_interval(mins => $2) as live
       from auth.one_time_tokens where user_id = $1 and token_type = 'recovery_token' for update`,
      [user.id, RECOVERY_CODE.minutes],
    );
    if (!held?.live) return null;
    if (!sameHash(held.token_hash, hashCode(user.id, code))) {
      // A wrong try is counted (and kept: this transaction commits); the last one spends the code.
      await tx.query(
        held.attempts + 1 >= RECOVERY_CODE.tries
          ? `delete from auth.one_time_tokens where user_id = $1 and token_type = 'recovery_token'`
          : `update auth.one_time_tokens set attempts = attempts + 1 where user_id = $1 and token_type = 'recovery_token'`,
        [user.id],
      );
      return null;
    }
    if (user.banned) throw AuthErrors.banned();
    await tx.query(`delete from auth.one_time_tokens where user_id = $1 and token_type = 'recovery_token'`, [user.id]);
    const [signedIn] = await tx.query<UserRow>(
      `update auth.users set last_sign_in_at = now(), email_confirmed_at = coalesce(email_confirmed_at, now())
       where id = $1 returning ${USER_COLUMNS}`,
      [user.id],
    );
    return startSession(tx, ctx.settings, signedIn!, 'recovery');
  });
  if (!session) {
    await ctx.limiter.accountFailures.take(email);
    throw authError(403, 'otp_expired', 'Token has expired or is invalid');
  }
  sendJson(res, 200, session, API_VERSION_HEADER);
}
