import type { IncomingMessage } from 'node:http';
import { isPgError, type Queryable, type Statement } from './database';

/** Who the request runs as: the JWT's role and claims, applied with SET LOCAL semantics. */
export interface RequestIdentity {
  role: string;
  claims: Record<string, unknown>;
}

/**
 * The database refused the caller: its session has ended, or its API key was revoked or expired.
 * The HTTP edge answers 401 (http/errors.ts); a socket's join is refused.
 */
export class CallerEnded extends Error {
  constructor(readonly what: 'session' | 'api_key') {
    super(
      what === 'session'
        ? 'Your session has ended. Please sign in again.'
        : 'This API key has been revoked or has expired.',
    );
  }
}

/** What SQL can know of the request (PostgREST's request.* settings), and the channel topic for Realtime. */
export interface CallContext {
  method: string;
  path: string;
  headers: Record<string, string>;
  cookies: Record<string, string>;
  topic?: string;
}

/** An HTTP request's context: header names lower-case, the credentials left out, as PostgREST gives them. */
export function httpContext(req: IncomingMessage, path: string): CallContext {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (name === 'authorization' || name === 'apikey' || name === 'cookie' || value === undefined) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return { method: req.method ?? 'GET', path, headers, cookies: requestCookies(req) };
}

function requestCookies(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of String(req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const raw = part.slice(eq + 1).trim();
    try {
      out[part.slice(0, eq).trim()] = decodeURIComponent(raw);
    } catch {
      out[part.slice(0, eq).trim()] = raw;
    }
  }
  return out;
}

/**
 * Makes a transaction its caller, as PostgREST does per request: the JWT's role and claims and the
 * request's settings, for this transaction only; the role last, as the settings before it are the
 * server's own. A user's token is good only while its session lasts: an ended session (or a
 * session id that is not a uuid) raises 28000, so nothing sent after this in the same transaction
 * runs. The CASE checks in order, also when a custom plan folds the parameters into constants (an
 * arm whose test folds to true drops the arms after it, so a malformed id is never cast).
 *
 * One plain statement, prepared once per connection, rather than a plpgsql function: a function
 * call costs the database noticeably more per request, and every request runs this.
 */
const BECOME_CALLER = `select
  case when $4::text is null then null
       when $4 !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then local_server.session_ended()
       when not exists (select from auth.sessions s where s.id = $4::uuid) then local_server.session_ended()
  end,
  case when $11::uuid is not null and not exists (select from private.api_keys k where k.id = $11::uuid
         and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())) then local_server.api_key_ended()
  end,
  set_config('transaction_read_only', $9, true), set_config('request.jwt.claims', $2, true),
  set_config('request.jwt.claim.sub', $3, true), set_config('request.jwt.claim.role', $1, true),
  set_config('request.method', $5, true), set_config('request.path', $6, true),
  set_config('request.headers', $7, true), set_config('request.cookies', $8, true),
  set_config('realtime.topic', $10, true), set_config('search_path', 'public, extensions', true),
  set_config('role', $1, true)`;

/** The statement that makes a transaction its caller, with this request's values. */
export function callerStatement(who: RequestIdentity, context: CallContext, readOnly = false): Statement {
  const apiKey = typeof who.claims.api_key_id === 'string' ? who.claims.api_key_id : null;
  return {
    text: BECOME_CALLER,
    values: [
      who.role,
      JSON.stringify(who.claims),
      typeof who.claims.sub === 'string' ? who.claims.sub : '',
      // A user's token is good only while its session lasts (checked by the database, not only the
      // signature); an API key, while it is neither revoked nor expired.
      who.role !== 'authenticated' || apiKey
        ? null
        : typeof who.claims.session_id === 'string'
          ? who.claims.session_id
          : '',
      context.method,
      context.path,
      JSON.stringify(context.headers),
      JSON.stringify(context.cookies),
      readOnly ? 'on' : 'off',
      context.topic ?? '',
      apiKey,
    ],
  };
}

/** The database's refusal of an ended session or of a dead API key, from the caller statement's error. */
export function callerEnded(error: unknown): CallerEnded | undefined {
  if (!isPgError(error) || error.code !== CALLER_ENDED_CODE) return undefined;
  return new CallerEnded(error.message.includes('API key') ? 'api_key' : 'session');
}
const CALLER_ENDED_CODE = '28000';

/**
 * The one place a transaction becomes its caller (REST, Storage, Realtime): role, JWT claims and
 * request settings for this transaction only, as PostgREST sets them, in one statement.
 */
export async function becomeCaller(tx: Queryable, who: RequestIdentity, context: CallContext, readOnly = false) {
  const { text, values } = callerStatement(who, context, readOnly);
  try {
    await tx.query(text, values);
  } catch (error) {
    throw callerEnded(error) ?? error;
  }
}
