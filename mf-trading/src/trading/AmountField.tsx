import { Button, Input, Label, Muted, formatPrice, formatTokens } from '@repex/shared-ui/ui';
import { AmountRow, Field, FieldError, Note, Shortcuts } from './OrderPanel.styles';
import { SHORTCUTS, decrement, increment, parseAmount, shortcutAmount } from './orderMath';
import type { OrderForm } from './useOrderForm';

/** The amount: typed, stepped by 10, or a share of what the user can buy or sell; and what limits it. */
export function AmountField({
  form,
  tokenName,
  cash,
  held,
}: {
  form: OrderForm;
  tokenName: string;
  cash: number;
  held: number;
}) {
  const { amount, setAmount, amountError, max, funds } = form;
  return (
    <Field>
      <Label htmlFor="order-amount">Amount (tokens)</Label>
      <AmountRow>
        <Button
          $variant="outline"
          $size="icon"
          aria-label="Decrease amount by 10"
          onClick={() => setAmount(decrement(amount))}
        >
          −
        </Button>
        <Input
          id="order-amount"
          inputMode="numeric"
          min={1}
          value={String(amount)}
          onChange={(e) => setAmount(parseAmount(e.target.value))}
          aria-invalid={!!amountError}
          style={{ textAlign: 'center' }}
        />
        <Button
          $variant="outline"
          $size="icon"
          aria-label="Increase amount by 10"
          onClick={() => setAmount(increment(amount))}
        >
          +
        </Button>
      </AmountRow>
      {amountError && <FieldError role="alert">{amountError}</FieldError>}
      <Shortcuts>
        {SHORTCUTS.map((p) => (
          <Button key={p} $variant="secondary" $size="sm" onClick={() => setAmount(shortcutAmount(p, max))}>
            {p}%
          </Button>
        ))}
      </Shortcuts>
      <Muted style={{ fontSize: 13 }}>
        {form.side === 'buy'
          ? `Up to ${formatTokens(max)} with your ${formatPrice(cash)}`
          : `You hold ${formatTokens(held, tokenName)}`}
      </Muted>
      {funds && 'error' in funds && <FieldError role="alert">{funds.error}</FieldError>}
      {funds && 'note' in funds && <Note role="status">{funds.note}</Note>}
    </Field>
  );
}
