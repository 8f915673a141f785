import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJson, sendJson } from '../../http/io';
import { API_VERSION_HEADER, AuthErrors, authError } from '../errors';
import { sendMail } from '../mail';
import { startSession, type SessionClient, type SignInMethod } from '../sessions';
import { USER_COLUMNS, type UserRow } from '../users';
import { EMAIL, asBody, findUserByEmail, emailField, str, type AuthContext } from '../context';
import { MAILED_CODE, codeMatches, countWrongTry, issueCode, spendCode, typedCode, type CodeKind } from '../codes';
import { verifyEmailChange } from './emailChange';

/*
 * Password recovery by a mailed code, as GoTrue does it: POST /recover mails the code, POST /verify
 * (type recovery) trades it for a session, and PUT /user sets the new password in that session.
 * Wrong codes count toward the account's lockout, as wrong passwords do.
 */

/** POST /recover: mails a code if the address has an account that may sign in; the answer is the same either way. */
export async function recover(ctx: AuthContext, req: IncomingMessage, res: ServerResponse) {
  const email = emailField(asBody(await readJson(req)).email).toLowerCase();
  if (!EMAIL.test(email)) throw authError(400, 'validation_failed', 'Unable to validate email address: invalid format');
  await ctx.limit('recovery', ctx.address(req));
  const wait = await ctx.limiter.recoveryEmail.take(email);
  if (wait > 0) throw AuthErrors.emailRateLimited(wait);
  const user = await findUserByEmail(ctx.db, email);
  if (user?.email && user.encrypted_password && !user.banned) {
    await ctx.db.transaction(async (tx) => {
      const code = await issueCode(tx, user.id, 'recovery_token', user.email);
      await sendMail(
        tx,
        {
          to: user.email,
          subject: 'Your RepX password reset code',
          text:
            `Someone asked to reset the password of your RepX account. Your code is ${code}.\n` +
            `It works once, for ${MAILED_CODE.minutes} minutes. If it was not you, ignore this email: your password stays as it is.`,
        },
        ctx.mailer,
      );
    });
  }
  sendJson(res, 200, {}, API_VERSION_HEADER);
}

/**
 * POST /otp (supabase-js signInWithOtp): mails a sign-in code to an account that may sign in. It
 * makes no account (as shouldCreateUser: false), and answers the same whether or not the address
 * has one. The code is GoTrue's magic-link code (the recovery slot): /verify with type email or
 * magiclink trades it for a session. It is the owner's way in when wrong passwords from strangers
 * have locked the account at a new address.
 */
export async function signInCode(ctx: AuthContext, req: IncomingMessage, res: ServerResponse) {
  const email = emailField(asBody(await readJson(req)).email).toLowerCase();
  if (!EMAIL.test(email)) throw authError(400, 'validation_failed', 'Unable to validate email address: invalid format');
  await ctx.limit('recovery', ctx.address(req));
  const wait = await ctx.limiter.recoveryEmail.take(email);
  if (wait > 0) throw AuthErrors.emailRateLimited(wait);
  const user = await findUserByEmail(ctx.db, email);
  if (user?.email && user.email_confirmed_at && !user.banned) {
    await ctx.db.transaction(async (tx) => {
      const code = await issueCode(tx, user.id, 'recovery_token', user.email);
      await sendMail(
        tx,
        {
          to: user.email,
          subject: 'Your RepX sign-in code',
          text:
            `Someone asked to sign in to your RepX account with a code. Your code is ${code}.\n` +
            `It works once, for ${MAILED_CODE.minutes} minutes. If it was not you, ignore this email: no one can use it without your mailbox.`,
        },
        ctx.mailer,
      );
    });
  }
  sendJson(res, 200, {}, API_VERSION_HEADER);
}

/**
 * POST /verify: a mailed code, of a sign-up (type signup, or email as newer clients send it), of
 * a sign-in by code (type email or magiclink, for a confirmed account), of password recovery or
 * of a new email.
 */
export async function verify(ctx: AuthContext, req: IncomingMessage, res: ServerResponse) {
  const body = asBody(await readJson(req));
  const type = str(body.type);
  if (!['signup', 'email', 'magiclink', 'recovery', 'email_change'].includes(type)) {
    throw authError(
      400,
      'validation_failed',
      'Only sign-up, sign-in, password recovery and email change codes are verified here.',
    );
  }
  const email = emailField(body.email).toLowerCase();
  const code = typedCode(str(body.token));
  if (!email || !code) throw authError(400, 'validation_failed', 'Verify requires an email and a token');
  await ctx.limit('signIn', ctx.address(req));
  if (type === 'email_change') return verifyEmailChange(ctx, res, email, code, ctx.address(req));
  // Type email is a sign-up's code for an account not yet confirmed, and a sign-in code for one that is.
  const confirmed = type === 'email' && !!(await findUserByEmail(ctx.db, email))?.email_confirmed_at;
  const [kind, method]: [CodeKind, SignInMethod] =
    type === 'recovery'
      ? ['recovery_token', 'recovery']
      : type === 'magiclink' || confirmed
        ? ['recovery_token', 'otp']
        : ['confirmation_token', 'otp'];
  await verifyMailedCode(ctx, res, email, code, ctx.client(req), kind, method, ctx.address(req));
}

/**
 * A mailed code for a session: a sign-up's confirms the address and signs the new account in; a
 * recovery code starts a session in which the user sets a new password (and confirms the address
 * too, since the code was read off its mail).
 */
async function verifyMailedCode(
  ctx: AuthContext,
  res: ServerResponse,
  email: string,
  code: string,
  client: SessionClient,
  kind: CodeKind,
  method: SignInMethod,
  address: string,
) {
  const guess = await ctx.lockout.guess(await ctx.lockout.accountOf(email), address, { mailed: true });
  if (guess.wait > 0) throw AuthErrors.accountLocked(guess.wait);
  const session = await ctx.db.transaction(async (tx) => {
    const user = await findUserByEmail(tx, email);
    if (!user) return null;
    const [held] = await tx.query<{ token_hash: string; attempts: number; live: boolean }>(
      `select token_hash, attempts, created_at > now() - make_interval(mins => $3) as live
       from auth.one_time_tokens where user_id = $1 and token_type = $2 for update`,
      [user.id, kind, MAILED_CODE.minutes],
    );
    if (!held?.live) return null;
    if (!codeMatches(held.token_hash, user.id, code)) {
      await countWrongTry(tx, user.id, kind, held.attempts);
      return null;
    }
    if (user.banned) throw AuthErrors.banned();
    await spendCode(tx, user.id, kind);
    const [signedIn] = await tx.query<UserRow>(
      `update auth.users set last_sign_in_at = now(), email_confirmed_at = coalesce(email_confirmed_at, now())
       where id = $1 returning ${USER_COLUMNS}`,
      [user.id],
    );
    return startSession(tx, ctx.settings, signedIn!, client, method);
  });
  if (!session) throw authError(403, 'otp_expired', 'Token has expired or is invalid');
  await guess.right();
  sendJson(res, 200, session, API_VERSION_HEADER);
}
