import { CallerEnded } from '../db/caller';
import { DatabaseUnavailable } from '../db/database';
import { HttpError } from './io';

const ENDED = {
  session: { details: 'session_not_found', description: 'session ended' },
  api_key: { details: 'api_key_ended', description: 'API key ended' },
} as const;

/**
 * The database layer's own errors as the HTTP edge answers them: an ended session or key is
 * PostgREST's 401 (which makes supabase-js sign out), an unreachable database 503 with a retry.
 */
export function httpErrorOf(error: unknown): HttpError | undefined {
  if (error instanceof HttpError) return error;
  if (error instanceof CallerEnded) {
    const { details, description } = ENDED[error.what];
    return new HttpError(
      401,
      { code: 'PGRST301', details, hint: null, message: error.message },
      { 'WWW-Authenticate': `Bearer error="invalid_token", error_description="${description}"` },
    );
  }
  if (error instanceof DatabaseUnavailable) {
    return new HttpError(
      503,
      { code: 'PGRST001', details: null, hint: null, message: error.message },
      { 'Retry-After': '1' },
    );
  }
  return undefined;
}
