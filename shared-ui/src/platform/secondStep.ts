import type { Factor, Session } from '@supabase/supabase-js';
import { supabase } from './supabase';

/** The assurance level an access token carries (GoTrue's aal claim): aal2 once a code from the app was entered. */
function tokenAal(accessToken: string): string | undefined {
  try {
    const payload = accessToken.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/');
    return (JSON.parse(atob(payload)) as { aal?: string }).aal;
  } catch {
    return undefined;
  }
}

/**
 * Whether the session's user turned on two-step verification and this session has not entered a
 * code yet: the app shows the code step before anything else. (The database refuses such a
 * session on its own; this only decides what to show.)
 */
export function secondStepDue(session: Session | null): boolean {
  if (!session) return false;
  const on = session.user.factors?.some((f) => f.status === 'verified') ?? false;
  return on && tokenAal(session.access_token) !== 'aal2';
}

/** Words for the auth server's refusals of a code from the app. */
function appCodeMessage(message: string): string {
  return message === 'Invalid TOTP code entered' ? 'The code is wrong. Enter the one your app shows now.' : message;
}

/** A turned-on authenticator app: a verified TOTP factor, by the name it was added under. */
export interface AuthenticatorApp {
  id: string;
  name: string;
  addedAt: string;
}

/** The user's turned-on apps, oldest first (an app and, perhaps, its backup). */
export function authenticatorApps(factors: Factor[] | undefined): AuthenticatorApp[] {
  return (factors ?? [])
    .filter((f) => f.status === 'verified')
    .map((f) => ({ id: f.id, name: f.friendly_name || 'Authenticator app', addedAt: f.created_at }));
}

/** Enters a code from the app `factorId`, raising this session: null, or the refusal in words. */
export async function enterAppCode(factorId: string, code: string): Promise<string | null> {
  const { error } = await supabase().auth.mfa.challengeAndVerify({ factorId, code: code.replace(/\s/g, '') });
  return error ? appCodeMessage(error.message) : null;
}

/**
 * Signs the user in again with their password: the proof the backend asks for when the session's
 * sign-in is not recent (before money leaves, before two-step verification is turned on). The new
 * session replaces this browser's; the old one is ended. Resolves to the refusal in words, or null.
 */
export async function signInAgain(password: string, purpose: string): Promise<string | null> {
  const auth = supabase().auth;
  const old = (await auth.getSession()).data.session;
  if (!old?.user.email) return `Sign in again to ${purpose}.`;
  const { error } = await auth.signInWithPassword({ email: old.user.email, password });
  if (error) return error.message === 'Invalid login credentials' ? 'That password is not right.' : error.message;
  // The user's own token ends its own session (GoTrue's logout; the admin API needs no admin key for it).
  await auth.admin.signOut(old.access_token, 'local');
  return null;
}
