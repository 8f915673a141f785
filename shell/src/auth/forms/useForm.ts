import { useState, type ChangeEvent, type FormEvent } from 'react';
import type { FieldErrors } from './validation';

/**
 * An auth form's state: its values, the validation messages, and `busy` while it is sent.
 * `submit` validates first and sends only a valid form; `field(name)` wires a Field to a value.
 */
export interface Form<K extends string> {
  submit: (e: FormEvent) => Promise<void>;
  field: (name: K) => { value: string; error?: string; onChange: (e: ChangeEvent<HTMLInputElement>) => void };
  busy: boolean;
}

export function useForm<K extends string>(
  initial: Record<K, string>,
  validate: (values: Record<K, string>) => FieldErrors<K>,
  send: (values: Record<K, string>) => Promise<void>,
): Form<K> {
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<FieldErrors<K>>({});
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validate(values);
    setErrors(found);
    if (Object.keys(found).length) return;
    setBusy(true);
    try {
      await send(values);
    } finally {
      setBusy(false);
    }
  };
  const field = (name: K) => ({
    value: values[name],
    error: errors[name],
    onChange: (e: ChangeEvent<HTMLInputElement>) => setValues((v) => ({ ...v, [name]: e.target.value })),
  });
  return { submit, field, busy };
}
