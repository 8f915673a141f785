import { useState, type FormEvent } from 'react';
import styled from 'styled-components';
import { Button } from '../primitives/Button';
import { FormError } from '../primitives/Dialog';
import { AlertFields, type AlertKindValue } from './AlertFields';
import type { SaveAlert } from './PriceAlertList';

// One column: the side column and a phone are too narrow for the kind's words beside the value.
const Form = styled.form`
  display: grid;
  gap: 10px;
  margin-bottom: 12px;
`;

/** A new price alert on one token: its kind and value, and Set Alert; a refusal shows under it. */
export function NewAlertForm({ tokenId, save }: { tokenId: string; save: SaveAlert }) {
  const [kind, setKind] = useState<AlertKindValue>('above');
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    const refused = await save({ tokenId, kind, value: Number(value) });
    setBusy(false);
    setError(refused);
    if (!refused) setValue('');
  };
  return (
    <Form aria-label="New price alert" onSubmit={(e) => void submit(e)}>
      <AlertFields id="new-alert" kind={kind} value={value} onKind={setKind} onValue={setValue} />
      {error && <FormError>{error}</FormError>}
      <Button type="submit" $variant="outline" disabled={busy || !value.trim()}>
        {busy ? 'Setting...' : 'Set Alert'}
      </Button>
    </Form>
  );
}
