import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Queryable } from '../../db/database';
import { isPgError } from '../../db/database';
import { readJson, sendJson } from '../../http/io';
import { API_VERSION_HEADER, AuthErrors, authError } from '../errors';
import { sendMail } from '../mail';
import { USER_COLUMNS, userJson, type UserRow } from '../users';
import { MAILED_CODE, issueCode } from '../codes';
import { signUpSignedIn } from './signupSignedIn';
import {
  EMAIL,
  asBody,
  checkPassword,
  findUserByEmail,
  emailField,
  str,
  userMetadata,
  type AuthContext,
} from '../context';

/*
 * Sign-up with confirmations on ([auth.email] enable_confirmations, RepX's setting), as GoTrue does it on a hosted project: the account can sign in
 * once the code mailed to its address is entered (POST /verify type signup). Until then account
 * mail (withdrawals, new sign-ins) would go to an address nobody proved to own, and a typo in it
 * would take the way back in (a password reset) with it. The answer is the same bare user
 * whether or not the address already has an account, so sign-up tells nobody which addresses do.
 */

/** POST /signup: a new account waiting for the code mailed to it, or signed in where confirmations are off. */
export async function signup(ctx: AuthContext, req: IncomingMessage, res: ServerResponse) {
  await ctx.limit('signUp', ctx.address(req));
  const body = asBody(await readJson(req));
  const email = emailField(body.email).toLowerCase();
  const password = str(body.password);
  if (!email && !body.phone) throw authError(422, 'anonymous_provider_disabled', 'Anonymous sign-ins are disabled');
  if (!email) throw authError(422, 'phone_provider_disabled', 'Phone signups are disabled');
  if (!EMAIL.test(email)) throw authError(400, 'validation_failed', 'Unable to validate email address: invalid format');
  if (!password) throw authError(400, 'validation_failed', 'Signup requires a valid password');
  checkPassword(password, ctx.settings.passwordMinLength);
  const data = userMetadata(body.data);
  const hash = await ctx.passwords.hash(password);
  if (!ctx.settings.emailConfirmations)
    return signUpSignedIn(ctx, req, res, { email, hash, data }).catch((error: unknown) => {
      throw signupDatabaseError(error);
    });
  // One mail a minute to an address, whatever asked for it (GoTrue's per-user email limit).
  const mailAllowed = (await ctx.limiter.recoveryEmail.take(email)) === 0;
  // Inside the minute of the last mail, a sign-up still waiting is replaced only by another
  // password, within its own bound; decided before the transaction, which holds PGlite's one connection.
  let sameAgain = false;
  const waiting = mailAllowed ? undefined : await findUserByEmail(ctx.db, email);
  if (waiting && !waiting.email_confirmed_at) {
    sameAgain = !!waiting.encrypted_password && (await ctx.passwords.compare(password, waiting.encrypted_password));
    const wait = sameAgain ? 0 : await ctx.limiter.signUpRepeat.take(email);
    if (wait > 0) throw AuthErrors.emailRateLimited(wait);
  }
  const attempt = () =>
    ctx.db.transaction(async (tx) => {
      const known = await findUserByEmail(tx, email);
      if (known) return signedUpAgain(ctx, tx, known, { hash, data }, mailAllowed || !sameAgain);
      const [user] = await tx.query<UserRow>(
        `insert into auth.users (email, encrypted_password, raw_user_meta_data)
         values ($1, $2, $3::jsonb) returning ${USER_COLUMNS}`,
        [email, hash, JSON.stringify(data)],
      );
      // A new account's first code is mailed even inside the minute: nothing was mailed for it yet.
      await mailConfirmationCode(ctx, tx, user!);
      return userJson(user!);
    });
  try {
    // Two sign-ups of one new address at once: the one that lost the race answers as a repeat.
    const user = await attempt().catch((error: unknown) => {
      if (isPgError(error) && error.code === '23505' && /users_email/.test(error.message)) return attempt();
      throw error;
    });
    sendJson(res, 200, user, API_VERSION_HEADER);
  } catch (error) {
    throw signupDatabaseError(error);
  }
}

/**
 * An address that has an account already. Still waiting for its code: the latest sign-up
 * replaces the pending one (password, username, name) and a new code is mailed, which replaces the
 * last, so a person who retries gets what they typed last, and someone who signed the address up
 * beforehand does not keep a password to an account its owner then confirms: the earlier code no
 * longer confirms anything. Inside the minute of the last mail, the same password again changes
 * nothing; another password still does, within its own bound (signUpRepeat), and beyond that is
 * refused in words rather than ignored. The new code's mail says it confirms a repeat sign-up, for the owner to
 * refuse one they did not make. Confirmed: GoTrue's sanitized user (a random id, no identities),
 * and the owner is told, so a person who forgot they had an account learns the way back in.
 */
