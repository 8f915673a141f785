import { HttpError } from '../http/io';
import type { PgError } from '../db/database';

export function restError(status: number, code: string, message: string, details: string | null = null, hint: string | null = null) {
  return new HttpError(status, { code, details, hint, message });
}

export const parseError = (message: string, details: string | null = null) => restError(400, 'PGRST100', message, details);

/** PostgREST's SQLSTATE to HTTP status mapping. */
export function statusForSqlState(code: string, role: string): number {
  if (code === '23505' || code === '23503') return 409;
  if (code === '42501') return role === 'anon' ? 401 : 403;
  if (code === '42P01' || code === '42883') return 404;
  if (code === '25006') return 405;
  if (code.startsWith('08') || code.startsWith('53') || code === '57P01') return 503;
  if (/^PT\d{3}$/.test(code)) return Number(code.slice(2));
  if (code === 'P0001') return 400;
  if (/^(XX|P0|F0|58|55|54)/.test(code)) return 500;
  return 400;
}

export function fromPgError(error: PgError, role: string): HttpError {
  return restError(statusForSqlState(error.code ?? 'XX000', role), error.code ?? 'XX000', error.message, error.detail ?? null, error.hint ?? null);
}
