import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import type { Database, Queryable } from '../db/database';
import { bearer } from '../http/io';
import { RateLimiter, type RateLimits } from '../http/rateLimit';
import { AuthErrors, authError } from './errors';
import type { Claims } from './jwt';
import { PASSWORD_MAX_LENGTH } from './passwordPolicy';
import type { PasswordHasher } from './passwords';
import type { AuthSettings, SessionClient } from './sessions';
import { USER_COLUMNS, type UserRow } from './users';

export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/**
 * Compared against when the email is unknown, so timing does not reveal which emails exist: a
 * hash at BCRYPT_COST (context.test.ts checks), written out rather than computed, since computing
 * it would block every server process's start-up for a hash's time.
 */
export const DUMMY_HASH = '$2b$10$yOFXeToVYbaH7xJxPaejnuqUV0rJAEwp120m1xQtcyOPKtNXoMJgG';

type Body = Record<string, unknown>;
export function asBody(value: unknown): Body {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Body) : {};
}
export const str = (v: unknown) => (typeof v === 'string' ? v : '');

export function checkPassword(password: string, minLength: number): void {
  if (password.length < minLength) throw AuthErrors.weakPassword(minLength);
  if (password.length > PASSWORD_MAX_LENGTH) {
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
  /** Takes a token from `name`'s bucket for `key`, or refuses with 429 and Retry-After. */
  limit: (name: keyof RateLimits, key: string, message?: string) => Promise<void>;
  /** The connection's address (a forwarded header is not trusted). */
  address: (req: IncomingMessage) => string;
  /** The browser and address a new session starts from. */
  client: (req: IncomingMessage) => SessionClient;
  /** Verifies the user's access token and that its session and user still exist. */
  authenticate: (req: IncomingMessage) => Promise<{ claims: Claims; user: UserRow }>;
  log?: (line: string) => void;
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
    log,
    async limit(name, key, message) {
      const wait = await limiter[name].take(key);
      if (wait > 0) throw AuthErrors.rateLimited(wait, message);
    },
    address: (req) => req.socket.remoteAddress ?? 'unknown',
    client(req) {
      // An IPv4 peer of a dual-stack socket is written as IPv4, as people read it.
      const ip = req.socket.remoteAddress?.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '') ?? '';
      return { userAgent: req.headers['user-agent'] ?? null, ip: net.isIP(ip) ? ip : null };
    },
    async authenticate(req) {
      const token = bearer(req);
      if (!token) throw AuthErrors.noAuthorization();
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