async function signedUpAgain(
  ctx: AuthContext,
  tx: Queryable,
  known: UserRow,
  signUp: { hash: string; data: Record<string, unknown> },
  /** False for the same sign-up again inside the minute: the code already mailed confirms it. */
  mailAllowed: boolean,
) {
  const profile = await newAccountProfile(tx, known, signUp.data);
  if (!known.email_confirmed_at) {
    if (!mailAllowed || known.banned) return userJson(known);
    const [pending] = await tx.query<UserRow>(
      `update auth.users set encrypted_password = $2, raw_user_meta_data = $3::jsonb, updated_at = now()
        where id = $1 returning ${USER_COLUMNS}`,
      [known.id, signUp.hash, JSON.stringify(signUp.data)],
    );
    await tx.query('update public.profiles set username = $2, full_name = $3 where id = $1', [
      known.id,
      profile.username,
      profile.full_name,
    ]);
    await mailConfirmationCode(ctx, tx, pending!, true);
    return userJson(pending!);
  }
  if (mailAllowed && !known.banned) {
    await sendMail(
      tx,
      {
        to: known.email,
        subject: 'Someone tried to sign up with your email',
        text:
          'Someone tried to create a RepX account with this email address, which has one already.\n' +
          'If it was you, sign in instead, or use Forgot password? on the sign-in page. If it was not, there is nothing to do.',
      },
      ctx.mailer,
    );
  }
  const now = new Date().toISOString();
  return {
    id: crypto.randomUUID(),
    aud: 'authenticated',
    role: 'authenticated',
    email: known.email,
    phone: '',
    app_metadata: { provider: 'email', providers: ['email'] },
    user_metadata: signUp.data,
    identities: [],
    created_at: now,
    updated_at: now,
    is_anonymous: false,
  };
}

/**
 * The profile a new account with this sign-up's data would get, or the error it would be refused
 * with (a username taken or malformed, judged by the new-user trigger): a repeat is refused alike,
 * or else a taken username would tell which addresses have accounts. The sign-up is tried on a
 * stand-in address with the same local part (the trigger's fallback username) and rolled back. An
 * account still waiting for its code does not hold its own username against its retry.
 */
async function newAccountProfile(
  tx: Queryable,
  known: UserRow,
  data: Record<string, unknown>,
): Promise<{ username: string; full_name: string }> {
  const standIn = `${known.email.split('@')[0]}@${crypto.randomUUID()}.invalid`;
  await tx.query('savepoint new_account_probe');
  try {
    if (!known.email_confirmed_at)
      await tx.query(`update public.profiles set username = 'waiting_' || left(md5(id::text), 20) where id = $1`, [
        known.id,
      ]);
    const [probe] = await tx.query<{ id: string }>(
      'insert into auth.users (email, raw_user_meta_data) values ($1, $2::jsonb) returning id',
      [standIn, JSON.stringify(data)],
    );
    const [profile] = await tx.query<{ username: string; full_name: string }>(
      'select username, full_name from public.profiles where id = $1',
      [probe!.id],
    );
    return profile!;
  } finally {
    await tx.query('rollback to savepoint new_account_probe');
  }
}

/** Mails a new confirmation code to the account's address, replacing the last one. */
async function mailConfirmationCode(
  ctx: AuthContext,
  tx: Queryable,
  user: UserRow,
  signedUpAgain = false,
): Promise<void> {
  const code = await issueCode(tx, user.id, 'confirmation_token', user.email);
  const lasts = `It works once, for ${MAILED_CODE.minutes} minutes.`;
  await sendMail(
    tx,
    {
      to: user.email,
      subject: 'Confirm your RepX account',
      // A repeat sign-up sets its own password, and its code confirms that one: the owner is told,
      // so a code from a sign-up someone else made with their address is not entered unawares.
      text: signedUpAgain
        ? `Your email address was just signed up to RepX again, with a new password, so the code mailed before no longer works.\n` +
          `If it was you, enter this code where you signed up: your code is ${code}. ${lasts}\n` +
          `If you did not sign up again, do not enter this code: someone else typed your address, and the account would open with their password. Sign up again yourself and enter the code that mail brings.`
        : `Welcome to RepX. To finish creating your account, enter this code where you signed up: your code is ${code}.\n` +
          `${lasts} If you did not sign up, ignore this email: without the code the account cannot be used.`,
    },
    ctx.mailer,
  );
}

/** POST /resend (type signup): a new code for an account waiting for one; the answer is the same either way. */
export async function resend(ctx: AuthContext, req: IncomingMessage, res: ServerResponse) {
  const body = asBody(await readJson(req));
  if (str(body.type) !== 'signup')
    throw authError(400, 'validation_failed', "Only a sign-up's confirmation code is sent again here.");
  const email = emailField(body.email).toLowerCase();
  if (!EMAIL.test(email)) throw authError(400, 'validation_failed', 'Unable to validate email address: invalid format');
  await ctx.limit('recovery', ctx.address(req));
  const wait = await ctx.limiter.recoveryEmail.take(email);
  if (wait > 0) throw AuthErrors.emailRateLimited(wait);
  await ctx.db.transaction(async (tx) => {
    const user = await findUserByEmail(tx, email);
    if (user && !user.email_confirmed_at && !user.banned) await mailConfirmationCode(ctx, tx, user);
  });
  sendJson(res, 200, {}, API_VERSION_HEADER);
}

/** Errors raised by the new-user trigger (username taken or invalid) reach the user in words. */
export function signupDatabaseError(error: unknown): unknown {
  if (!isPgError(error)) return error;
  if (error.code === 'P0001') return authError(422, 'validation_failed', error.message);
  if (error.code === '23514' && /username/.test(error.message)) {
    return authError(
      422,
      'validation_failed',
      'A username has 2 to 30 characters: letters, digits, dots, dashes and underscores.',
    );
  }
  if (error.code === '23505') return authError(422, 'validation_failed', 'That username is already taken.');
  return authError(500, 'unexpected_failure', 'Database error saving new user');
}
