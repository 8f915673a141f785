import { useState, type FormEvent } from 'react';
import styled from 'styled-components';
import { Button } from '../primitives/Button';
import { FormError } from '../primitives/Dialog';
import { Textarea } from '../primitives/Input';

const Form = styled.form<{ $compact?: boolean }>`
  display: flex;
  flex-direction: column;
  gap: 8px;
  align-items: flex-end;
  textarea {
    width: 100%;
    min-height: ${({ $compact }) => ($compact ? '56px' : '88px')};
  }
`;

/** Writes a post or a reply: the database's refusal shows under it, and the text stays. */
export function Composer({
  label,
  placeholder,
  submitLabel,
  compact,
  send,
  onDone,
}: {
  label: string;
  placeholder: string;
  submitLabel: string;
  compact?: boolean;
  send: (body: string) => Promise<string | null>;
  onDone?: () => void;
}) {
  const [body, setBody] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    const refused = await send(body).catch((err: Error) => err.message);
    setBusy(false);
    setError(refused);
    if (!refused) {
      setBody('');
      onDone?.();
    }
  };
  return (
    <Form aria-label={label} onSubmit={submit} $compact={compact}>
      <Textarea aria-label={label} placeholder={placeholder} value={body} onChange={(e) => setBody(e.target.value)} />
      {error && <FormError style={{ alignSelf: 'stretch' }}>{error}</FormError>}
      <Button type="submit" $size="sm" disabled={busy || !body.trim()}>
        {busy ? 'Posting…' : submitLabel}
      </Button>
    </Form>
  );
}
