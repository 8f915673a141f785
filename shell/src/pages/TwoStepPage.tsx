import { useState } from 'react';
import { Navigate, useLocation, useNavigate } from 'react-router';
import styled from 'styled-components';
import { authenticatorApps, enterAppCode, secondStepDue, toast, useAppStore } from '@repex/shared-ui/platform';
import { Button, CenteredStatus } from '@repex/shared-ui/ui';
import { AuthCard } from '../auth/forms/AuthCard';
import { AppChoiceField, CodeField } from '../auth/forms/Field';
import { useForm } from '../auth/forms/useForm';
import { appCodeError } from '../auth/forms/validation';
import { signOutHere } from '../auth/data';
import { HOME } from '../auth/guards';

const Other = styled.button`
  display: block;
  margin: 16px auto 0;
  border: 0;
  padding: 0;
  background: none;
  font: inherit;
  font-size: 14px;
  color: ${({ theme }) => theme.colors.accent};
  cursor: pointer;
`;

const fail = (description: string) => toast({ title: 'Verification Failed', description, variant: 'destructive' });

/**
 * /auth/verify: the second step of signing in, for a user who turned on two-step verification.
 * The password has opened a session that may do nothing yet (the database refuses it); the code
 * from the authenticator app (or the backup app, chosen) raises it. The guards send such a session
 * here from every page.
 */
export function TwoStepPage() {
  const { authLoading, session } = useAppStore();
  const navigate = useNavigate();
  const from = (useLocation().state as { from?: { pathname?: string } } | null)?.from?.pathname;
  const apps = authenticatorApps(session?.user.factors);
  const [chosen, setChosen] = useState<string>();
  const app = chosen ?? apps[0]?.id;
  const form = useForm(
    { code: '' },
    (v) => {
      const code = appCodeError(v.code);
      return code ? { code } : {};
    },
    async ({ code }) => {
      try {
        if (!app) return fail('No authenticator app is set up for this account.');
        const refused = await enterAppCode(app, code);
        if (refused) return fail(refused);
        const admin = from?.startsWith('/nra/login/');
        toast(
          admin
            ? { title: 'Admin Sign In Successful!', description: 'Welcome to the Admin Dashboard.' }
            : { title: 'Signed In Successfully!', description: 'Welcome back!' },
        );
        navigate(from ?? HOME, { replace: true });
      } catch (err) {
        fail(err instanceof Error ? err.message : 'Something went wrong');
      }
    },
  );

  if (authLoading) return <CenteredStatus>Loading...</CenteredStatus>;
  if (!session) return <Navigate to="/auth" replace />;
  if (!secondStepDue(session) && !form.busy) return <Navigate to={from ?? HOME} replace />;
  return (
    <AuthCard title="Two-Step Verification" subtitle="Enter the code your authenticator app shows for RepX.">
      <form onSubmit={form.submit} noValidate aria-label="Two-Step Verification">
        <AppChoiceField id="two-step-app" apps={apps} value={app} onChange={setChosen} />
        <CodeField id="two-step-code" label="Code" {...form.field('code')} />
        <Button type="submit" $block disabled={form.busy}>
          {form.busy ? 'Verifying...' : 'Verify'}
        </Button>
      </form>
      <Other type="button" onClick={() => void signOutHere()}>
        Sign in as someone else
      </Other>
    </AuthCard>
  );
}
