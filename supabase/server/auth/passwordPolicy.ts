/**
 * The password rule's one owner: the auth server's setting, as GoTrue's GOTRUE_PASSWORD_MIN_LENGTH
 * (6 by default, as the specification asks). The shell's /config.json hands the same figure to
 * the sign-up form, which checks it before asking; the server checks it again whoever calls.
 */
export const PASSWORD_MAX_LENGTH = 72; // bcrypt reads no further

export function passwordMinLength(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.PASSWORD_MIN_LENGTH ?? 6);
  if (!Number.isInteger(value) || value < 6 || value > PASSWORD_MAX_LENGTH) {
    throw new Error(`PASSWORD_MIN_LENGTH must be a whole number from 6 to ${PASSWORD_MAX_LENGTH}`);
  }
  return value;
}
