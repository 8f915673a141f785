import { supabase, unwrap } from '@repex/shared-ui/platform';

/*
 * What the shell's pages ask of the auth server (GoTrue, through supabase-js) and of the database.
 * Each answers as supabase-js does ({ data, error }); the pages say the outcome in words.
 */
const auth = () => supabase().auth;

export const signIn = (email: string, password: string) => auth().signInWithPassword({ email, password });

/** A new account; its username is also its display name until the user changes it. */
export const signUp = (email: string, password: string, username: string) =>
  auth().signUp({ email, password, options: { data: { username, full_name: username } } });

/** Ends this browser's session only (an admin check that failed, or the second step given up). */
export const signOutHere = () => auth().signOut({ scope: 'local' });

/** Mails a code that lets the account choose a new password. */
export const sendRecoveryCode = (email: string) => auth().resetPasswordForEmail(email);

/** Mails a new sign-up code to an account not yet confirmed. */
export const resendSignUpCode = (email: string) => auth().resend({ type: 'signup', email });

/** Mails a code that signs an existing account in (no account is made), past a lockout by strangers. */
export const sendSignInCode = (email: string) => auth().signInWithOtp({ email, options: { shouldCreateUser: false } });

/** A mailed code, as typed (spaces allowed), for a sign-up, a sign-in or a password recovery. */
export const verifyMailedCode = (email: string, code: string, type: 'signup' | 'email' | 'recovery') =>
  auth().verifyOtp({ email, token: code.replace(/\s/g, ''), type });

export const setPassword = (password: string) => auth().updateUser({ password });

/**
 * Whether the user may open the admin area (spec section 7: the role from profiles, one row): the
 * one check the admin sign-in page and the admin route's guard both make. The database checks
 * every admin call again, an active account included.
 */
export async function isAdmin(userId: string): Promise<boolean> {
  return unwrap(await supabase().from('profiles').select('role').eq('id', userId).single()).role === 'admin';
}

/**
 * After the role: whether the database takes this admin as one now. Null if it does; otherwise its
 * refusal where it is one the admin can act on (the exchange asks admins for two-step verification
 * and this one has no app turned on). Any other failure throws.
 */
export async function adminRefusal(): Promise<string | null> {
  const { error } = await supabase().rpc('admin_check');
  if (!error) return null;
  if (error.hint === 'admin_two_step_required') return error.message;
  throw new Error(error.message);
}
