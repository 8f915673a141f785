import { type ReactNode } from 'react';
import { toast } from '@repex/shared-ui/platform';
import { Field, Textarea, FormDialog } from '@repex/shared-ui/ui';
import type { AdminUser } from '../types';

/** One admin action in a dialog: the form, the server's refusal shown in place, a toast on success. */
export function ActionDialog({
  title,
  submitLabel,
  destructive,
  onClose,
  onDone,
  run,
  success,
  children,
}: {
  title: string;
  submitLabel: string;
  destructive?: boolean;
  onClose: () => void;
  onDone: () => void;
  run: () => Promise<unknown>;
  success: { title: string; description: string };
  children: ReactNode;
}) {
  const send = async () => {
    await run();
    toast(success);
    onDone();
    return null;
  };
  return (
    <FormDialog title={title} submitLabel={submitLabel} destructive={destructive} send={send} onClose={onClose}>
      {children}
    </FormDialog>
  );
}

export interface Props {
  user: AdminUser;
  onClose: () => void;
  onDone: () => void;
}

export function ReasonField({
  id,
  label,
  value,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (v: string) => void;
}) {
  return (
    <Field label={label} htmlFor={id} hint="3 to 500 characters.">
      <Textarea id={id} value={value} onChange={(e) => onChange(e.target.value)} maxLength={500} required />
    </Field>
  );
}
