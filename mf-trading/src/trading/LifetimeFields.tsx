import { Input, Label, Select } from '@repex/shared-ui/ui';
import { Check, Field, FieldError } from './OrderPanel.styles';
import { TIME_IN_FORCE } from './orderPlan';
import type { OrderForm } from './useOrderForm';

/** How long the order lives (time in force, and a good-til-date's expiry), and post-only for a limit. */
export function LifetimeFields({ form }: { form: OrderForm }) {
  const { terms, type } = form;
  if (terms.allowedTif.length < 2) return null;
  return (
    <>
      <Field>
        <Label htmlFor="order-tif">Time in Force</Label>
        <Select id="order-tif" value={terms.tif} onChange={(e) => terms.setTif(e.target.value as typeof terms.tif)}>
          {TIME_IN_FORCE.filter((o) => terms.allowedTif.includes(o.value)).map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </Select>
      </Field>
      {terms.tif === 'gtd' && (
        <Field>
          <Label htmlFor="order-expires">Expires</Label>
          <Input
            id="order-expires"
            type="datetime-local"
            value={terms.expiresText}
            onChange={(e) => terms.setExpiresText(e.target.value)}
            aria-invalid={!!terms.expiresError}
          />
          {terms.expiresError && <FieldError role="alert">{terms.expiresError}</FieldError>}
        </Field>
      )}
      {type === 'limit' && (terms.tif === 'gtc' || terms.tif === 'gtd') && (
        <Check>
          <input type="checkbox" checked={terms.postOnly} onChange={(e) => terms.setPostOnly(e.target.checked)} />
          Post-only (refuse it if it would trade at once)
        </Check>
      )}
    </>
  );
}
