import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJson, sendJson } from '../../http/io';
import { API_VERSION_HEADER, AuthErrors, authError } from '../errors';
import { endIfIdle, newRefreshToken, sessionProof, sessionResponse, startSession } from '../sessions';
import { USER_COLUMNS, type UserRow } from '../users';
import { asBody, findUser, findUserByEmail, emailField, str, type AuthContext } from '../context';

/** A rotated refresh token may be presented again this long (several tabs refreshing at once). */
const REUSE_WINDOW_MS = 10_000;

/** POST /token?grant_type=password */
export async function passwordGrant(ctx: AuthContext, req: IncomingMessage, res: ServerResponse) {
  const body = asBody(await readJson(req));
  const email = emailField(body.email);
  const password = str(body.password);
  if (!email || !password) throw AuthErrors.missingCredentials();
  await ctx.limit('signIn', ctx.address(req));
  const guess = await ctx.lockout.guess(await ctx.lockout.accountOf(email), ctx.address(req));
  if (guess.wait > 0)
    throw AuthErrors.rateLimited(guess.wait, 'Too many failed sign-in attempts for this account. Try again later.');
  const user = await findUserByEmail(ctx.db, email);
  const ok = user?.encrypted_password
    ? await ctx.passwords.compare(password, user.encrypted_password)
    : await ctx.passwords.compareNone(password);
  if (!user || !user.encrypted_password || !ok) throw AuthErrors.invalidCredentials();
  await guess.right();
  if (user.banned) throw AuthErrors.banned();
  if (!user.email_confirmed_at) throw authError(400, 'email_not_confirmed', 'Email not confirmed');
  const session = await ctx.db.transaction(async (tx) => {
    const [signedIn] = await tx.query<UserRow>(
      `update auth.users set last_sign_in_at = now() where id = $1 returning ${USER_COLUMNS}`,
      [user.id],
    );
    return startSession(tx, ctx.settings, signedIn!, ctx.client(req));
  });
  sendJson(res, 200, session, API_VERSION_HEADER);
}

/** POST /token?grant_type=refresh_token: rotates the refresh token; a reuse outside the window ends the session. */
export async function refreshGrant(ctx: AuthContext, req: IncomingMessage, res: ServerResponse) {
  await ctx.limit('refresh', ctx.address(req));
  const token = str(asBody(await readJson(req)).refresh_token);
  if (!token) throw authError(400, 'validation_failed', 'refresh_token required');
  const session = await ctx.db.transaction(async (tx) => {
    const [row] = await tx.query<{
      id: string;
      user_id: string;
      session_id: string;
      revoked: boolean;
      updated_at: Date;
    }>('select id, user_id, session_id, revoked, updated_at from auth.refresh_tokens where token = $1 for update', [
      token,
    ]);
    if (!row) throw authError(400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');
    const user = await findUser(tx, row.user_id);
    if (!user) throw authError(400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');
    if (user.banned) throw AuthErrors.banned();
    if (await endIfIdle(tx, row.session_id, ctx.settings.sessionInactivity)) return 'idle';
    if (row.revoked) {
      const recent = Date.now() - new Date(row.updated_at).getTime() < REUSE_WINDOW_MS;
      const [active] = await tx.query<{ token: string }>(
        'select token from auth.refresh_tokens where session_id = $1 and not revoked order by id desc limit 1',
        [row.session_id],
      );
      if (recent && active)
        return sessionResponse(
          ctx.settings,
          user,
          row.session_id,
          active.token,
          await sessionProof(tx, row.session_id),
        );
      // Reuse outside the window looks like a stolen token: end the whole session.
      await tx.query('delete from auth.sessions where id = $1', [row.session_id]);
      return null;
    }
    const next = newRefreshToken();
    await tx.query('update auth.refresh_tokens set revoked = true, updated_at = now() where id = $1', [row.id]);
    await tx.query('insert into auth.refresh_tokens (token, user_id, session_id, parent) values ($1, $2, $3, $4)', [
      next,
      user.id,
      row.session_id,
      token,
    ]);
    await tx.query('update auth.sessions set refreshed_at = now() where id = $1', [row.session_id]);
    return sessionResponse(ctx.settings, user, row.session_id, next, await sessionProof(tx, row.session_id));
  });
  if (session === 'idle')
    throw authError(400, 'session_expired', 'Invalid Refresh Token: Session Expired (Inactivity)');
  if (!session) throw authError(400, 'refresh_token_already_used', 'Invalid Refresh Token: Already Used');
  sendJson(res, 200, session, API_VERSION_HEADER);
}
