import { useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { codeMessage, toast } from '@repex/shared-ui/platform';
import { Button } from '@repex/shared-ui/ui';
import { AuthCard } from '../auth/forms/AuthCard';
import { Links, Sent } from '../auth/forms/AuthText';
import { CodeField, Field } from '../auth/forms/Field';
import { useForm } from '../auth/forms/useForm';
import { validateRecoveryCode, validateRecoveryEmail } from '../auth/forms/validation';
import { resendSignUpCode, verifyMailedCode } from '../auth/data';

const fail = (title: string, description: string) => toast({ title, description, variant: 'destructive' });

async function sendNewCode(email: string): Promise<void> {
  const wrong = validateRecoveryEmail({ email }).email;
  if (wrong) return fail('Could Not Send Code', wrong);
  try {
    const { error } = await resendSignUpCode(email);
    if (error) return fail('Could Not Send Code', error.message);
    toast({ title: 'Check Your Email', description: `If ${email} is waiting for a code, a new one is on its way.` });
  } catch (err) {
    fail('Could Not Send Code', err instanceof Error ? err.message : 'Something went wrong');
  }
}

/**
 * /auth/confirm: a new account signs in with the code mailed to its address at sign-up (the auth
 * server keeps it from signing in until then). Reached from Sign Up, with the address, and from a
 * sign-in refused as 'Email not confirmed'; a reload keeps the address (history state).
 */
export function ConfirmEmailPage() {
  const navigate = useNavigate();
  const typed = (useLocation().state as { email?: string } | null)?.email ?? '';
  const [known, setKnown] = useState(typed);
  const validate = (v: { email: string; code: string }) => ({
    ...(known ? {} : validateRecoveryEmail(v)),
    ...validateRecoveryCode(v),
  });
  const form = useForm({ email: typed, code: '' }, validate, async (v) => {
    const email = known || v.email.trim();
    try {
      const { error } = await verifyMailedCode(email, v.code, 'signup');
      if (error) return fail('Confirmation Failed', codeMessage(error.message));
      toast({ title: 'Email Confirmed', description: 'Welcome to RepX! Your account is ready.' });
      navigate('/', { replace: true });
    } catch (err) {
      fail('Confirmation Failed', err instanceof Error ? err.message : 'Something went wrong');
    }
  });
  return (
    <AuthCard title="Confirm Your Email" subtitle="Check your email for the code.">
      <form onSubmit={form.submit} noValidate aria-label="Confirm Email">
        {known ? (
          <Sent>
            Enter the code we emailed to <strong>{known}</strong> to finish creating your account.
          </Sent>
        ) : (
          <>
            <Sent>Enter your email and the code we sent to it when you signed up.</Sent>
            <Field id="confirm-email" label="Email" type="email" autoComplete="email" {...form.field('email')} />
          </>
        )}
        <CodeField id="confirm-code" label="Code" autoFocus={!!known} {...form.field('code')} />
        <Button type="submit" $block disabled={form.busy}>
          {form.busy ? 'Confirming...' : 'Confirm Email'}
        </Button>
        <Links>
          <button type="button" onClick={() => void sendNewCode(known || form.field('email').value.trim())}>
            Send a new code
          </button>
          {known && (
            <button type="button" onClick={() => setKnown('')}>
              Use another email
            </button>
          )}
        </Links>
      </form>
      <Links>
        <Link to="/auth">Back to sign in</Link>
      </Links>
    </AuthCard>
  );
}
