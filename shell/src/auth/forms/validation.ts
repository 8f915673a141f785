/**
 * Spec section 5: email and password required, email-shaped; sign-up needs a username and a
 * password of the auth server's minimum length (from /config.json).
 */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export type FieldErrors<K extends string> = Partial<Record<K, string>>;

function emailError(email: string): string | undefined {
  if (!email.trim()) return 'Email is required.';
  if (!EMAIL.test(email.trim())) return 'Enter a valid email address.';
  return undefined;
}

export function validateSignIn(v: { email: string; password: string }): FieldErrors<'email' | 'password'> {
  const errors: FieldErrors<'email' | 'password'> = {};
  const email = emailError(v.email);
  if (email) errors.email = email;
  if (!v.password) errors.password = 'Password is required.';
  return errors;
}

export function validateSignUp(
  v: { username: string; email: string; password: string },
  passwordMinLength: number,
): FieldErrors<'username' | 'email' | 'password'> {
  const errors: FieldErrors<'username' | 'email' | 'password'> = {
    ...validateSignIn(v),
    ...validateNewPassword(v, passwordMinLength),
  };
  if (!v.username.trim()) errors.username = 'Username is required.';
  return errors;
}

export function validateRecoveryEmail(v: { email: string }): FieldErrors<'email'> {
  const email = emailError(v.email);
  return email ? { email } : {};
}

export function validateRecoveryCode(v: { code: string }): FieldErrors<'code'> {
  const code = v.code.replace(/\s/g, '');
  if (!code) return { code: 'Enter the code from the email.' };
  if (!/^\d+$/.test(code)) return { code: 'The code is digits only.' };
  return {};
}

export function validateNewPassword(v: { password: string }, passwordMinLength: number): FieldErrors<'password'> {
  if (!v.password) return { password: 'Password is required.' };
  if (v.password.length < passwordMinLength) {
    return { password: `Password must be at least ${passwordMinLength} characters.` };
  }
  return {};
}

/** What is wrong with a code from the authenticator app as typed, if anything (the server judges the rest). */
export function appCodeError(typed: string): string | undefined {
  const code = typed.replace(/\s/g, '');
  if (!code) return 'Enter the code from your authenticator app.';
  if (!/^\d+$/.test(code)) return 'The code is digits only.';
  return undefined;
}
