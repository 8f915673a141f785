import { Link } from 'react-router';
import styled from 'styled-components';
import { Button } from '@repex/shared-ui/ui';
import { Field } from './Field';
import type { Form } from './useForm';

const Forgot = styled(Link)`
  display: block;
  width: fit-content;
  margin: -6px 0 14px auto;
  font-size: 14px;
  color: ${({ theme }) => theme.colors.accent};
`;

/** An email-and-password sign-in form: the user's (/auth) and the admin's (/auth/nra). */
export function CredentialsForm({
  name,
  idPrefix,
  emailAutoComplete,
  busyText,
  form,
  forgotPassword = false,
}: {
  /** The form's accessible name. */
  name: string;
  /** Its inputs are `${idPrefix}-email` and `${idPrefix}-password`. */
  idPrefix: string;
  emailAutoComplete: 'email' | 'username';
  /** The button's text while the form is sent. */
  busyText: string;
  form: Form<'email' | 'password'>;
  /** A link to /auth/reset, carrying the email typed so far. */
  forgotPassword?: boolean;
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
      {forgotPassword && (
        <Forgot to="/auth/reset" state={{ email: form.field('email').value.trim() }}>
          Forgot password?
        </Forgot>
      )}
      <Button type="submit" $block disabled={form.busy}>
        {form.busy ? busyText : 'Sign In'}
      </Button>
    </form>
  );
}
