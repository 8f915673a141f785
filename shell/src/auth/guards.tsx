import type { ReactNode } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { secondStepDue, useAppStore } from '@repex/shared-ui/platform';
import { CenteredStatus } from '@repex/shared-ui/ui';

/** Where a signed-in person starts (spec section 2): after signing in, and from / or /auth. */
export const HOME = '/dashboard';

/**
 * Spec section 2: a signed-out visitor on a protected route goes to /auth once loading ends; a
 * session that still owes the code from the authenticator app goes to /auth/verify, and back after.
 */
export function RequireAuth() {
  const { authLoading, session } = useAppStore();
  const location = useLocation();
  if (authLoading) return <CenteredStatus>Loading...</CenteredStatus>;
  if (!session) return <Navigate to="/auth" replace />;
  if (secondStepDue(session)) return <Navigate to="/auth/verify" replace state={{ from: location }} />;
  return <Outlet />;
}

/** /auth: signed-in users are redirected to /dashboard (/auth/nra does the same in its page). */
export function SignedOutOnly({ children }: { children?: ReactNode }) {
  const { authLoading, session } = useAppStore();
  if (authLoading) return <CenteredStatus>Loading...</CenteredStatus>;
  if (session) return <Navigate to={secondStepDue(session) ? '/auth/verify' : HOME} replace />;
  return children ? <>{children}</> : <Outlet />;
}
