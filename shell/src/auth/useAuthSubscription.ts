import { useEffect } from 'react';
import { useLocation } from 'react-router';
import { hasStoredSession, loadSupabase, useAppStore } from '@repex/shared-ui/platform';

let subscribed = false;

/**
 * Keeps the store's session in step with supabase-js (INITIAL_SESSION, SIGNED_IN,
 * TOKEN_REFRESHED, SIGNED_OUT...). A visitor with no stored session on the landing page is
 * signed out without fetching supabase-js at all; anywhere else the client is loaded and the
 * guards show 'Loading...' until its first event.
 */
export function useAuthSubscription(): void {
  const onLanding = useLocation().pathname === '/';
  const needsClient = !onLanding || hasStoredSession();

  useEffect(() => {
    if (subscribed) return;
    const { setSession } = useAppStore.getState();
    if (!needsClient) {
      setSession(null);
      return;
    }
    useAppStore.setState({ authLoading: true });
    subscribed = true;
    loadSupabase()
      .then((client) => client.auth.onAuthStateChange((_event, session) => setSession(session)))
      .catch((error: unknown) => {
        subscribed = false;
        console.error('[shell] could not load the auth client', error);
      });
  }, [needsClient]);
}
