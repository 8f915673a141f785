import { useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import {
  authenticatorApps,
  codeMessage,
  enterAppCode,
  secondStepDue,
  toast,
  type AuthenticatorApp,
} from '@repex/shared-ui/platform';
import { Button } from '@repex/shared-ui/ui';
import { AuthCard } from '../auth/forms/AuthCard';
import { Links, Sent } from '../auth/forms/AuthText';
import { AskForCode, mailCode } from '../auth/forms/AskForCode';
import { AppChoiceField, CodeField, Field } from '../auth/forms/Field';
import { useForm } from '../auth/forms/useForm';
import { appCodeError, validateRecoveryCode, validateNewPassword } from '../auth/forms/validation';
import { sendRecoveryCode, setPassword, verifyMailedCode } from '../auth/data';

const fail = (title: string, description: string) => toast({ title, description, variant: 'destructive' });

/**
 * The code signs the user in (a recovery session); the new password is then set in that session.
 * If setting it fails (the same password as before, say), the session stays and only the password
 * is asked for again. With two-step verification on, the mail alone is not enough: the code from
 * the authenticator app (or the backup app, chosen) is asked for too, before the password is set.
 */
function ChooseNewPassword({
  email,
  passwordMinLength,
  verified,
  onVerified,
  onOtherEmail,
}: {
  email: string;
  passwordMinLength: number;
  verified: boolean;
  onVerified: () => void;
  onOtherEmail: () => void;
}) {
  const navigate = useNavigate();
  // The user's apps while their code is due (none once it is given).
  const [apps, setApps] = useState<AuthenticatorApp[]>([]);
  const [app, setApp] = useState<string>();
  const appCodeDue = apps.length > 0;
  const validate = (v: { code: string; appCode: string; password: string }) => ({
    ...(verified ? {} : validateRecoveryCode(v)),
    ...(appCodeDue && appCodeError(v.appCode) ? { appCode: appCodeError(v.appCode) } : {}),
    ...validateNewPassword(v, passwordMinLength),
  });
  const form = useForm({ code: '', appCode: '', password: '' }, validate, async ({ code, appCode, password }) => {
    try {
      if (!verified) {
        const { data, error } = await verifyMailedCode(email, code, 'recovery');
        if (error) return fail('Reset Failed', codeMessage(error.message));
        onVerified();
        if (secondStepDue(data.session)) {
          const on = authenticatorApps(data.session?.user.factors);
          setApps(on);
          setApp(on[0]?.id);
          return toast({
            title: 'One More Code',
            description: 'Two-step verification is on: enter the code from your authenticator app too.',
          });
        }
      }
      if (appCodeDue && app) {
        const refused = await enterAppCode(app, appCode);
        if (refused) return fail('Reset Failed', refused);
        setApps([]);
      }
      const { error } = await setPassword(password);
      if (error) return fail('Reset Failed', error.message);
      toast({ title: 'Password Updated', description: 'You are signed in with your new password.' });
      navigate('/', { replace: true });
    } catch (err) {
      fail('Reset Failed', err instanceof Error ? err.message : 'Something went wrong');
    }
  });
  return (
    <form onSubmit={form.submit} noValidate aria-label="Reset Password">
      <Sent>
        {appCodeDue ? (
          <>
            Code accepted for <strong>{email}</strong>. Two-step verification is on: enter the code from your
            authenticator app, and choose your new password.
          </>
        ) : verified ? (
          <>
            Code accepted for <strong>{email}</strong>: you are signed in. Choose your new password.
          </>
        ) : (
          <>
            Enter the code we emailed to <strong>{email}</strong> and choose a new password.
          </>
        )}
      </Sent>
      {!verified && (
        // The step replaced the button that had focus: the code is what comes next.
        <CodeField id="reset-code" label="Code" {...form.field('code')} />
      )}
      <AppChoiceField id="reset-app" apps={apps} value={app} onChange={setApp} />
      {appCodeDue && (
        <CodeField id="reset-app-code" label="Code from your authenticator app" {...form.field('appCode')} />
      )}
      <Field
        id="reset-password"
        label="New Password"
        type="password"
        autoComplete="new-password"
        minLength={passwordMinLength}
        {...form.field('password')}
      />
      <Button type="submit" $block disabled={form.busy}>
        {form.busy ? 'Resetting...' : 'Reset Password'}
      </Button>
      {!verified && (
        <Links>
          <button type="button" onClick={() => void mailCode(sendRecoveryCode, email)}>
            Send a new code
          </button>
          <button type="button" onClick={onOtherEmail}>
            Use another email
          </button>
        </Links>
      )}
    </form>
  );
}

/** /auth/reset: a forgotten password, replaced by way of a code mailed to the account's address. */
export function ResetPasswordPage({ passwordMinLength }: { passwordMinLength: number }) {
  const typed = (useLocation().state as { email?: string } | null)?.email ?? '';
  const [email, setEmail] = useState<string | null>(null);
  const [verified, setVerified] = useState(false);
  const subtitle = verified
    ? 'One step left.'
    : email
      ? 'Check your email for the code.'
      : "We'll email you a code to choose a new password.";
  return (
    <AuthCard title="Reset Your Password" subtitle={subtitle}>
      {email ? (
        <ChooseNewPassword
          email={email}
          passwordMinLength={passwordMinLength}
          verified={verified}
          onVerified={() => setVerified(true)}
          onOtherEmail={() => setEmail(null)}
        />
      ) : (
        <AskForCode
          name="Send Reset Code"
          idPrefix="reset"
          send={sendRecoveryCode}
          initialEmail={typed}
          onSent={setEmail}
        />
      )}
      <Links>
        {/* Once the code is accepted the user is signed in, and sign-in is behind them. */}
        {verified ? <Link to="/">Skip for now</Link> : <Link to="/auth">Back to sign in</Link>}
      </Links>
    </AuthCard>
  );
}
