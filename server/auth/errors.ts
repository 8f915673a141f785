import { HttpError } from '../http/io';

export const API_VERSION_HEADER = { 'X-Supabase-Api-Version': '2024-01-01' };

/**
 * A GoTrue error in both shapes at once, so any auth-js version reads the right code and
 * message whether or not it can see the X-Supabase-Api-Version response header.
 */
export function authError(
  status: number,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
): HttpError {
  return new HttpError(status, { code, error_code: code, msg: message, message, ...extra }, API_VERSION_HEADER);
}

export const AuthErrors = {
  invalidCredentials: () => authError(400, 'invalid_credentials', 'Invalid login credentials'),
  missingCredentials: () =>
    authError(400, 'validation_failed', 'You must provide either an email or phone number and a password'),
  banned: () => authError(400, 'user_banned', 'User is banned'),
  noAuthorization: () => authError(401, 'no_authorization', 'This endpoint requires a valid Bearer token'),
  badJwt: (detail = 'unable to parse or verify signature, token is unverifiable') =>
    authError(403, 'bad_jwt', `invalid JWT: ${detail}`),
  missingSub: () => authError(403, 'bad_jwt', 'invalid claim: missing sub claim'),
  userNotFound: () => authError(403, 'user_not_found', 'User from sub claim in JWT does not exist'),
  /** An API key where only the person may act (docs/api.md): passwords, email, two-step, sign-out. */
  apiKeyRefused: () =>
    authError(
      403,
      'api_key_refused',
      'An API key cannot change a password, an email, two-step verification or a session. Sign in to RepX to do it.',
    ),
  sessionNotFound: () => authError(403, 'session_not_found', 'Session from session_id claim in JWT does not exist'),
  /** GoTrue's 429, with how long to wait. */
  rateLimited: (retryAfterSeconds: number, message = 'Request rate limit reached') =>
    new HttpError(
      429,
      { code: 'over_request_rate_limit', error_code: 'over_request_rate_limit', msg: message, message },
      { ...API_VERSION_HEADER, 'Retry-After': String(retryAfterSeconds) },
    ),
  /** An account locked by wrong passwords or codes (ours: GoTrue has no per-account lockout). */
  accountLocked: (retryAfterSeconds: number) =>
    AuthErrors.rateLimited(retryAfterSeconds, 'Too many failed attempts for this account. Try again later.'),
  /** GoTrue's 429 for mail asked for again too soon. */
  emailRateLimited: (retryAfterSeconds: number) => {
    const message = `For security purposes, you can only request this after ${retryAfterSeconds} seconds.`;
    return new HttpError(
      429,
      { code: 'over_email_send_rate_limit', error_code: 'over_email_send_rate_limit', msg: message, message },
      { ...API_VERSION_HEADER, 'Retry-After': String(retryAfterSeconds) },
    );
  },
  weakPassword: (min: number) =>
    authError(422, 'weak_password', `Password should be at least ${min} characters.`, {
      weak_password: { reasons: ['length'] },
    }),
};
