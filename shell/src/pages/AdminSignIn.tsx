import { useState } from 'react';
import { Navigate, useLocation } from 'react-router';
import { secondStepDue, toast, useAppStore } from '@repex/shared-ui/platform';
import { CenteredStatus } from '@repex/shared-ui/ui';
import { AuthCard } from '../auth/forms/AuthCard';
import { CredentialsForm } from '../auth/forms/CredentialsForm';
import { useForm } from '../auth/forms/useForm';
import { validateSignIn } from '../auth/forms/validation';
import { adminRefusal, isAdmin, signIn, signOutHere } from '../auth/data';

const fail = (title: string, description: string) => toast({ title, description, variant: 'destructive' });

/**
 * /auth/nra, spec sections 2, 6 and 8. Signs in, reads the role from `profiles`, and signs a
 * non-admin straight out again. While that runs the page must not redirect, although a session
 * briefly exists, hence `busy`. The way on is rendered rather than navigated to: a navigation
 * is a transition, and the render that ends `busy` would otherwise send the admin to /dashboard first.
 */
export function AdminSignIn() {
  const { authLoading, session } = useAppStore();
  const [next, setNext] = useState<{ to: string; from?: string } | null>(null);
  const from = (useLocation().state as { from?: { pathname?: string } } | null)?.from?.pathname;
  const form = useForm({ email: '', password: '' }, validateSignIn, async (values) => {
    try {
      const { data, error } = await signIn(values.email.trim(), values.password);
      if (error || !data.user) return fail('Sign in Failed', error?.message || 'Invalid credentials.');
      let admin: boolean;
      try {
        admin = await isAdmin(data.user.id);
      } catch {
        await signOutHere();
        return fail('Authentication Error', 'Could not verify admin status. Please contact support.');
      }
      if (!admin) {
        await signOutHere();
        return fail('Access Denied', 'You do not have administrative privileges.');
      }
      const to = from?.startsWith('/nra/login/') ? from : '/nra/login/profile';
      // With two-step verification on, the code from the app comes first; its page welcomes the admin.
      if (secondStepDue(data.session)) return setNext({ to: '/auth/verify', from: to });
      // Where the exchange asks admins for an app and this one has none, they stay signed in, as a
      // user, and are shown where to turn it on.
      const refusal = await adminRefusal();
      if (refusal) {
        fail('Two-Step Verification Required', refusal);
        return setNext({ to: '/profile' });
      }
      toast({ title: 'Admin Sign In Successful!', description: 'Welcome to the Admin Dashboard.' });
      setNext({ to });
    } catch {
      await signOutHere().catch(() => undefined);
      fail('An Unexpected Error Occurred', 'Could not complete the sign-in process.');
    }
  });

  if (next) return <Navigate to={next.to} replace state={next.from ? { from: { pathname: next.from } } : null} />;
  if (authLoading) return <CenteredStatus>Loading...</CenteredStatus>;
  if (session && !form.busy)
    return secondStepDue(session) ? (
      <Navigate to="/auth/verify" replace state={{ from: { pathname: '/nra/login/profile' } }} />
    ) : (
      <Navigate to="/dashboard" replace />
    );

  return (
    <AuthCard title="Admin Panel" subtitle="Secure Sign In">
      <CredentialsForm
        name="Admin Sign In"
        idPrefix="admin"
        emailAutoComplete="username"
        busyText="Verifying..."
        form={form}
      />
    </AuthCard>
  );
}
