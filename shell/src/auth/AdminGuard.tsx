import { useEffect, useState, type ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { secondStepDue, toast, useAppStore } from '@repex/shared-ui/platform';
import { CenteredStatus } from '@repex/shared-ui/ui';
import { isAdmin, signOutHere } from './data';

type Verdict = 'checking' | 'admin' | { redirect: string };

/**
 * Spec section 6: 'Verifying Access...' while checking; a non-admin session is signed out and
 * sent to /dashboard; no session or a failed role check goes to /nra/login, remembering where
 * the visitor came from. The children (the admin remote) are not rendered, so not even
 * fetched, until the check has passed. The database enforces the same rule on its own.
 */
export function AdminGuard({ children }: { children: ReactNode }) {
  const { authLoading, session } = useAppStore();
  const location = useLocation();
  const [verdict, setVerdict] = useState<Verdict>('checking');
  const userId = session?.user.id;

  useEffect(() => {
    if (authLoading) return;
    if (!userId) return;
    let live = true;
    isAdmin(userId)
      .then(async (admin) => {
        if (!live) return;
        if (admin) return setVerdict('admin');
        setVerdict({ redirect: '/dashboard' });
        await signOutHere();
        toast({
          title: 'Access Denied',
          description: 'You do not have administrative privileges.',
          variant: 'destructive',
        });
      })
      .catch(() => live && setVerdict({ redirect: '/nra/login' }));
    return () => {
      live = false;
    };
  }, [authLoading, userId]);

  // The code from the authenticator app first: until then the database does not take the admin as one.
  if (secondStepDue(session)) return <Navigate to="/auth/verify" replace state={{ from: location }} />;
  // No session: to the admin sign-in, unless a decision was taken (signing a non-admin out also
  // clears the session, and they go to the dashboard).
  const shown: Verdict = !authLoading && !userId && verdict === 'checking' ? { redirect: '/nra/login' } : verdict;
  if (shown === 'checking') return <CenteredStatus>Verifying Access...</CenteredStatus>;
  if (shown !== 'admin') return <Navigate to={shown.redirect} replace state={{ from: location }} />;
  return <>{children}</>;
}
