import { AlertNotices } from '../notices/AlertNotices';
import { InvestNotices } from '../notices/InvestNotices';
import { Outlet, matchPath, useLocation } from 'react-router';
import { secondStepDue, useAppStore } from '@repex/shared-ui/platform';
import type { ComposedRoutes } from '../remotes/routes';
import { useNewRelease } from '../remotes/useNewRelease';
import { usePreloadHome, usePreloadScreens } from '../remotes/usePreloadScreens';
import { AboutVersions } from './AboutVersions';
import { NavBar } from './NavBar';
import { NewReleaseNotice } from './NewReleaseNotice';
import { FillNotices } from '../notices/FillNotices';

/**
 * The top bar is shown only when signed in (a session still owing the code from the authenticator
 * app is not yet), and not in the admin area, which has its own header, nor on the admin sign-in
 * page while its role check runs.
 */
export function AppLayout({ composed }: { composed: ComposedRoutes }) {
  const session = useAppStore((s) => s.session);
  const path = useLocation().pathname;
  const inAdmin =
    path.startsWith('/nra/') ||
    path === '/auth/nra' ||
    composed.routes.some((r) => r.access === 'admin' && matchPath(r.path, path));
  const member = session && !secondStepDue(session) && !inAdmin;
  const newRelease = useNewRelease(composed.builds);
  usePreloadScreens(Boolean(member), composed.routes);
  // The sign-in pages a person signs in from (not the admin's, which leads to the admin area).
  usePreloadHome(!session && /^\/auth(\/code)?$/.test(path), composed.routes);
  return (
    <>
      {member && <NavBar links={composed.nav} />}
      {member && <FillNotices userId={session.user.id} />}
      {member && <AlertNotices userId={session.user.id} />}
      {member && <InvestNotices userId={session.user.id} />}
      <Outlet />
      {member && <AboutVersions builds={composed.builds} />}
      {newRelease && <NewReleaseNotice />}
    </>
  );
}
