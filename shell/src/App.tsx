import { BrowserRouter, Navigate, Route, Routes, useLocation } from 'react-router-dom';
import { ThemeProvider } from 'styled-components';
import { GlobalStyle, Toaster, theme } from '@repex/shared-ui';
import { AdminGuard } from './auth/AdminGuard';
import { RequireAuth, SignedOutOnly } from './auth/guards';
import { useAuthSubscription } from './auth/useAuthSubscription';
import { AppLayout } from './layout/AppLayout';
import { AdminSignIn } from './pages/AdminSignIn';
import { AuthPage } from './pages/AuthPage';
import { Landing } from './pages/Landing';
import { NotFound } from './pages/NotFound';
import { RemoteScreen } from './remotes/RemoteScreen';

/** /nra/login is where the spec sends admins; it is the admin sign-in. */
function ToAdminSignIn() {
  return <Navigate to="/auth/nra" replace state={useLocation().state} />;
}

/** The route table of spec section 2. Each screen is fetched from its remote on first visit. */
function AppRoutes() {
  useAuthSubscription();
  return (
    <Routes>
      <Route element={<AppLayout />}>
        <Route path="/" element={<Landing />} />
        <Route path="/auth" element={<SignedOutOnly><AuthPage /></SignedOutOnly>} />
        <Route path="/auth/nra" element={<AdminSignIn />} />
        <Route path="/nra/login" element={<ToAdminSignIn />} />
        <Route
          path="/nra/login/profile"
          element={
            <AdminGuard>
              <RemoteScreen remote="admin" module="Admin" label="Admin" />
            </AdminGuard>
          }
        />
        <Route element={<RequireAuth />}>
          <Route path="/dashboard" element={<RemoteScreen remote="portfolio" module="Dashboard" label="Dashboard" />} />
          <Route path="/market" element={<RemoteScreen remote="market" module="Market" label="Market" />} />
          <Route path="/profile" element={<RemoteScreen remote="portfolio" module="Profile" label="Profile" />} />
          <Route path="/trading/:userId" element={<RemoteScreen remote="trading" module="Trading" label="Trading" />} />
          <Route path="/wallet" element={<RemoteScreen remote="wallet" module="Wallet" label="Wallet" />} />
        </Route>
        <Route path="*" element={<NotFound />} />
      </Route>
    </Routes>
  );
}

export function App() {
  return (
    <ThemeProvider theme={theme}>
      <GlobalStyle />
      <BrowserRouter>
        <AppRoutes />
      </BrowserRouter>
      <Toaster />
    </ThemeProvider>
  );
}
