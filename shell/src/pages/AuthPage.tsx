import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { Button, Tabs, TabsContent, TabsList, TabsTrigger, supabase, toast } from '@repex/shared-ui';
import { AuthCard } from '../auth/forms/AuthCard';
import { Field } from '../auth/forms/Field';
import { PASSWORD_MIN_LENGTH, validateSignIn, validateSignUp, type FieldErrors } from '../auth/forms/validation';

function failToast(title: string, message?: string) {
  toast({ title, description: message || 'Something went wrong', variant: 'destructive' });
}

function SignInForm() {
  const navigate = useNavigate();
  const [values, setValues] = useState({ email: '', password: '' });
  const [errors, setErrors] = useState<FieldErrors<'email' | 'password'>>({});
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validateSignIn(values);
    setErrors(found);
    if (Object.keys(found).length) return;
    setBusy(true);
    try {
      const { error } = await supabase().auth.signInWithPassword({
        email: values.email.trim(),
        password: values.password,
      });
      if (error) return failToast('Sign in Failed', error.message);
      toast({ title: 'Signed In Successfully!', description: 'Welcome back!' });
      navigate('/');
    } catch (err) {
      failToast('Sign in Failed', err instanceof Error ? err.message : undefined);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} noValidate aria-label="Sign In">
      <Field
        id="signin-email"
        label="Email"
        type="email"
        autoComplete="email"
        value={values.email}
        error={errors.email}
        onChange={(e) => setValues({ ...values, email: e.target.value })}
      />
      <Field
        id="signin-password"
        label="Password"
        type="password"
        autoComplete="current-password"
        value={values.password}
        error={errors.password}
        onChange={(e) => setValues({ ...values, password: e.target.value })}
      />
      <Button type="submit" $block disabled={busy}>
        {busy ? 'Signing In...' : 'Sign In'}
      </Button>
    </form>
  );
}

function SignUpForm() {
  const navigate = useNavigate();
  const [values, setValues] = useState({ username: '', email: '', password: '' });
  const [errors, setErrors] = useState<FieldErrors<'username' | 'email' | 'password'>>({});
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validateSignUp(values);
    setErrors(found);
    if (Object.keys(found).length) return;
    setBusy(true);
    try {
      const username = values.username.trim();
      const { error } = await supabase().auth.signUp({
        email: values.email.trim(),
        password: values.password,
        options: { data: { username, full_name: username } },
      });
      if (error) return failToast('Sign up Failed', error.message);
      toast({ title: 'Sign Up Successful!', description: 'Please check your email to verify your account.' });
      navigate('/');
    } catch (err) {
      failToast('Sign up Failed', err instanceof Error ? err.message : undefined);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} noValidate aria-label="Sign Up">
      <Field
        id="signup-username"
        label="Username"
        autoComplete="username"
        value={values.username}
        error={errors.username}
        onChange={(e) => setValues({ ...values, username: e.target.value })}
      />
      <Field
        id="signup-email"
        label="Email"
        type="email"
        autoComplete="email"
        value={values.email}
        error={errors.email}
        onChange={(e) => setValues({ ...values, email: e.target.value })}
      />
      <Field
        id="signup-password"
        label="Password"
        type="password"
        autoComplete="new-password"
        minLength={PASSWORD_MIN_LENGTH}
        value={values.password}
        error={errors.password}
        onChange={(e) => setValues({ ...values, password: e.target.value })}
      />
      <Button type="submit" $block disabled={busy}>
        {busy ? 'Creating Account...' : 'Create Account'}
      </Button>
    </form>
  );
}

/** Spec section 2, Auth screen: Sign In and Sign Up tabs. */
export function AuthPage() {
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
          <SignUpForm />
        </TabsContent>
      </Tabs>
    </AuthCard>
  );
}
