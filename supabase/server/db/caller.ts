import type { IncomingMessage } from 'node:http';
import { isPgError, type Queryable, type Statement } from './database';
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

/** The statement that makes a transaction its caller (local_server.become_caller, in the platform schema). */
export function callerStatement(who: RequestIdentity, context: CallContext, readOnly = false): Statement {
  return {
    text: 'select local_server.become_caller($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
    values: [
      who.role,
      JSON.stringify(who.claims),
      typeof who.claims.sub === 'string' ? who.claims.sub : '',
      // A user's token is good only while its session lasts (checked by the database, not only the signature).
      who.role !== 'authenticated' ? null : typeof who.claims.session_id === 'string' ? who.claims.session_id : '',
      context.method,
      context.path,
      JSON.stringify(context.headers),
      JSON.stringify(context.cookies),
      readOnly ? 'on' : 'off',
      context.topic ?? '',
    ],
  };
}

/** The database's refusal of an ended session, as the 401 that makes the browser sign out. */
export function sessionEnded(error: unknown): HttpError | undefined {
  return isPgError(error) && error.code === SESSION_ENDED_CODE ? SESSION_ENDED : undefined;
}
const SESSION_ENDED_CODE = '28000';

/**
 * The one place a transaction becomes its caller (REST, Storage, Realtime): role, JWT claims and
 * request settings for this transaction only, as PostgREST sets them, in one statement.
 */
export async function becomeCaller(tx: Queryable, who: RequestIdentity, context: CallContext, readOnly = false) {
  const { text, values } = callerStatement(who, context, readOnly);
  try {
    await tx.query(text, values);
  } catch (error) {
    throw sessionEnded(error) ?? error;
  }
}
