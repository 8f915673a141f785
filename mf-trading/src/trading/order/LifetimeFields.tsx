import { Button, Input, Label, Select } from '@repex/shared-ui/ui';
import { Check, Field, FieldError, Presets } from './OrderPanel.styles';
import { TIME_IN_FORCE } from './orderPlan';
import type { OrderForm } from './useOrderForm';

/** How long the order lives (time in force, and a good-til-date's expiry), and post-only for a limit. */
export function LifetimeFields({ form }: { form: OrderForm }) {
  const { terms, type } = form;
  if (terms.allowedTif.length < 2) return null;
  const expiresError = terms.expiresText ? form.errors.expires : null;
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
            aria-invalid={!!expiresError}
          />
          <Presets role="group" aria-label="Expires in">
            {EXPIRY_PRESETS.map(([label, days]) => (
              <Button
                key={label}
                $variant="secondary"
                $size="sm"
                onClick={() => terms.setExpiresText(localInput(days))}
              >
                {label}
              </Button>
            ))}
          </Presets>
          {expiresError && <FieldError role="alert">{expiresError}</FieldError>}
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

/** Good-til-date presets: the order expires this many days from now. */
const EXPIRY_PRESETS: [string, number][] = [
  ['1 day', 1],
  ['1 week', 7],
  ['1 month', 30],
];

/** A time `days` from now as a datetime-local input holds it: local time, to the minute. */
function localInput(days: number): string {
  const d = new Date(Date.now() + days * 86_400_000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
