import crypto from 'node:crypto';
import type { Queryable } from '../db/database';
import type { JwtKeys } from './jwt';
import { userJson, type UserRow } from './users';

export interface AuthSettings {
  keys: JwtKeys;
  /** Access token lifetime in seconds (GoTrue's default: 3600). */
  jwtExpiry: number;
  passwordMinLength: number;
  issuer: string;
}

export function newRefreshToken(): string {
  return crypto.randomBytes(24).toString('base64url');
}

/**
 * How the session was proved (the token's amr): a password, or a recovery code, which lets the
 * session set a new password without the forgotten one while its first access token lasts.
 */
export type SignInMethod = 'password' | 'recovery';

/** The access token GoTrue would mint: the claims auth-js and PostgREST rely on. */
export async function accessToken(
  settings: AuthSettings,
  user: UserRow,
  sessionId: string,
  method: SignInMethod = 'password',
) {
  const iat = Math.floor(Date.now() / 1000);
  const exp = iat + settings.jwtExpiry;
  const token = await settings.keys.sign({
    iss: settings.issuer,
    sub: user.id,
    aud: 'authenticated',
    exp,
    iat,
    email: user.email,
    phone: '',
    app_metadata: user.raw_app_meta_data,
    user_metadata: user.raw_user_meta_data,
    role: 'authenticated',
    aal: 'aal1',
    amr: [{ method, timestamp: iat }],
    session_id: sessionId,
    is_anonymous: false,
  });
  return { token, exp };
}

/** The token response of POST /token and of an auto-confirmed POST /signup. */
export async function sessionResponse(
  settings: AuthSettings,
  user: UserRow,
  sessionId: string,
  refreshToken: string,
  method: SignInMethod = 'password',
) {
  const { token, exp } = await accessToken(settings, user, sessionId, method);
  return {
    access_token: token,
    token_type: 'bearer',
    expires_in: settings.jwtExpiry,
    expires_at: exp,
    refresh_token: refreshToken,
    user: userJson(user),
  };
}

/** Starts a session for a user who just proved who they are. */
export async function startSession(
  tx: Queryable,
  settings: AuthSettings,
  user: UserRow,
  method: SignInMethod = 'password',
) {
  const [session] = await tx.query<{ id: string }>('insert into auth.sessions (user_id) values ($1) returning id', [
    user.id,
  ]);
  const refresh = newRefreshToken();
  await tx.query('insert into auth.refresh_tokens (token, user_id, session_id) values ($1, $2, $3)', [
    refresh,
    user.id,
    session!.id,
  ]);
  return sessionResponse(settings, user, session!.id, refresh, method);
}
