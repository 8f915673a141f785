import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJson, sendEmpty, sendJson } from '../../http/io';
import { API_VERSION_HEADER, AuthErrors, authError } from '../errors';
import type { Claims } from '../jwt';
import { sendMail } from '../mail';
import { userJson, type UserRow } from '../users';
import {
  EMAIL,
  asBody,
  checkPassword,
  findUser,
  findUserByEmail,
  emailField,
  str,
  userMetadata,
  MAX_METADATA_BYTES,
  type AuthContext,
} from '../context';
import { askEmailChange, emailExists } from './emailChange';
import { hasVerifiedFactor } from './factors';

/** POST /logout?scope=global|local|others */
export async function logout(ctx: AuthContext, req: IncomingMessage, res: ServerResponse, url: URL) {
  const scope = url.searchParams.get('scope') ?? 'global';
  if (!['global', 'local', 'others'].includes(scope)) {
    throw authError(400, 'validation_failed', 'Unsupported logout scope. Use global, local or others.');
  }
  const { claims, user } = await ctx.authenticate(req);
  const sessionId = claims.session_id as string;
  if (scope === 'local') await ctx.db.query('delete from auth.sessions where id = $1', [sessionId]);
  else if (scope === 'others')
    await ctx.db.query('delete from auth.sessions where user_id = $1 and id <> $2', [user.id, sessionId]);
  else await ctx.db.query('delete from auth.sessions where user_id = $1', [user.id]);
  sendEmpty(res, 204, API_VERSION_HEADER);
}

/** GET /user */
export async function getUser(ctx: AuthContext, req: IncomingMessage, res: ServerResponse) {
  const { user } = await ctx.authenticate(req);
  sendJson(res, 200, userJson(user), API_VERSION_HEADER);
}

/** How long after a recovery code its session may set a password without the forgotten one. */
const RECOVERY_GRACE_SECONDS = 3600;

/** A session that a mailed recovery code started within the grace: its user has no current password to give. */
function provedByRecovery(claims: Claims): boolean {
  const since = Date.now() / 1000 - RECOVERY_GRACE_SECONDS;
  return (
    Array.isArray(claims.amr) &&
    claims.amr.some((a) => {
      const proof = a as { method?: unknown; timestamp?: unknown } | null;
      return proof?.method === 'recovery' && typeof proof.timestamp === 'number' && proof.timestamp > since;
    })
  );
}

/**
 * A new password or email needs the current password (GoTrue's
 * update_password_require_current_password), so that a browser left signed in cannot be used to
 * lock its owner out, directly or by moving the account's recovery mail to another address.
 * Wrong ones count toward the account's lockout, as at sign-in.
 */
async function checkCurrentPassword(
  ctx: AuthContext,
  address: string,
  user: UserRow,
  current: string,
  purpose: string,
) {
  if (!current) throw authError(400, 'current_password_required', `Enter your current password to ${purpose}.`);
  const guess = await ctx.lockout.guess(user.id, address);
  if (guess.wait > 0) throw AuthErrors.accountLocked(guess.wait);
  if (!user.encrypted_password || !(await ctx.passwords.compare(current, user.encrypted_password)))
    throw authError(400, 'current_password_mismatch', 'Your current password is not right.');
  await guess.right();
}

/**
 * PUT /user: a new password (with the current password, unless in a recovery session), a new email
 * (the same, and it takes effect when the code mailed to it is entered), user_metadata.
 */
export async function updateUser(ctx: AuthContext, req: IncomingMessage, res: ServerResponse) {
  const { user, claims } = await ctx.authenticate(req);
  const body = asBody(await readJson(req));
  // With two-step verification on, the password alone (or a recovery mail) cannot change either.
  if ((body.password !== undefined || body.email !== undefined) && hasVerifiedFactor(user) && claims.aal !== 'aal2')
    throw authError(
      403,
      'insufficient_aal',
      'Enter the code from your authenticator app first: two-step verification is on for this account.',
    );
  const current = str(body.current_password);
  let checked = provedByRecovery(claims);
  let hash: string | null = null;
  if (body.password !== undefined) {
    const password = str(body.password);
    checkPassword(password, ctx.settings.passwordMinLength);
    await ctx.limit('passwordChange', user.id);
    if (!checked) await checkCurrentPassword(ctx, ctx.address(req), user, current, 'choose a new one');
    checked = true;
    if (user.encrypted_password && (await ctx.passwords.compare(password, user.encrypted_password))) {
      throw authError(422, 'same_password', 'New password should be different from the old password.');
    }
    hash = await ctx.passwords.hash(password);
  }
  let newEmail: string | null = null;
  if (body.email !== undefined) {
    const email = emailField(body.email).toLowerCase();
    if (!EMAIL.test(email))
      throw authError(400, 'validation_failed', 'Unable to validate email address: invalid format');
    if (email !== user.email.toLowerCase()) {
      // The password first: whether another account has the address is no answer for a browser
      // someone left signed in.
      if (!checked) await checkCurrentPassword(ctx, ctx.address(req), user, current, 'change your email');
      await ctx.limit('recovery', ctx.address(req));
      const other = await findUserByEmail(ctx.db, email);
      if (other && other.id !== user.id) throw emailExists();
      const wait = await ctx.limiter.recoveryEmail.take(email);
      if (wait > 0) throw AuthErrors.emailRateLimited(wait);
      newEmail = email;
    }
  }
  // user_metadata is merged key by key; a key sent as null is removed.
  const data = body.data === undefined ? {} : userMetadata(body.data);
  const updated = await ctx.db.transaction(async (tx) => {
    const [kept] = await tx.query(
      `update auth.users set
         encrypted_password = coalesce($2, encrypted_password),
         raw_user_meta_data = jsonb_strip_nulls(raw_user_meta_data || $3::jsonb),
         updated_at = now()
       where id = $1 and octet_length(jsonb_strip_nulls(raw_user_meta_data || $3::jsonb)::text) <= $4
       returning id`,
      [user.id, hash, JSON.stringify(data), MAX_METADATA_BYTES],
    );
    if (!kept)
      throw authError(422, 'validation_failed', `user_metadata holds at most ${MAX_METADATA_BYTES / 1024} KB.`);
    if (newEmail) await askEmailChange(ctx, tx, user, newEmail);
    if (hash) {
      // A new password ends every other session, so whoever knew the old one is out at once.
      await tx.query('delete from auth.sessions where user_id = $1 and id::text <> $2', [
        user.id,
        String(claims.session_id ?? ''),
      ]);
      // The owner hears of a change they did not make (GoTrue's security notifications): the mail
      // is the way back in, by Forgot password?.
      await sendMail(
        tx,
        {
          to: user.email,
          subject: 'Your RepX password was changed',
          text: 'Your RepX password was changed. If it was not you, reset your password now with Forgot password? on the sign-in page.',
        },
        ctx.mailer,
      );
    }
    return (await findUser(tx, user.id))!;
  });
  sendJson(res, 200, userJson(updated), API_VERSION_HEADER);
}
