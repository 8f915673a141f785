import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJson, sendEmpty, sendJson } from '../../http/io';
import { API_VERSION_HEADER, AuthErrors, authError } from '../errors';
import type { Claims } from '../jwt';
import { sendMail } from '../mail';
import { USER_COLUMNS, userJson, type UserRow } from '../users';
import { EMAIL, asBody, checkPassword, findUserByEmail, str, type AuthContext } from '../context';

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
async function checkCurrentPassword(ctx: AuthContext, user: UserRow, current: string, purpose: string) {
  if (!current) throw authError(400, 'current_password_required', `Enter your current password to ${purpose}.`);
  const account = user.email.toLowerCase();
  const locked = await ctx.limiter.accountFailures.waitFor(account);
  if (locked > 0) throw AuthErrors.accountLocked(locked);
  if (!user.encrypted_password || !(await ctx.passwords.compare(current, user.encrypted_password))) {
    await ctx.limiter.accountFailures.take(account);
    throw authError(400, 'current_password_mismatch', 'Your current password is not right.');
  }
}

/** PUT /user: password and email (with the current password, unless in a recovery session), user_metadata. */
export async function updateUser(ctx: AuthContext, req: IncomingMessage, res: ServerResponse) {
  const { user, claims } = await ctx.authenticate(req);
  const body = asBody(await readJson(req));
  const current = str(body.current_password);
  let checked = provedByRecovery(claims);
  let hash: string | null = null;
  if (body.password !== undefined) {
    const password = str(body.password);
    checkPassword(password, ctx.settings.passwordMinLength);
    await ctx.limit('passwordChange', user.id);
    if (!checked) await checkCurrentPassword(ctx, user, current, 'choose a new one');
    checked = true;
    if (user.encrypted_password && (await ctx.passwords.compare(password, user.encrypted_password))) {
      throw authError(422, 'same_password', 'New password should be different from the old password.');
    }
    hash = await ctx.passwords.hash(password);
  }
  let email: string | null = null;
  if (body.email !== undefined) {
    email = str(body.email).trim().toLowerCase();
    if (!EMAIL.test(email))
      throw authError(400, 'validation_failed', 'Unable to validate email address: invalid format');
    const other = await findUserByEmail(ctx.db, email);
    if (other && other.id !== user.id) {
      throw authError(422, 'email_exists', 'A user with this email address has already been registered');
    }
    if (email !== user.email.toLowerCase() && !checked)
      await checkCurrentPassword(ctx, user, current, 'change your email');
  }
  // user_metadata is merged key by key; a key sent as null is removed.
  const data = body.data === undefined ? {} : asBody(body.data);
  const movedFrom = email !== null && email !== user.email.toLowerCase() ? user.email : null;
  const updated = await ctx.db.transaction(async (tx) => {
    const [row] = await tx.query<UserRow>(
      `update auth.users set
         encrypted_password = coalesce($2, encrypted_password),
         email = coalesce($3, email),
         raw_user_meta_data = jsonb_strip_nulls(raw_user_meta_data || $4::jsonb),
         updated_at = now()
       where id = $1 returning ${USER_COLUMNS}`,
      [user.id, hash, email, JSON.stringify(data)],
    );
    // A new password ends every other session, so whoever knew the old one is out at once.
    if (hash)
      await tx.query('delete from auth.sessions where user_id = $1 and id::text <> $2', [
        user.id,
        String(claims.session_id ?? ''),
      ]);
    // The owner hears of a change they did not make, at the address they had (GoTrue's security
    // notifications): the mail is the way back in, by Forgot password?.
    const ifNotYou = 'If it was not you, reset your password now with Forgot password? on the sign-in page.';
    if (hash)
      await sendMail(
        tx,
        {
          to: row!.email,
          subject: 'Your RepX password was changed',
          text: `Your RepX password was changed. ${ifNotYou}`,
        },
        ctx.log,
      );
    if (movedFrom)
      await sendMail(
        tx,
        {
          to: movedFrom,
          subject: 'Your RepX email was changed',
          text: `Your RepX account's email was changed from ${movedFrom} to ${row!.email}. If it was not you, contact support at once.`,
        },
        ctx.log,
      );
    return row!;
  });
  sendJson(res, 200, userJson(updated), API_VERSION_HEADER);
}
