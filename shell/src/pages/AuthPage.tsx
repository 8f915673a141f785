import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import styled from 'styled-components';
import { secondStepDue, toast } from '@repex/shared-ui/platform';
import { Button, Tabs, TabsContent, TabsList, TabsTrigger } from '@repex/shared-ui/ui';
import { AuthCard } from '../auth/forms/AuthCard';
import { CredentialsForm } from '../auth/forms/CredentialsForm';
import { Field } from '../auth/forms/Field';
import { useForm } from '../auth/forms/useForm';
import { validateSignIn, validateSignUp } from '../auth/forms/validation';
import { signIn, signUp } from '../auth/data';

const Unconfirmed = styled.p`
  margin: 16px 0 0;
  font-size: 14px;
  a {
    color: ${({ theme }) => theme.colors.accent};
  }
`;

function failToast(title: string, message?: string) {
  toast({ title, description: message || 'Something went wrong', variant: 'destructive' });
}

function SignInForm() {
  const navigate = useNavigate();
  // An account whose sign-up code was never entered: where to enter it.
  const [unconfirmed, setUnconfirmed] = useState<string>();
  // An account locked by wrong passwords: the owner's way in by a mailed code.
  const [locked, setLocked] = useState<string>();
  const form = useForm({ email: '', password: '' }, validateSignIn, async (values) => {
    try {
      const email = values.email.trim();
      const { data, error } = await signIn(email, values.password);
      setUnconfirmed(error?.code === 'email_not_confirmed' ? email : undefined);
      setLocked(error?.code === 'over_request_rate_limit' ? email : undefined);
      if (error) return failToast('Sign in Failed', error.message);
      // With two-step verification on, the code from the app comes first; its page welcomes the user.
      if (secondStepDue(data.session)) return navigate('/auth/verify', { replace: true });
      toast({ title: 'Signed In Successfully!', description: 'Welcome back!' });
      navigate('/');
    } catch (err) {
      failToast('Sign in Failed', err instanceof Error ? err.message : undefined);
    }
  });
  return (
    <>
      <CredentialsForm
        name="Sign In"
        idPrefix="signin"
        emailAutoComplete="email"
        busyText="Signing In..."
        form={form}
        forgotPassword
      />
      {locked && (
        <Unconfirmed role="status">
          Is this your account?{' '}
          <Link to="/auth/code" state={{ email: locked }}>
            Sign in with a code we email you
          </Link>
        </Unconfirmed>
      )}
      {unconfirmed && (
        <Unconfirmed role="status">
          Your email is not confirmed yet.{' '}
          <Link to="/auth/confirm" state={{ email: unconfirmed }}>
            Enter the code we emailed you
          </Link>
        </Unconfirmed>
      )}
    </>
  );
}

function SignUpForm({ passwordMinLength }: { passwordMinLength: number }) {
  const navigate = useNavigate();
  const validate = (values: { username: string; email: string; password: string }) =>
    validateSignUp(values, passwordMinLength);
  const form = useForm({ username: '', email: '', password: '' }, validate, async (values) => {
    try {
      const username = values.username.trim();
      const { data, error } = await signUp(values.email.trim(), values.password, username);
      // GoTrue's words for an address taken, where confirmations are off, said as a person would.
      if (error?.code === 'user_already_exists')
        return failToast(
          'Sign up Failed',
          'An account with this email already exists. Sign in, or reset your password.',
        );
      if (error) return failToast('Sign up Failed', error.message);
      // A project with confirmations off ([auth.email] enable_confirmations) signs the account in at once.
      if (data.session) {
        toast({ title: 'Sign Up Successful!', description: 'Welcome to RepX.' });
        return navigate('/');
      }
      toast({ title: 'Sign Up Successful!', description: 'Please check your email to verify your account.' });
      // The account signs in with the code mailed to it; the confirmation page leads on to /.
      navigate('/auth/confirm', { state: { email: values.email.trim() } });
    } catch (err) {
      failToast('Sign up Failed', err instanceof Error ? err.message : undefined);
    }
  });
  return (
    <form onSubmit={form.submit} noValidate aria-label="Sign Up">
      <Field id="signup-username" label="Username" autoComplete="username" {...form.field('username')} />
      <Field id="signup-email" label="Email" type="email" autoComplete="email" {...form.field('email')} />
      <Field
        id="signup-password"
        label="Password"
        type="password"
        autoComplete="new-password"
        minLength={passwordMinLength}
        {...form.field('password')}
      />
      <Button type="submit" $block disabled={form.busy}>
        {form.busy ? 'Creating Account...' : 'Create Account'}
      </Button>
    </form>
  );
}

/** Spec section 2, Auth screen: Sign In and Sign Up tabs. */
export function AuthPage({ passwordMinLength }: { passwordMinLength: number }) {
  return (
    <AuthCard title="Welcome to RepX" subtitle="Sign in to your account or create a new one.">
      <Tabs defaultValue="signin">
        <TabsList style={{ display: 'flex' }}>
          <TabsTrigger value="signin" style={{ flex: 1 }}>
            Sign In
          </TabsTrigger>
          <TabsTrigger value="signup" style={{ flex: 1 }}>
            Sign Up
          </TabsTrigger>
        </TabsList>
        <TabsContent value="signin">
          <SignInForm />
        </TabsContent>
        <TabsContent value="signup">
          <SignUpForm passwordMinLength={passwordMinLength} />
        </TabsContent>
      </Tabs>
    </AuthCard>
  );
}
