/**
 * The password rule's one owner: the auth server's setting, as GoTrue's GOTRUE_PASSWORD_MIN_LENGTH
 * (supabase/config.toml's [auth] minimum_password_length, 6 as the specification asks). The
 * shell's /config.json hands the same figure to the sign-up form, which checks it before asking;
 * the server checks it again whoever calls.
 */
export const PASSWORD_MAX_LENGTH = 72; // bcrypt reads no further

/** The setting, refused below the specification's 6 or above what bcrypt reads. */
export function passwordMinLength(value: unknown, name = 'PASSWORD_MIN_LENGTH'): number {
  const length = Number(value);
  if (!Number.isInteger(length) || length < 6 || length > PASSWORD_MAX_LENGTH) {
    throw new Error(`${name} must be a whole number from 6 to ${PASSWORD_MAX_LENGTH}`);
  }
  return length;
}
