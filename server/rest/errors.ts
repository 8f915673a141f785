import { HttpError } from '../http/io';
import type { PgError } from '../db/database';

export function restError(
  status: number,
  code: string,
  message: string,
  details: string | null = null,
  hint: string | null = null,
) {
  return new HttpError(status, { code, details, hint, message });
}

export const parseError = (message: string, details: string | null = null) =>
  restError(400, 'PGRST100', message, details);

/** PostgREST's SQLSTATE to HTTP status mapping. */
function statusForSqlState(code: string, role: string): number {
  if (code === '23505' || code === '23503' || code === '40001' || code === '40P01') return 409;
  if (code === '428C9') return 400;
  if (code === '42501') return role === 'anon' ? 401 : 403;
  if (code === '42P01' || code === '42883') return 404;
  if (code === '25006') return 405;
  if (code.startsWith('08') || code.startsWith('53') || code === '57P01') return 503;
  if (/^PT\d{3}$/.test(code)) return Number(code.slice(2));
  if (code === 'P0001') return 400;
  if (/^(XX|P0|F0|58|55|54)/.test(code)) return 500;
  return 400;
}

/** Codes whose words describe the client's request, which may be shown; anything else is ours. */
const CLIENT_CLASSES = /^(22|23|P0|42501|42P01|42883|42703|428C9|42804|42846|25006|PT|21)/;

/**
 * A database error as PostgREST answers it. A client error keeps its message; a server-side one
 * (a statement of ours the database refused, a limit of the engine) becomes a generic 500, so no
 * SQL text reaches a client. A view that cannot be written is a client's 405.
 */
export function fromPgError(error: PgError, role: string): HttpError {
  const code = error.code ?? 'XX000';
  if (code === '55000' && /cannot (update|delete from|insert into) view/.test(error.message)) {
    return restError(405, 'PGRST105', 'This resource is a read-only view: it cannot be changed.');
  }
  if (code === '40001' || code === '40P01') {
    // Already run twice (db/postgres.ts retriedOnce): nothing of it was kept.
    return restError(
      409,
      code,
      'Another request was changing the same accounts at that moment, so nothing was done. Please try again.',
    );
  }
  const status = statusForSqlState(code, role);
  if (status >= 500 || !CLIENT_CLASSES.test(code)) {
    return restError(
      status >= 500 ? status : 500,
      code,
      status === 503 ? 'The database is unavailable. Please retry.' : 'Internal server error',
    );
  }
  return restError(status, code, error.message, error.detail ?? null, error.hint ?? null);
}
