import { Navigate } from 'react-router';
import { hasStoredSession, useAppStore } from '@repex/shared-ui/platform';
import { CenteredStatus } from '@repex/shared-ui/ui';
import { HOME } from '../auth/guards';
import { LandingView } from './LandingView';

/**
 * Spec section 2: signed-in visitors go to /dashboard; others see the landing page. A visitor with
 * no stored session is shown it at once, as the page's HTML already shows it, rather than a
 * 'Loading...' in between.
 */
export function Landing() {
  const { authLoading, session } = useAppStore();

  if (session) return <Navigate to={HOME} replace />;
  if (authLoading && hasStoredSession()) return <CenteredStatus>Loading...</CenteredStatus>;
  return <LandingView />;
}
