import { Outlet, useLocation } from 'react-router-dom';
import { useAppStore } from '@repex/shared-ui';
import { NavBar } from './NavBar';

/** The top bar is shown only when signed in, and not in the admin area, which has its own header. */
export function AppLayout() {
  const session = useAppStore((s) => s.session);
  const inAdmin = useLocation().pathname.startsWith('/nra/');
  return (
    <>
      {session && !inAdmin && <NavBar />}
      <Outlet />
    </>
  );
}
