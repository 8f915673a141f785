import type { Session } from '@supabase/supabase-js';

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
export function appCodeMessage(message: string): string {
  return message === 'Invalid TOTP code entered' ? 'The code is wrong. Enter the one your app shows now.' : message;
}
