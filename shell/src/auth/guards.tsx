import type { ReactNode } from 'react';
import { Navigate, Outlet } from 'react-router-dom';
import { useAppStore } from '@repex/shared-ui/platform';
import { CenteredStatus } from '@repex/shared-ui/ui';

/** Spec section 2: a signed-out visitor on a protected route goes to /auth once loading ends. */
export function RequireAuth() {
  const { authLoading, session } = useAppStore();
  if (authLoading) return <CenteredStatus>Loading...</CenteredStatus>;
  if (!session) return <Navigate to="/auth" replace />;
  return <Outlet />;
}

/** /auth: signed-in users are redirected to /dashboard (/auth/nra does the same in its page). */
export function SignedOutOnly({ children }: { children?: ReactNode }) {
  const { authLoading, session } = useAppStore();
  if (authLoading) return <CenteredStatus>Loading...</CenteredStatus>;
  if (session) return <Navigate to="/dashboard" replace />;
  return children ? <>{children}</> : <Outlet />;
}
