import { useState, type FormEvent, type ReactNode } from 'react';
import styled from 'styled-components';
import { Button } from './Button';
import { Dialog, DialogActions, FormError } from './Dialog';

const Form = styled.form`
  display: flex;
  flex-direction: column;
  gap: 14px;
`;

/**
 * A dialog holding one form: its fields, the server's refusal in words, Cancel and the submit
 * button (disabled while sending). `send` answers null when it is done, and the dialog closes, or
 * the refusal to show, and the dialog stays open with what was typed; a thrown error is shown too.
 * With `stayOpen`, a done `send` leaves the dialog to its owner (a step of a longer form).
 */
export function FormDialog({
  title,
  formLabel = title,
  submitLabel,
  busyLabel = submitLabel,
  destructive,
  stayOpen,
  send,
  onClose,
  children,
}: {
  title: string;
  /** The form's accessible name, when it differs from the title. */
  formLabel?: string;
  submitLabel: string;
  busyLabel?: string;
  destructive?: boolean;
  stayOpen?: boolean;
  send: () => Promise<string | null>;
  onClose: () => void;
  children: ReactNode;
}) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const refused = await send();
      if (refused) setError(refused);
      else if (!stayOpen) onClose();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog title={title} onClose={onClose}>
      <Form onSubmit={submit} aria-label={formLabel}>
        {children}
        {error && <FormError>{error}</FormError>}
        <DialogActions>
          <Button type="button" $variant="outline" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" $variant={destructive ? 'destructive' : 'default'} disabled={busy}>
            {busy ? busyLabel : submitLabel}
          </Button>
        </DialogActions>
      </Form>
    </Dialog>
  );
}
