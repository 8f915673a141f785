import type { ComponentProps, InputHTMLAttributes } from 'react';
import styled from 'styled-components';
import { AppChoice, Input, Label } from '@repex/shared-ui/ui';

const Wrap = styled.div`
  margin-bottom: 14px;
`;
const FieldError = styled.p`
  margin: 6px 0 0;
  color: ${({ theme }) => theme.colors.down};
  font-size: 13px;
`;

/** A labelled input with its validation message, linked for screen readers. */
export function Field({
  id,
  label,
  error,
  ...input
}: { id: string; label: string; error?: string } & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <Wrap>
      <Label htmlFor={id}>{label}</Label>
      <Input id={id} name={id} aria-invalid={!!error} aria-describedby={error ? `${id}-error` : undefined} {...input} />
      {error && <FieldError id={`${id}-error`}>{error}</FieldError>}
    </Wrap>
  );
}

/** A field for a code the user types from a mail or an app: digits, filled in by the phone's keyboard, focused. */
export function CodeField(
  props: { id: string; label: string; error?: string } & InputHTMLAttributes<HTMLInputElement>,
) {
  return <Field inputMode="numeric" autoComplete="one-time-code" autoFocus {...props} />;
}

/** Which authenticator app the code comes from (shared-ui's choice), spaced as these fields are; nothing for one app. */
export function AppChoiceField(props: ComponentProps<typeof AppChoice>) {
  return props.apps.length > 1 ? (
    <Wrap>
      <AppChoice {...props} />
    </Wrap>
  ) : null;
}
