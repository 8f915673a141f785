import { useState, type FormEvent } from 'react';
import { Navigate, useLocation, useNavigate } from 'react-router-dom';
import { Button, CenteredStatus, supabase, toast, useAppStore } from '@repex/shared-ui';
import { AuthCard } from '../auth/forms/AuthCard';
import { Field } from '../auth/forms/Field';
import { validateSignIn, type FieldErrors } from '../auth/forms/validation';
import { isAdmin } from '../auth/role';

const fail = (title: string, description: string) => toast({ title, description, variant: 'destructive' });

/**
 * /auth/nra, spec sections 2, 6 and 8. Signs in, reads the role from `profiles`, and signs a
 * non-admin straight out again. While that runs the page must not redirect, although a session
 * briefly exists, hence `busy`.
 */
export function AdminSignIn() {
  const { authLoading, session } = useAppStore();
  const navigate = useNavigate();
  const from = (useLocation().state as { from?: { pathname?: string } } | null)?.from?.pathname;
  const [values, setValues] = useState({ email: '', password: '' });
  const [errors, setErrors] = useState<FieldErrors<'email' | 'password'>>({});
  const [busy, setBusy] = useState(false);

  if (authLoading) return <CenteredStatus>Loading...</CenteredStatus>;
  if (session && !busy) return <Navigate to="/dashboard" replace />;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validateSignIn(values);
    setErrors(found);
    if (Object.keys(found).length) return;
    setBusy(true);
    const auth = supabase().auth;
    try {
      const { data, error } = await auth.signInWithPassword({ email: values.email.trim(), password: values.password });
      if (error || !data.user) {
        fail('Sign in Failed', error?.message || 'Invalid credentials.');
        return setBusy(false);
      }
      let admin: boolean;
      try {
        admin = await isAdmin(data.user.id);
      } catch {
        await auth.signOut();
        fail('Authentication Error', 'Could not verify admin status. Please contact support.');
        return setBusy(false);
      }
      if (!admin) {
        await auth.signOut();
        fail('Access Denied', 'You do not have administrative privileges.');
        return setBusy(false);
      }
      toast({ title: 'Admin Sign In Successful!', description: 'Welcome to the Admin Dashboard.' });
      navigate(from?.startsWith('/nra/login/') ? from : '/nra/login/profile', { replace: true });
    } catch {
      await auth.signOut().catch(() => undefined);
      fail('An Unexpected Error Occurred', 'Could not complete the sign-in process.');
      setBusy(false);
    }
  };

  return (
    <AuthCard title="Admin Panel" subtitle="Secure Sign In">
      <form onSubmit={submit} noValidate aria-label="Admin Sign In">
        <Field
          id="admin-email"
          label="Email"
          type="email"
          autoComplete="username"
          value={values.email}
          error={errors.email}
          onChange={(e) => setValues({ ...values, email: e.target.value })}
        />
        <Field
          id="admin-password"
          label="Password"
          type="password"
          autoComplete="current-password"
          value={values.password}
          error={errors.password}
          onChange={(e) => setValues({ ...values, password: e.target.value })}
        />
        <Button type="submit" $block disabled={busy}>
          {busy ? 'Verifying...' : 'Sign In'}
        </Button>
      </form>
    </AuthCard>
  );
}
