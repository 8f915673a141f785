import type { IncomingMessage, ServerResponse } from 'node:http';
import bcrypt from 'bcryptjs';
import { RateLimiter, type RateLimits } from '../http/rateLimit';
import { BCRYPT_COST, type PasswordHasher } from './passwords';
import type { Database, Queryable } from '../db/database';
import { isPgError } from '../db/database';
import { bearer, readJson, sendEmpty, sendJson } from '../http/io';
import { API_VERSION_HEADER, AuthErrors, authError } from './errors';
import { sessionResponse, startSession, newRefreshToken, type AuthSettings } from './sessions';
import { USER_COLUMNS, userJson, type UserRow } from './users';
import type { Claims } from './jwt';

const PASSWORD_MIN = 6;
const PASSWORD_MAX = 72; // bcrypt reads no further
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** A rotated refresh token may be presented again this long (several tabs refreshing at once). */
const REUSE_WINDOW_MS = 10_000;
/** Compared against when the email is unknown, so timing does not reveal which emails exist. */
const DUMMY_HASH = bcrypt.hashSync('not-a-real-password', BCRYPT_COST);

type Body = Record<string, unknown>;

function asBody(value: unknown): Body {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Body) : {};
}
const str = (v: unknown) => (typeof v === 'string' ? v : '');

function checkPassword(password: string): void {
  if (password.length < PASSWORD_MIN) throw AuthErrors.weakPassword(PASSWORD_MIN);
  if (password.length > PASSWORD_MAX) {
    throw authError(422, 'validation_failed', `Password cannot be longer than ${PASSWORD_MAX} characters`);
  }
}

async function findUserByEmail(q: Queryable, email: string): Promise<UserRow | undefined> {
  const [user] = await q.query<UserRow>(`select ${USER_COLUMNS} from auth.users where lower(email) = lower($1)`, [email]);
  return user;
}

async function findUser(q: Queryable, id: string): Promise<UserRow | undefined> {
  const [user] = await q.query<UserRow>(`select ${USER_COLUMNS} from auth.users where id = $1`, [id]);
  return user;
}

