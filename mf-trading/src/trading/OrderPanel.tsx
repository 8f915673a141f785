import { useRef } from 'react';
import { Button, Card, CardTitle, Input, Label } from '@repex/shared-ui/ui';
import { AmountField } from './AmountField';
import { OrderConfirmation, OrderSummary } from './OrderSummary';
import { Field, FieldError, Toggle, ToggleButton } from './OrderPanel.styles';
import { useOrderForm, type OrderFormInput } from './useOrderForm';

/** Spec sections 4, 5 and 9: the order form. Its state and rules are useOrderForm's. */
export function OrderPanel(props: OrderFormInput) {
  const card = useRef<HTMLElement>(null);
  const limitInput = useRef<HTMLInputElement>(null);
  const form = useOrderForm(props, { card, limitInput });
  const { side, setSide, type, setType } = form;
  return (
    <Card ref={card} aria-label="Place order">
      <CardTitle>Place Order</CardTitle>
      <Toggle role="group" aria-label="Side">
        <ToggleButton $active={side === 'buy'} $tone="buy" aria-pressed={side === 'buy'} onClick={() => setSide('buy')}>
          Buy
        </ToggleButton>
        <ToggleButton
          $active={side === 'sell'}
          $tone="sell"
          aria-pressed={side === 'sell'}
          onClick={() => setSide('sell')}
        >
          Sell
        </ToggleButton>
      </Toggle>
      <Toggle role="group" aria-label="Order type">
        <ToggleButton $active={type === 'market'} aria-pressed={type === 'market'} onClick={() => setType('market')}>
          Market
        </ToggleButton>
        <ToggleButton $active={type === 'limit'} aria-pressed={type === 'limit'} onClick={() => setType('limit')}>
          Limit
        </ToggleButton>
      </Toggle>

      <AmountField form={form} tokenName={props.tokenName} cash={props.cash} held={props.held} />

      {type === 'limit' && (
        <Field>
          <Label htmlFor="order-limit">Limit Price (USD)</Label>
          <Input
            id="order-limit"
            ref={limitInput}
            type="number"
            step={0.01}
            min={0.01}
            value={form.limitText}
            onChange={(e) => form.setLimitText(e.target.value)}
            aria-invalid={!!form.limitError}
          />
          {form.limitError && <FieldError role="alert">{form.limitError}</FieldError>}
        </Field>
      )}

      <OrderSummary form={form} />
      {form.confirming ? (
        <OrderConfirmation form={form} tokenName={props.tokenName} price={props.price} />
      ) : (
        <Button
          $block
          $size="lg"
          $variant={side === 'buy' ? 'default' : 'destructive'}
          disabled={!form.ready}
          onClick={() => form.setConfirming(true)}
        >
          {side === 'buy' ? 'Place Buy Order' : 'Place Sell Order'}
        </Button>
      )}
    </Card>
  );
}
