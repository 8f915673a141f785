import { useEffect, useState, type ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { secondStepDue, toast, useAppStore } from '@repex/shared-ui/platform';
import { CenteredStatus } from '@repex/shared-ui/ui';
import { adminRefusal, isAdmin, signOutHere } from './data';
import { HOME } from './guards';

type Verdict = 'checking' | 'admin' | { redirect: string };

/**
 * Spec section 6: 'Verifying Access...' while checking; a non-admin session is signed out and
 * sent to /dashboard; no session or a failed role check goes to /nra/login, remembering where
 * the visitor came from. The children (the admin remote) are not rendered, so not even
 * fetched, until the check has passed. The database enforces the same rule on its own. Where the
 * exchange asks admins for two-step verification, an admin without an app stays signed in and is
 * sent to /profile, told so in the database's words.
 */
export function AdminGuard({ children }: { children: ReactNode }) {
  const { authLoading, session } = useAppStore();
  const location = useLocation();
  const [verdict, setVerdict] = useState<Verdict>('checking');
  const userId = session?.user.id;
  // Until the code from the app is entered the database takes no one as an admin: that page comes first.
  const due = secondStepDue(session);

  useEffect(() => {
    if (authLoading || due) return;
    if (!userId) return;
    let live = true;
    isAdmin(userId)
      .then(async (admin) => {
        if (!live) return;
        if (admin) {
          // The exchange may ask admins for an app, and this one may have none.
          const refusal = await adminRefusal();
          if (!live) return;
          if (!refusal) return setVerdict('admin');
          setVerdict({ redirect: '/profile' });
          return toast({ title: 'Two-Step Verification Required', description: refusal, variant: 'destructive' });
        }
        setVerdict({ redirect: HOME });
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
  }, [authLoading, userId, due]);

  // The code from the authenticator app first: until then the database does not take the admin as one.
  if (due) return <Navigate to="/auth/verify" replace state={{ from: location }} />;
  // No session: to the admin sign-in, unless a decision was taken (signing a non-admin out also
  // clears the session, and they go to the dashboard).
  const shown: Verdict = !authLoading && !userId && verdict === 'checking' ? { redirect: '/nra/login' } : verdict;
  if (shown === 'checking') return <CenteredStatus>Verifying Access...</CenteredStatus>;
  if (shown !== 'admin') return <Navigate to={shown.redirect} replace state={{ from: location }} />;
  return <>{children}</>;
}
