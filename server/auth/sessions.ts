import { Lockout } from './lockout';
import crypto from 'node:crypto';
import type { Queryable } from '../db/database';
import type { JwtKeys } from './jwt';
import { userJson, type UserRow } from './users';

export interface AuthSettings {
  keys: JwtKeys;
  /** Access token lifetime in seconds (GoTrue's default: 3600). */
  jwtExpiry: number;
  passwordMinLength: number;
  /** Sign-up waits for the mailed code ([auth.email] enable_confirmations); off, it answers a session. */
  emailConfirmations: boolean;
  /** The app's address ([auth] site_url), which auth's mail points the reader to. */
  siteUrl: string;
  issuer: string;
  /** A session unused (no sign-in or refresh) this many seconds ends: GoTrue's sessions.inactivity_timeout; 0 never. */
  sessionInactivity: number;
}

export function newRefreshToken(): string {
  return crypto.randomBytes(24).toString('base64url');
}

/** How a session's user proved who they are: a password, a mailed recovery code, or a sign-up's mailed code. */
export type SignInMethod = 'password' | 'recovery' | 'otp';

/**
 * A session's proof, carried in every access token of the session as GoTrue's amr claim: the
 * method and when it was used (the session's start, also after a refresh). The database reads it
 * to ask for a recent sign-in before money leaves; PUT /user reads it to let a recovery session
 * set a password without the forgotten one.
 */
export interface SessionProof {
  method: SignInMethod;
  /** Seconds since the epoch. */
  at: number;
  /** When a code from the user's authenticator app was entered in the session (aal2), if it was. */
  totpAt?: number;
}

/** The access token GoTrue would mint: the claims auth-js and PostgREST rely on. */
async function accessToken(settings: AuthSettings, user: UserRow, sessionId: string, proof: SessionProof) {
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
    // GoTrue lists the latest proof first.
    aal: proof.totpAt ? 'aal2' : 'aal1',
    amr: [
      ...(proof.totpAt ? [{ method: 'totp', timestamp: proof.totpAt }] : []),
      { method: proof.method, timestamp: proof.at },
    ],
    session_id: sessionId,
    is_anonymous: false,
  });
  return { token, exp };
}

/** The token response of POST /token and of POST /verify. */
export async function sessionResponse(
  settings: AuthSettings,
  user: UserRow,
  sessionId: string,
  refreshToken: string,
  proof: SessionProof,
) {
  const { token, exp } = await accessToken(settings, user, sessionId, proof);
  return {
    access_token: token,
    token_type: 'bearer',
    expires_in: settings.jwtExpiry,
    expires_at: exp,
    refresh_token: refreshToken,
    user: userJson(user),
  };
}

/** A session's proof, as its row keeps it. */
export async function sessionProof(q: Queryable, sessionId: string): Promise<SessionProof> {
  const [row] = await q.query<{ method: SignInMethod; at: string; totp_at: string | null }>(
    `select authentication_method as method, extract(epoch from created_at)::bigint as at,
            case when aal = 'aal2' then extract(epoch from mfa_verified_at)::bigint end as totp_at
       from auth.sessions where id = $1`,
    [sessionId],
  );
  return { method: row!.method, at: Number(row!.at), ...(row!.totp_at ? { totpAt: Number(row!.totp_at) } : {}) };
}

/** The browser a session was started from, as GoTrue keeps it (shown to the user among their sessions). */
export interface SessionClient {
  userAgent: string | null;
  /** The connection's address, or null when it is not an IP address. */
  ip: string | null;
}

/** Starts a session for a user who just proved who they are. */
export async function startSession(
  tx: Queryable,
  settings: AuthSettings,
  user: UserRow,
  client: SessionClient,
  method: SignInMethod = 'password',
) {
  const [session] = await tx.query<{ id: string; at: string }>(
    `insert into auth.sessions (user_id, authentication_method, user_agent, ip) values ($1, $2, $3, $4)
     returning id, extract(epoch from created_at)::bigint as at`,
    [user.id, method, client.userAgent?.slice(0, 512) ?? null, client.ip],
  );
  const refresh = newRefreshToken();
  await tx.query('insert into auth.refresh_tokens (token, user_id, session_id) values ($1, $2, $3)', [
    refresh,
    user.id,
    session!.id,
  ]);
  await Lockout.signedInFrom(tx, user.id, client.ip);
  return sessionResponse(settings, user, session!.id, refresh, { method, at: Number(session!.at) });
}

/**
 * How long a session may go unused before it ends: a month. A browser used at least that often
 * stays signed in; one forgotten on a shared computer, or a refresh token copied off it, stops
 * working (GoTrue's sessions.inactivity_timeout, off by default there; an exchange keeps it on).
 */
export const DEFAULT_SESSION_INACTIVITY = 30 * 24 * 3600;

const IDLE = 'greatest(created_at, refreshed_at) < now() - make_interval(secs => $1)';

/** Ends the session if it has gone unused too long (its last sign-in or refresh); true if it did. */
export async function endIfIdle(tx: Queryable, sessionId: string, seconds: number): Promise<boolean> {
  if (seconds <= 0) return false;
  const ended = await tx.query(`delete from auth.sessions where id = $2 and ${IDLE} returning id`, [
    seconds,
    sessionId,
  ]);
  return ended.length > 0;
}

/** Ends every session unused too long (a scheduled job, so the user's list of sessions holds live ones only). */
export async function endIdleSessions(db: Queryable, seconds: number): Promise<void> {
  await db.query(`delete from auth.sessions where ${IDLE}`, [seconds]);
}
