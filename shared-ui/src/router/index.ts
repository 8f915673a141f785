/**
 * The part of React Router that RepX uses, and the module the shell provides to every build under
 * the shared key `react-router`. React Router 7 is one package holding data routers, server
 * rendering and React Server Components too; a shared module cannot be tree-shaken (the host does
 * not know what a remote will ask for), so providing the whole package would put all of it on the
 * landing page. Providing this list instead lets webpack drop the rest. Code keeps importing from
 * 'react-router'; a test fails when it asks for a name that is not here. This file reaches the
 * package as 'react-router-package' (an alias of the build and of tsconfig), since under its own
 * name the import would be answered by this very module.
 */
export {
  BrowserRouter,
  Link,
  Navigate,
  NavLink,
  Outlet,
  Route,
  Routes,
  matchPath,
  useLocation,
  useNavigate,
  useParams,
  useSearchParams,
} from 'react-router-package';
