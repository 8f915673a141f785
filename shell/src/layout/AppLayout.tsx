import { Outlet, useLocation } from 'react-router-dom';
import { useAppStore } from '@repex/shared-ui';
import { NavBar } from './NavBar';

/**
 * The top bar is shown only when signed in, and not in the admin area, which has its own header,
 * nor on the admin sign-in page while its role check runs.
 */
export function AppLayout() {
  const session = useAppStore((s) => s.session);
  const path = useLocation().pathname;
  const inAdmin = path.startsWith('/nra/') || path === '/auth/nra';
  return (
    <>
      {session && !inAdmin && <NavBar />}
      <Outlet />
    </>
  );
}
