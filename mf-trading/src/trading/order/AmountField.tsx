import { Button, Input, Label, Muted, formatPrice, formatTokens } from '@repex/shared-ui/ui';
import { AmountRow, Field, FieldError, Note, Shortcuts, UnitSwitch } from './OrderPanel.styles';
import { SHORTCUTS, decrement, increment, shortcutAmount } from './orderMath';
import type { OrderForm } from './useOrderForm';

/**
 * The amount: typed (kept as typed, with what is wrong said beside it), stepped by 10, or a share
 * of what the user can buy or sell; a buy at market may instead be a sum to spend.
 */
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
  const { amountError, max, funds, unit } = form;
  const spending = unit === 'usd';
  const canSpend = form.side === 'buy' && form.type === 'market';
  const setAmount = (n: number) => form.setAmountText(String(n));
  return (
    <Field>
      <Label htmlFor="order-amount">{spending ? 'Spend (USD)' : 'Amount (tokens)'}</Label>
      {canSpend && (
        <UnitSwitch role="group" aria-label="Buy in">
          <button type="button" aria-pressed={!spending} onClick={() => form.setUnit('tokens')}>
            Tokens
          </button>
          <button type="button" aria-pressed={spending} onClick={() => form.setUnit('usd')}>
            Dollars
          </button>
        </UnitSwitch>
      )}
      {spending ? (
        <Input
          id="order-amount"
          inputMode="decimal"
          placeholder="$0.00"
          autoComplete="off"
          value={form.spendText}
          onChange={(e) => form.setSpendText(e.target.value)}
          aria-invalid={!!amountError}
          aria-describedby="order-amount-error"
          style={{ textAlign: 'center' }}
        />
      ) : (
        <AmountRow>
          <Button
            $variant="outline"
            $size="icon"
            aria-label="Decrease amount by 10"
            onClick={() => setAmount(decrement(form.amount))}
          >
            −
          </Button>
          <Input
            id="order-amount"
            inputMode="numeric"
            placeholder="0"
            autoComplete="off"
            value={form.amountText}
            onChange={(e) => form.setAmountText(e.target.value)}
            aria-invalid={!!amountError}
            aria-describedby="order-amount-error"
            style={{ textAlign: 'center' }}
          />
          <Button
            $variant="outline"
            $size="icon"
            aria-label="Increase amount by 10"
            onClick={() => setAmount(increment(form.amount))}
          >
            +
          </Button>
        </AmountRow>
      )}
      {amountError && (
        <FieldError id="order-amount-error" role="alert">
          {amountError}
        </FieldError>
      )}
      <Shortcuts>
        {SHORTCUTS.map((p) => (
          <Button
            key={p}
            $variant="secondary"
            $size="sm"
            onClick={() => (spending ? form.setSpendText(spendShare(cash, p)) : setAmount(shortcutAmount(p, max)))}
          >
            {p}%
          </Button>
        ))}
      </Shortcuts>
      <Muted style={{ fontSize: 13 }}>
        {form.side === 'sell'
          ? `You hold ${formatTokens(held, tokenName)}`
          : spending
            ? `You have ${formatPrice(cash)} to spend`
            : `Up to ${formatTokens(max)} with your ${formatPrice(cash)}`}
      </Muted>
      {funds && 'error' in funds && <FieldError role="alert">{funds.error}</FieldError>}
      {funds && 'note' in funds && <Note role="status">{funds.note}</Note>}
    </Field>
  );
}

/** A share of the cash as a sum to spend, rounded down to the cent. */
const spendShare = (cash: number, percent: number) => {
  const cents = Math.floor(cash * percent);
  return cents > 0 ? (cents / 100).toFixed(2) : '';
};
