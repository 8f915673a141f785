import type { RefObject } from 'react';
import { Input, Label } from '@repex/shared-ui/ui';
import { LimitField } from './LimitField';
import { Check, Field, FieldError, Note, Toggle, ToggleButton } from './OrderPanel.styles';
import type { OrderForm } from './useOrderForm';

/**
 * A stop's terms: the trigger, what the order becomes when the price reaches it (a stop-limit's
 * limit sits here, beside its trigger), and for a sell an
 * optional take-profit above the market (the pair: whichever fills first cancels the other).
 */
export function StopFields({ form, limitInput }: { form: OrderForm; limitInput: RefObject<HTMLInputElement | null> }) {
  const { terms, side } = form;
  // A field says what is wrong once something is typed in it, never before.
  const stopError = terms.stopText.trim() ? form.errors.stop : null;
  const takeProfitError = terms.takeProfitText.trim() ? form.errors.takeProfit : null;
  return (
    <>
      <Field>
        <Label htmlFor="order-stop">Trigger Price (USD)</Label>
        <Input
          id="order-stop"
          type="number"
          step={0.01}
          min={0.01}
          placeholder={side === 'buy' ? 'Above the last price' : 'Below the last price'}
          value={terms.stopText}
          onChange={(e) => terms.setStopText(e.target.value)}
          aria-invalid={!!stopError}
          aria-describedby="order-stop-note"
        />
        {stopError ? (
          <FieldError role="alert">{stopError}</FieldError>
        ) : (
          <Note id="order-stop-note">
            The order waits off the book until a trade at or {side === 'buy' ? 'above' : 'below'} this price.
          </Note>
        )}
      </Field>
      <Label id="order-stop-type">When triggered</Label>
      <Toggle role="group" aria-labelledby="order-stop-type">
        <ToggleButton
          $active={terms.stopType === 'market'}
          aria-pressed={terms.stopType === 'market'}
          onClick={() => terms.setStopType('market')}
        >
          At market
        </ToggleButton>
        <ToggleButton
          $active={terms.stopType === 'limit'}
          aria-pressed={terms.stopType === 'limit'}
          onClick={() => terms.setStopType('limit')}
        >
          At a limit
        </ToggleButton>
      </Toggle>
      {terms.stopType === 'limit' && <LimitField form={form} input={limitInput} />}
      {side === 'sell' && (
        <>
          <Check>
            <input
              type="checkbox"
              checked={terms.takeProfitOn}
              onChange={(e) => terms.setTakeProfitOn(e.target.checked)}
            />
            Also take profit above the market
          </Check>
          {terms.takeProfitOn && (
            <Field>
              <Label htmlFor="order-take-profit">Take-Profit Price (USD)</Label>
              <Input
                id="order-take-profit"
                type="number"
                step={0.01}
                min={0.01}
                value={terms.takeProfitText}
                onChange={(e) => terms.setTakeProfitText(e.target.value)}
                aria-invalid={!!takeProfitError}
              />
              {takeProfitError && <FieldError role="alert">{takeProfitError}</FieldError>}
            </Field>
          )}
        </>
      )}
    </>
  );
}
