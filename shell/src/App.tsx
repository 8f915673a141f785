import { BrowserRouter, Navigate, Route, Routes, useLocation } from 'react-router';
import { ThemeProvider } from 'styled-components';
import { useEffect, useState } from 'react';
import { Toaster } from '@repex/shared-ui/platform';
import { CenteredStatus, GlobalStyle, theme } from '@repex/shared-ui/ui';
import { AdminGuard } from './auth/AdminGuard';
import { RequireAuth, SignedOutOnly } from './auth/guards';
import { useAuthSubscription } from './auth/useAuthSubscription';
import { AppLayout } from './layout/AppLayout';
import { AdminSignIn } from './pages/AdminSignIn';
import { AuthPage } from './pages/AuthPage';
import { ConfirmEmailPage } from './pages/ConfirmEmail';
import { Landing } from './pages/Landing';
import { NotFound } from './pages/NotFound';
import { ResetPasswordPage } from './pages/ResetPassword';
import { SignInWithCodePage } from './pages/SignInWithCode';
import { TwoStepPage } from './pages/TwoStepPage';
import { RemoteScreen } from './remotes/RemoteScreen';
import type { ComposedRoute, ComposedRoutes } from './remotes/routes';

/** /nra/login is where the spec sends admins; it is the admin sign-in. */
function ToAdminSignIn() {
  return <Navigate to="/auth/nra" replace state={useLocation().state} />;
}

/**
 * The route table of spec section 2: the shell's own pages, then every remote's routes as the
 * remotes declare them (their routes.json), each behind the guard its access names. A screen's
 * code is fetched from its remote on first visit.
 */
function AppRoutes({
  composed,
  reading,
  passwordMinLength,
}: {
  composed: ComposedRoutes;
  reading: boolean;
  passwordMinLength: number;
}) {
  useAuthSubscription();
  const screen = (r: ComposedRoute) => <RemoteScreen remote={r.remote} module={r.module} label={r.title} />;
  return (
    <Routes>
      <Route element={<AppLayout composed={composed} />}>
        <Route path="/" element={<Landing />} />
        <Route
          path="/auth"
          element={
            <SignedOutOnly>
              <AuthPage passwordMinLength={passwordMinLength} />
            </SignedOutOnly>
          }
        />
        <Route
          path="/auth/confirm"
          element={
            <SignedOutOnly>
              <ConfirmEmailPage />
            </SignedOutOnly>
          }
        />
        <Route
          path="/auth/code"
          element={
            <SignedOutOnly>
              <SignInWithCodePage />
            </SignedOutOnly>
          }
        />
        <Route path="/auth/verify" element={<TwoStepPage />} />
        <Route path="/auth/reset" element={<ResetPasswordPage passwordMinLength={passwordMinLength} />} />
        <Route path="/auth/nra" element={<AdminSignIn />} />
        <Route path="/nra/login" element={<ToAdminSignIn />} />
        {composed.routes
          .filter((r) => r.access === 'admin')
          .map((r) => (
            <Route key={r.path} path={r.path} element={<AdminGuard>{screen(r)}</AdminGuard>} />
          ))}
        <Route element={<RequireAuth />}>
          {composed.routes
            .filter((r) => r.access === 'signed-in')
            .map((r) => (
              <Route key={r.path} path={r.path} element={screen(r)} />
            ))}
        </Route>
        <Route
          path="*"
          element={
            reading ? <CenteredStatus>Loading...</CenteredStatus> : <NotFound unavailable={composed.unavailable} />
          }
        />
      </Route>
    </Routes>
  );
}

/** While the remotes' routes are being read: none yet, and an unknown address waits for them. */
const READING: ComposedRoutes = { routes: [], nav: [], unavailable: [], builds: {} };

export function App({ routes, passwordMinLength }: { routes: Promise<ComposedRoutes>; passwordMinLength: number }) {
  const [composed, setComposed] = useState<ComposedRoutes | null>(null);
  useEffect(() => {
    let live = true;
    void routes.then((r) => live && setComposed(r));
    return () => {
      live = false;
    };
  }, [routes]);
  return (
    <ThemeProvider theme={theme}>
      <GlobalStyle />
      <BrowserRouter>
        <AppRoutes composed={composed ?? READING} reading={!composed} passwordMinLength={passwordMinLength} />
      </BrowserRouter>
      <Toaster />
    </ThemeProvider>
  );
}
