import { Outlet, matchPath, useLocation } from 'react-router';
import { secondStepDue, useAppStore } from '@repex/shared-ui/platform';
import type { ComposedRoutes } from '../remotes/routes';
import { useNewRelease } from '../remotes/useNewRelease';
import { usePreloadHome, usePreloadScreens } from '../remotes/usePreloadScreens';
import { AboutVersions } from './AboutVersions';
import { NavBar } from './NavBar';
import { NewReleaseNotice } from './NewReleaseNotice';
import { Bell } from '../notices/Bell';
import { useNotices } from '../notices/useNotices';

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
      {member && <Member userId={session.user.id} nav={composed.nav} />}
      <Outlet />
      {member && <AboutVersions builds={composed.builds} />}
      {newRelease && <NewReleaseNotice />}
    </>
  );
}

/** The signed-in member's bar, with the bell of their notices (and their toasts, on any screen). */
function Member({ userId, nav }: { userId: string; nav: ComposedRoutes['nav'] }) {
  const notices = useNotices(userId);
  return <NavBar links={nav} bell={<Bell notices={notices} />} />;
}