/** The /auth/v1 subset of GoTrue that supabase-js uses for email and password accounts. */
export function authRoutes(db: Database, settings: AuthSettings, passwords: PasswordHasher, limits: RateLimits) {
  const limiter = Object.fromEntries(
    Object.entries(limits).map(([name, l]) => [name, new RateLimiter(db, name, l.capacity, l.perSeconds)]),
  ) as Record<keyof RateLimits, RateLimiter>;
  /** Takes a token from `name`'s bucket for `key`, or refuses with 429 and Retry-After. */
  const limit = async (name: keyof RateLimits, key: string, message?: string) => {
    const wait = await limiter[name].take(key);
    if (wait > 0) throw AuthErrors.rateLimited(wait, message);
  };
  const address = (req: IncomingMessage) => req.socket.remoteAddress ?? 'unknown';

  async function signup(req: IncomingMessage, res: ServerResponse) {
    await limit('signUp', address(req));
    const body = asBody(await readJson(req));
    const email = str(body.email).trim().toLowerCase();
    const password = str(body.password);
    if (!email && !body.phone) throw authError(422, 'anonymous_provider_disabled', 'Anonymous sign-ins are disabled');
    if (!email) throw authError(422, 'phone_provider_disabled', 'Phone signups are disabled');
    if (!EMAIL.test(email)) throw authError(400, 'validation_failed', 'Unable to validate email address: invalid format');
    if (!password) throw authError(400, 'validation_failed', 'Signup requires a valid password');
    checkPassword(password);
    const data = asBody(body.data);
    const hash = await passwords.hash(password);
    try {
      const session = await db.transaction(async (tx) => {
        if (await findUserByEmail(tx, email)) throw authError(422, 'user_already_exists', 'User already registered');
        const [user] = await tx.query<UserRow>(
          `insert into auth.users (email, encrypted_password, email_confirmed_at, last_sign_in_at, raw_user_meta_data)
           values ($1, $2, now(), now(), $3::jsonb) returning ${USER_COLUMNS}`,
          [email, hash, JSON.stringify(data)],
        );
        return startSession(tx, settings, user!);
      });
      sendJson(res, 200, session, API_VERSION_HEADER);
    } catch (error) {
      throw signupDatabaseError(error);
    }
  }

  async function passwordGrant(req: IncomingMessage, res: ServerResponse) {
    const body = asBody(await readJson(req));
    const email = str(body.email).trim();
    const password = str(body.password);
    if (!email || !password) throw AuthErrors.missingCredentials();
    await limit('signIn', address(req));
    // An account that met too many wrong passwords is locked for a while, from every address.
    const account = email.toLowerCase();
    const locked = await limiter.accountFailures.waitFor(account);
    if (locked > 0) throw AuthErrors.rateLimited(locked, 'Too many failed sign-in attempts for this account. Try again later.');
    const user = await findUserByEmail(db, email);
    const ok = await passwords.compare(password, user?.encrypted_password ?? DUMMY_HASH);
    if (!user || !user.encrypted_password || !ok) {
      await limiter.accountFailures.take(account);
      throw AuthErrors.invalidCredentials();
    }
    if (user.banned) throw AuthErrors.banned();
    if (!user.email_confirmed_at) throw authError(400, 'email_not_confirmed', 'Email not confirmed');
    const session = await db.transaction(async (tx) => {
      const [signedIn] = await tx.query<UserRow>(
        `update auth.users set last_sign_in_at = now() where id = $1 returning ${USER_COLUMNS}`,
        [user.id],
      );
      return startSession(tx, settings, signedIn!);
    });
    sendJson(res, 200, session, API_VERSION_HEADER);
  }

  async function refreshGrant(req: IncomingMessage, res: ServerResponse) {
    await limit('refresh', address(req));
    const token = str(asBody(await readJson(req)).refresh_token);
    if (!token) throw authError(400, 'validation_failed', 'refresh_token required');
    const session = await db.transaction(async (tx) => {
      const [row] = await tx.query<{ id: string; user_id: string; session_id: string; revoked: boolean; updated_at: Date }>(
        'select id, user_id, session_id, revoked, updated_at from auth.refresh_tokens where token = $1 for update',
        [token],
      );
      if (!row) throw authError(400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');
      const user = await findUser(tx, row.user_id);
      if (!user) throw authError(400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');
      if (user.banned) throw AuthErrors.banned();
      if (row.revoked) {
        const recent = Date.now() - new Date(row.updated_at).getTime() < REUSE_WINDOW_MS;
        const [active] = await tx.query<{ token: string }>(
          'select token from auth.refresh_tokens where session_id = $1 and not revoked order by id desc limit 1',
          [row.session_id],
        );
        if (recent && active) return sessionResponse(settings, user, row.session_id, active.token);
        // Reuse outside the window looks like a stolen token: end the whole session.
        await tx.query('delete from auth.sessions where id = $1', [row.session_id]);
        return null;
      }
      const next = newRefreshToken();
      await tx.query('update auth.refresh_tokens set revoked = true, updated_at = now() where id = $1', [row.id]);
      await tx.query('insert into auth.refresh_tokens (token, user_id, session_id, parent) values ($1, $2, $3, $4)', [
        next, user.id, row.session_id, token,
      ]);
      await tx.query('update auth.sessions set refreshed_at = now() where id = $1', [row.session_id]);
      return sessionResponse(settings, user, row.session_id, next);
    });
    if (!session) throw authError(400, 'refresh_token_already_used', 'Invalid Refresh Token: Already Used');
    sendJson(res, 200, session, API_VERSION_HEADER);
  }

  /** Verifies the user's access token and that its session and user still exist. */
  async function authenticate(req: IncomingMessage): Promise<{ claims: Claims; user: UserRow }> {
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
  }

  async function logout(req: IncomingMessage, res: ServerResponse, url: URL) {
    const scope = url.searchParams.get('scope') ?? 'global';
    if (!['global', 'local', 'others'].includes(scope)) {
      throw authError(400, 'validation_failed', 'Unsupported logout scope. Use global, local or others.');
    }
    const { claims, user } = await authenticate(req);
    const sessionId = claims.session_id as string;
    if (scope === 'local') await db.query('delete from auth.sessions where id = $1', [sessionId]);
    else if (scope === 'others') await db.query('delete from auth.sessions where user_id = $1 and id <> $2', [user.id, sessionId]);
    else await db.query('delete from auth.sessions where user_id = $1', [user.id]);
    sendEmpty(res, 204, API_VERSION_HEADER);
  }

  async function getUser(req: IncomingMessage, res: ServerResponse) {
    const { user } = await authenticate(req);
    sendJson(res, 200, userJson(user), API_VERSION_HEADER);
  }

  async function updateUser(req: IncomingMessage, res: ServerResponse) {
    const { user, claims } = await authenticate(req);
    const body = asBody(await readJson(req));
    let hash: string | null = null;
    if (body.password !== undefined) {
      const password = str(body.password);
      checkPassword(password);
      await limit('passwordChange', user.id);
      if (user.encrypted_password && (await passwords.compare(password, user.encrypted_password))) {
        throw authError(422, 'same_password', 'New password should be different from the old password.');
      }
      hash = await passwords.hash(password);
    }
    let email: string | null = null;
    if (body.email !== undefined) {
      email = str(body.email).trim().toLowerCase();
      if (!EMAIL.test(email)) throw authError(400, 'validation_failed', 'Unable to validate email address: invalid format');
      const other = await findUserByEmail(db, email);
      if (other && other.id !== user.id) {
        throw authError(422, 'email_exists', 'A user with this email address has already been registered');
      }
    }
    // user_metadata is merged key by key; a key sent as null is removed.
    const data = body.data === undefined ? {} : asBody(body.data);
    const [updated] = await db.query<UserRow>(
      `update auth.users set
         encrypted_password = coalesce($2, encrypted_password),
         email = coalesce($3, email),
         raw_user_meta_data = jsonb_strip_nulls(raw_user_meta_data || $4::jsonb),
         updated_at = now()
       where id = $1 returning ${USER_COLUMNS}`,
      [user.id, hash, email, JSON.stringify(data)],
    );
    // A new password ends every other session, so whoever knew the old one is out at once.
    if (hash) await db.query('delete from auth.sessions where user_id = $1 and id::text <> $2', [user.id, String(claims.session_id ?? '')]);
    sendJson(res, 200, userJson(updated!), API_VERSION_HEADER);
  }

  return async function handle(req: IncomingMessage, res: ServerResponse, path: string, url: URL): Promise<void> {
    const route = `${req.method} ${path}`;
    switch (route) {
      case 'POST /signup':
        return signup(req, res);
      case 'POST /token': {
        const grant = url.searchParams.get('grant_type');
        if (grant === 'password') return passwordGrant(req, res);
        if (grant === 'refresh_token') return refreshGrant(req, res);
        throw authError(400, 'invalid_credentials', 'unsupported_grant_type');
      }
      case 'POST /logout':
        return logout(req, res, url);
      case 'GET /user':
        return getUser(req, res);
      case 'PUT /user':
        return updateUser(req, res);
      case 'GET /settings':
        return sendJson(res, 200, {
          external: { email: true, phone: false, anonymous_users: false },
          disable_signup: false,
          mailer_autoconfirm: true,
          phone_autoconfirm: false,
          sms_provider: '',
          saml_enabled: false,
        });
      case 'GET /health':
        return sendJson(res, 200, { version: 'repx-local', name: 'GoTrue', description: 'RepX local auth (GoTrue subset)' });
      case 'GET /.well-known/jwks.json':
        // HS256 keys are never published.
        return sendJson(res, 200, { keys: [] }, { 'Cache-Control': 'public, max-age=600' });
      default:
        throw authError(
          404,
          'not_found',
          `${req.method} /auth/v1${path} is not supported by the RepX auth server: it serves email and password accounts only.`,
        );
    }
  };
}

/** Errors raised by the new-user trigger (username taken or invalid) reach the user in words. */
function signupDatabaseError(error: unknown): unknown {
  if (!isPgError(error)) return error;
  if (error.code === 'P0001') return authError(422, 'validation_failed', error.message);
  if (error.code === '23514' && /username/.test(error.message)) {
    return authError(
      422,
      'validation_failed',
      'A username has 2 to 30 characters: letters, digits, dots, dashes and underscores.',
    );
  }
  if (error.code === '23505') return authError(422, 'user_already_exists', 'User already registered');
  return authError(500, 'unexpected_failure', 'Database error saving new user');
}
