import type { RefObject } from 'react';
import { Input, Label } from '@repex/shared-ui/ui';
import { Field, FieldError, Warning } from './OrderPanel.styles';
import type { OrderForm } from './useOrderForm';

/** A limit's price: a limit order's own, or a stop-limit's, beside its trigger; with a warning when far from the market. */
export function LimitField({ form, input }: { form: OrderForm; input: RefObject<HTMLInputElement | null> }) {
  return (
    <Field>
      <Label htmlFor="order-limit">{form.type === 'stop' ? 'Then at a Limit Price (USD)' : 'Limit Price (USD)'}</Label>
      <Input
        id="order-limit"
        ref={input}
        type="number"
        step={0.01}
        min={0.01}
        value={form.limitText}
        onChange={(e) => form.setLimitText(e.target.value)}
        aria-invalid={!!form.limitError}
      />
      {form.limitError && <FieldError role="alert">{form.limitError}</FieldError>}
      {form.warning && (
        <Warning role="status" data-testid="limit-warning">
          {form.warning}
        </Warning>
      )}
    </Field>
  );
}
