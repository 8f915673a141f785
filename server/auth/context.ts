import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import type { Database, Queryable } from '../db/database';
import { bearer } from '../http/io';
import { plainAddress } from '../http/address';
import { isApiKey } from './apiKeys';
import { RateLimiter, type RateLimits } from '../http/rateLimit';
import { AuthErrors, authError } from './errors';
import type { Claims } from './jwt';
import { PASSWORD_MAX_LENGTH } from './passwordPolicy';
import type { PasswordHasher } from './passwords';
import type { AuthSettings, SessionClient } from './sessions';
import { Lockout } from './lockout';
import { USER_COLUMNS, type UserRow } from './users';
import type { Mailer } from './mail';

export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
type Body = Record<string, unknown>;

/**
 * The most user_metadata an account may keep, as JSON. It travels in every access token, and a
 * token is refused beyond MAX_TOKEN_LENGTH (jwt.ts): without a bound, one account could make its
 * tokens megabytes long and every request and Realtime join carrying them slow.
 */
export const MAX_METADATA_BYTES = 8 * 1024;

/** user_metadata as sent (options.data, PUT /user's data, the admin's user_metadata), within its bound. */
export function userMetadata(value: unknown): Body {
  const body = asBody(value);
  const json = JSON.stringify(body);
  if (json.includes('\\u0000')) throw authError(400, 'validation_failed', 'Text cannot hold the NUL character.');
  if (Buffer.byteLength(json) > MAX_METADATA_BYTES)
    throw authError(422, 'validation_failed', `user_metadata holds at most ${MAX_METADATA_BYTES / 1024} KB.`);
  return body;
}
export function asBody(value: unknown): Body {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Body) : {};
}
/** A text field of a request: PostgreSQL keeps no NUL in text, so one is the request's error, said in words. */
export const str = (v: unknown): string => {
  if (typeof v !== 'string') return '';
  if (v.includes('\u0000')) throw authError(400, 'validation_failed', 'Text cannot hold the NUL character.');
  return v;
};

/** The longest email accepted anywhere (RFC 5321's limit on an address): longer is no address. */
const MAX_EMAIL_LENGTH = 254;

/** An email field, trimmed; one too long to be an address is refused as any malformed one. */
export function emailField(v: unknown): string {
  const email = str(v).trim();
  if (email.length > MAX_EMAIL_LENGTH)
    throw authError(400, 'validation_failed', 'Unable to validate email address: invalid format');
  return email;
}

export function checkPassword(password: string, minLength: number): void {
  if (password.length < minLength) throw AuthErrors.weakPassword(minLength);
  // In bytes, as bcrypt reads them (and GoTrue counts): 36 accented letters already fill it.
  if (Buffer.byteLength(password, 'utf8') > PASSWORD_MAX_LENGTH) {
    throw authError(422, 'validation_failed', `Password cannot be longer than ${PASSWORD_MAX_LENGTH} characters`);
  }
}

export async function findUserByEmail(q: Queryable, email: string): Promise<UserRow | undefined> {
  const [user] = await q.query<UserRow>(`select ${USER_COLUMNS} from auth.users where lower(email) = lower($1)`, [
    email,
  ]);
  return user;
}

export async function findUser(q: Queryable, id: string): Promise<UserRow | undefined> {
  const [user] = await q.query<UserRow>(`select ${USER_COLUMNS} from auth.users where id = $1`, [id]);
  return user;
}

/** What every auth endpoint works with: the database, the settings, the hasher and the limits. */
export interface AuthContext {
  db: Database;
  settings: AuthSettings;
  passwords: PasswordHasher;
  limiter: Record<keyof RateLimits, RateLimiter>;
  /** Wrong passwords and codes: counted before they are checked, per account and address. */
  lockout: Lockout;
  /** Takes a token from `name`'s bucket for `key`, or refuses with 429 and Retry-After. */
  limit: (name: keyof RateLimits, key: string, message?: string) => Promise<void>;
  /** The connection's address (a forwarded header is not trusted). */
  address: (req: IncomingMessage) => string;
  /** The browser and address a new session starts from. */
  client: (req: IncomingMessage) => SessionClient;
  /** Verifies the user's access token and that its session and user still exist. */
  authenticate: (req: IncomingMessage) => Promise<{ claims: Claims; user: UserRow }>;
  log?: (line: string) => void;
  /** Sends auth's mail (a code, a notice) signed with the app's address. */
  mailer: Mailer;
}

export function authContext(
  db: Database,
  settings: AuthSettings,
  passwords: PasswordHasher,
  limits: RateLimits,
  log?: (line: string) => void,
): AuthContext {
  const limiter = Object.fromEntries(
    Object.entries(limits).map(([name, l]) => [name, new RateLimiter(db, name, l.capacity, l.perSeconds)]),
  ) as Record<keyof RateLimits, RateLimiter>;
  return {
    db,
    settings,
    passwords,
    limiter,
    lockout: new Lockout(db, limits),
    log,
    mailer: { siteUrl: settings.siteUrl, log },
    async limit(name, key, message) {
      const wait = await limiter[name].take(key);
      if (wait > 0) throw AuthErrors.rateLimited(wait, message);
    },
    address: (req) => req.socket.remoteAddress ?? 'unknown',
    client(req) {
      // An IPv4 peer of a dual-stack socket is written as IPv4, as people read it.
      const ip = plainAddress(req.socket.remoteAddress ?? '');
      return { userAgent: req.headers['user-agent'] ?? null, ip: net.isIP(ip) ? ip : null };
    },
    async authenticate(req) {
      const token = bearer(req);
      if (!token) throw AuthErrors.noAuthorization();
      if (isApiKey(token)) throw AuthErrors.apiKeyRefused();
      const verified = await settings.keys.verify(token);
      if (!verified.ok) throw AuthErrors.badJwt(verified.reason === 'expired' ? 'token is expired' : undefined);
      const { claims } = verified;
      if (!claims.sub) throw AuthErrors.missingSub();
      const user = await findUser(db, claims.sub);
      if (!user) throw AuthErrors.userNotFound();
      const sessionId = typeof claims.session_id === 'string' ? claims.session_id : '';
      const [session] = await db.query('select 1 from auth.sessions where id = $1', [sessionId]);
      if (!session) throw AuthErrors.sessionNotFound();
      return { claims, user };
    },
  };
}
