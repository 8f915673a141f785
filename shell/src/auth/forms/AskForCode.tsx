import { toast } from '@repex/shared-ui/platform';
import { Button } from '@repex/shared-ui/ui';
import { Field } from './Field';
import { useForm } from './useForm';
import { validateRecoveryEmail } from './validation';

type Sender = (email: string) => Promise<{ error: { message: string } | null }>;

/**
 * Mails a code with `send` and says so in the same words whether or not the address has an
 * account (the auth server answers alike); true if it went.
 */
export async function mailCode(send: Sender, email: string): Promise<boolean> {
  const fail = (description: string) => toast({ title: 'Could Not Send Code', description, variant: 'destructive' });
  try {
    const { error } = await send(email);
    if (error) {
      fail(error.message);
      return false;
    }
    toast({ title: 'Check Your Email', description: `If ${email} has an account, a code is on its way.` });
    return true;
  } catch (err) {
    fail(err instanceof Error ? err.message : 'Something went wrong');
    return false;
  }
}

/** The first step of a mailed code (a password reset, a sign-in by code): the address to mail it to. */
export function AskForCode({
  name,
  idPrefix,
  send,
  initialEmail,
  onSent,
}: {
  /** The form's accessible name. */
  name: string;
  /** Its email field is `${idPrefix}-email`. */
  idPrefix: string;
  send: Sender;
  initialEmail: string;
  onSent: (email: string) => void;
}) {
  const form = useForm({ email: initialEmail }, validateRecoveryEmail, async ({ email }) => {
    if (await mailCode(send, email.trim())) onSent(email.trim());
  });
  return (
    <form onSubmit={form.submit} noValidate aria-label={name}>
      <Field id={`${idPrefix}-email`} label="Email" type="email" autoComplete="email" {...form.field('email')} />
      <Button type="submit" $block disabled={form.busy}>
        {form.busy ? 'Sending...' : 'Send Code'}
      </Button>
    </form>
  );
}
