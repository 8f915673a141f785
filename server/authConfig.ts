import { env, readEnv } from './env';
import { readProjectConfig, type AuthConfig } from './projectConfig';
import { passwordMinLength } from './auth/passwordPolicy';

/**
 * Auth's settings: supabase/config.toml's, as the Supabase CLI reads them, each overridable by an
 * environment variable (the README's Configuration table, parsed by env.ts) so one deployment can
 * differ from the file without editing it.
 */
export function authConfig(source: NodeJS.ProcessEnv = process.env, file = readProjectConfig().auth): AuthConfig {
  const set = source === process.env ? env() : readEnv(source);
  const jwtExpiry = set.JWT_EXPIRY ?? file.jwtExpiry;
  if (!Number.isInteger(jwtExpiry) || jwtExpiry < 30)
    throw new Error('[auth] jwt_expiry must be a whole number of seconds, 30 or more');
  const siteUrl = set.SITE_URL ?? file.siteUrl;
  if (!URL.canParse(siteUrl)) throw new Error(`[auth] site_url must be an absolute URL, not ${siteUrl}`);
  return {
    siteUrl: siteUrl.replace(/\/+$/, ''),
    jwtExpiry,
    minimumPasswordLength:
      set.PASSWORD_MIN_LENGTH ?? passwordMinLength(file.minimumPasswordLength, '[auth] minimum_password_length'),
    emailConfirmations: set.AUTH_EMAIL_CONFIRMATIONS ?? file.emailConfirmations,
  };
}
