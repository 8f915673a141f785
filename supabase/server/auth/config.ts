import { readProjectConfig, type AuthConfig } from '../projectConfig';
import { passwordMinLength } from './passwordPolicy';

/**
 * Auth's settings: supabase/config.toml's, as the Supabase CLI reads them, each overridable by an
 * environment variable (the README's Configuration table) so one deployment can differ from the
 * file without editing it.
 */
export function authConfig(env: NodeJS.ProcessEnv = process.env, file = readProjectConfig().auth): AuthConfig {
  const jwtExpiry = Number(env.JWT_EXPIRY ?? file.jwtExpiry);
  if (!Number.isInteger(jwtExpiry) || jwtExpiry < 30)
    throw new Error('JWT_EXPIRY must be a whole number of seconds, 30 or more');
  const siteUrl = env.SITE_URL ?? file.siteUrl;
  if (!URL.canParse(siteUrl)) throw new Error(`SITE_URL must be an absolute URL, not ${siteUrl}`);
  return {
    siteUrl: siteUrl.replace(/\/+$/, ''),
    jwtExpiry,
    minimumPasswordLength: env.PASSWORD_MIN_LENGTH
      ? passwordMinLength(env.PASSWORD_MIN_LENGTH)
      : passwordMinLength(file.minimumPasswordLength, '[auth] minimum_password_length'),
    emailConfirmations: flag(env.AUTH_EMAIL_CONFIRMATIONS, file.emailConfirmations),
  };
}

function flag(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new Error(`AUTH_EMAIL_CONFIRMATIONS must be true or false, not ${value}`);
}
