import { useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { codeMessage, secondStepDue, toast } from '@repex/shared-ui/platform';
import { Button } from '@repex/shared-ui/ui';
import { AuthCard } from '../auth/forms/AuthCard';
import { Links, Sent } from '../auth/forms/AuthText';
import { AskForCode, mailCode } from '../auth/forms/AskForCode';
import { CodeField } from '../auth/forms/Field';
import { useForm } from '../auth/forms/useForm';
import { validateRecoveryCode } from '../auth/forms/validation';
import { sendSignInCode, verifyMailedCode } from '../auth/data';

const fail = (title: string, description: string) => toast({ title, description, variant: 'destructive' });

function EnterCode({ email, onOtherEmail }: { email: string; onOtherEmail: () => void }) {
  const navigate = useNavigate();
  const form = useForm({ code: '' }, validateRecoveryCode, async ({ code }) => {
    try {
      const { data, error } = await verifyMailedCode(email, code, 'email');
      if (error) return fail('Sign in Failed', codeMessage(error.message));
      // With two-step verification on, the code from the app comes next; its page welcomes the user.
      if (secondStepDue(data.session)) return navigate('/auth/verify', { replace: true });
      toast({ title: 'Signed In Successfully!', description: 'Welcome back!' });
      navigate('/', { replace: true });
    } catch (err) {
      fail('Sign in Failed', err instanceof Error ? err.message : 'Something went wrong');
    }
  });
  return (
    <form onSubmit={form.submit} noValidate aria-label="Sign In With Code">
      <Sent>
        Enter the code we emailed to <strong>{email}</strong>.
      </Sent>
      <CodeField id="signin-code" label="Code" {...form.field('code')} />
      <Button type="submit" $block disabled={form.busy}>
        {form.busy ? 'Signing In...' : 'Sign In'}
      </Button>
      <Links>
        <button type="button" onClick={() => void mailCode(sendSignInCode, email)}>
          Send a new code
        </button>
        <button type="button" onClick={onOtherEmail}>
          Use another email
        </button>
      </Links>
    </form>
  );
}

/**
 * /auth/code: signing in with a code mailed to the account's address, without the password. It is
 * the way in when strangers' wrong passwords have locked the account at a new address: only the
 * owner's mailbox has the code, so the lockout does not hold it back.
 */
export function SignInWithCodePage() {
  const typed = (useLocation().state as { email?: string } | null)?.email ?? '';
  const [email, setEmail] = useState<string | null>(null);
  return (
    <AuthCard
      title="Sign In With a Code"
      subtitle={email ? 'Check your email for the code.' : "We'll email you a code that signs you in."}
    >
      {email ? (
        <EnterCode email={email} onOtherEmail={() => setEmail(null)} />
      ) : (
        <AskForCode
          name="Send Sign-in Code"
          idPrefix="code"
          send={sendSignInCode}
          initialEmail={typed}
          onSent={setEmail}
        />
      )}
      <Links>
        <Link to="/auth">Back to sign in</Link>
      </Links>
    </AuthCard>
  );
}
