import { Button } from '@repex/shared-ui/ui';
import { Field } from './Field';
import type { Form } from './useForm';

/** An email-and-password sign-in form: the user's (/auth) and the admin's (/auth/nra). */
export function CredentialsForm({
  name,
  idPrefix,
  emailAutoComplete,
  busyText,
  form,
}: {
  /** The form's accessible name. */
  name: string;
  /** Its inputs are `${idPrefix}-email` and `${idPrefix}-password`. */
  idPrefix: string;
  emailAutoComplete: 'email' | 'username';
  /** The button's text while the form is sent. */
  busyText: string;
  form: Form<'email' | 'password'>;
}) {
  return (
    <form onSubmit={form.submit} noValidate aria-label={name}>
      <Field
        id={`${idPrefix}-email`}
        label="Email"
        type="email"
        autoComplete={emailAutoComplete}
        {...form.field('email')}
      />
      <Field
        id={`${idPrefix}-password`}
        label="Password"
        type="password"
        autoComplete="current-password"
        {...form.field('password')}
      />
      <Button type="submit" $block disabled={form.busy}>
        {form.busy ? busyText : 'Sign In'}
      </Button>
    </form>
  );
}
