import { useRef } from 'react';
import { Button, Card, CardTitle } from '@repex/shared-ui/ui';
import { AmountField } from './AmountField';
import { OrderConfirmation, OrderSummary } from './OrderSummary';
import { LifetimeFields } from './LifetimeFields';
import { LimitField } from './LimitField';
import { Plan, Toggle, ToggleButton } from './OrderPanel.styles';
import type { OrderKind } from './orderPlan';
import { StopFields } from './StopFields';
import { useOrderForm, type OrderFormInput } from './useOrderForm';

const KINDS: [OrderKind, string][] = [
  ['market', 'Market'],
  ['limit', 'Limit'],
  ['stop', 'Stop'],
];

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
      <Toggle role="group" aria-label="Order type" $columns={3}>
        {KINDS.map(([kind, label]) => (
          <ToggleButton key={kind} $active={type === kind} aria-pressed={type === kind} onClick={() => setType(kind)}>
            {label}
          </ToggleButton>
        ))}
      </Toggle>

      <AmountField form={form} tokenName={props.tokenName} cash={props.cash} held={props.held} />

      {type === 'stop' && <StopFields form={form} limitInput={limitInput} />}
      {type === 'limit' && <LimitField form={form} input={limitInput} />}

      <LifetimeFields form={form} />
      <Plan data-testid="order-plan" aria-live="polite">
        {form.plan}
      </Plan>
      <OrderSummary form={form} />
      {form.confirming ? (
        <OrderConfirmation form={form} tokenName={props.tokenName} />
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
