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

/** The access token GoTrue would mint: the claims auth-js and PostgREST rely on. */
export async function accessToken(settings: AuthSettings, user: UserRow, sessionId: string) {
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
    amr: [{ method: 'password', timestamp: iat }],
    session_id: sessionId,
    is_anonymous: false,
  });
  return { token, exp };
}

/** The token response of POST /token and of an auto-confirmed POST /signup. */
export async function sessionResponse(settings: AuthSettings, user: UserRow, sessionId: string, refreshToken: string) {
  const { token, exp } = await accessToken(settings, user, sessionId);
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
export async function startSession(tx: Queryable, settings: AuthSettings, user: UserRow) {
  const [session] = await tx.query<{ id: string }>('insert into auth.sessions (user_id) values ($1) returning id', [
    user.id,
  ]);
  const refresh = newRefreshToken();
  await tx.query('insert into auth.refresh_tokens (token, user_id, session_id) values ($1, $2, $3)', [
    refresh,
    user.id,
    session!.id,
  ]);
  return sessionResponse(settings, user, session!.id, refresh);
}
