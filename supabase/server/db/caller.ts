import type { IncomingMessage } from 'node:http';
import type { Queryable } from './database';
import { HttpError } from '../http/io';

/** Who the request runs as: the JWT's role and claims, applied with SET LOCAL semantics. */
export interface RequestIdentity {
  role: string;
  claims: Record<string, unknown>;
}

const SESSION_ENDED = new HttpError(
  401,
  {
    code: 'PGRST301',
    details: 'session_not_found',
    hint: null,
    message: 'Your session has ended. Please sign in again.',
  },
  { 'WWW-Authenticate': 'Bearer error="invalid_token", error_description="session ended"' },
);

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
 * The one place a transaction becomes its caller (REST, Storage, Realtime): role, JWT claims and
 * request settings for this transaction only, as PostgREST sets them, in one statement.
 */
export async function becomeCaller(tx: Queryable, who: RequestIdentity, context: CallContext, readOnly = false) {
  // A user's token is good only while its session lasts: sign-out, suspension or a password change
  // ends the session, and the token with it (checked here, in the same statement, not only the signature).
  const sessionId =
    who.role !== 'authenticated' ? null : typeof who.claims.session_id === 'string' ? who.claims.session_id : '';
  const [state] = await tx.query<{ live: boolean }>(
    `select ($6::text is null or exists (select 1 from auth.sessions s where s.id::text = $6)) as live,
            set_config('transaction_read_only', $9, true),
            set_config('role', $1, true), set_config('request.jwt.claims', $2, true),
            set_config('request.jwt.claim.sub', $3, true), set_config('request.jwt.claim.role', $1, true),
            set_config('request.method', $4, true), set_config('request.path', $5, true),
            set_config('request.headers', $7, true), set_config('request.cookies', $8, true),
            set_config('realtime.topic', $10, true),
            set_config('search_path', 'public, extensions', true)`,
    [
      who.role,
      JSON.stringify(who.claims),
      typeof who.claims.sub === 'string' ? who.claims.sub : '',
      context.method,
      context.path,
      sessionId,
      JSON.stringify(context.headers),
      JSON.stringify(context.cookies),
      readOnly ? 'on' : 'off',
      context.topic ?? '',
    ],
  );
  if (who.role === 'authenticated' && !state?.live) throw SESSION_ENDED;
}
