/** supabase-js keeps a session in localStorage under sb-<host label>-auth-token. */
const STORED_SESSION_KEY = /^sb-.+-auth-token$/;

/** Whether supabase-js has a session in storage. */
export function hasStoredSession(): boolean {
  try {
    return Object.keys(localStorage).some((k) => STORED_SESSION_KEY.test(k));
  } catch {
    return false;
  }
}

/**
 * The same test as a script of its own, which the shell's page runs inline in its head, before the
 * landing page written into it paints: a visitor with a stored session is about to be sent to the
 * dashboard, so the page marks itself `signed-in` and its CSS hides the landing page. The page's
 * Content-Security-Policy allows exactly this script, by its hash.
 */
export const SESSION_PROBE = `try{if(Object.keys(localStorage).some(function(k){return ${String(STORED_SESSION_KEY)}.test(k)}))document.documentElement.classList.add('signed-in')}catch(e){}`;
