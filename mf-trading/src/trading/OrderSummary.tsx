import { Button, Muted, formatPrice, formatTokens } from '@repex/shared-ui/ui';
import { Confirm, Lines, Row } from './OrderPanel.styles';
import { feePercent } from './orderMath';
import type { OrderForm } from './useOrderForm';

const unknown = '…';

/** What the order comes to: price, value, fee, and the total a buyer pays or what a seller receives. */
export function OrderSummary({ form }: { form: OrderForm }) {
  const { side, feeBps, effectivePrice, value, fee, total, proceeds } = form;
  return (
    <Lines aria-label="Order summary">
      <dt>Price</dt>
      <dd data-testid="order-price">{formatPrice(effectivePrice)}</dd>
      <dt>Value</dt>
      <dd data-testid="order-value">{formatPrice(value)}</dd>
      <dt>Fee ({feeBps === undefined ? unknown : feePercent(feeBps)})</dt>
      <dd data-testid="order-fee">{feeBps === undefined ? unknown : formatPrice(fee)}</dd>
      <dt className="total">{side === 'buy' ? 'Total' : 'You receive'}</dt>
      <dd className="total" data-testid="order-total">
        {feeBps === undefined ? unknown : formatPrice(side === 'buy' ? total : proceeds)}
      </dd>
    </Lines>
  );
}

/** The last look before an order is placed, in one sentence, with Back and Confirm. */
export function OrderConfirmation({ form, tokenName, price }: { form: OrderForm; tokenName: string; price: number }) {
  const { side, type, amount, effectivePrice, value, fee, total, proceeds, marketBandBps, busy, terms } = form;
  // Anything beyond an order now at market or resting until cancelled is said in the plan's words.
  const plain = type === 'market' || (type === 'limit' && terms.tif === 'gtc' && !terms.postOnly);
  return (
    <Confirm role="region" aria-label="Confirm order">
      {!plain && (
        <p>
          <strong>{form.plan}</strong>
        </p>
      )}
      {type === 'stop' ? (
        <p>
          At {formatPrice(effectivePrice)}: value {formatPrice(value)}, fee {formatPrice(fee)},{' '}
          {side === 'buy' ? 'total' : 'you receive'} {formatPrice(side === 'buy' ? total : proceeds)}
          {side === 'buy' &&
            `; ${formatPrice(form.reserve)} of your cash is held back until it triggers or you cancel it`}
          .
        </p>
      ) : (
        <p>
          <strong>
            {side === 'buy' ? 'Buy' : 'Sell'} {formatTokens(amount, tokenName)}
          </strong>{' '}
          {type === 'market'
            ? `at market (about ${formatPrice(price)} each)`
            : `at ${formatPrice(effectivePrice)} or better`}
          : value {formatPrice(value)}, fee {formatPrice(fee)}, {side === 'buy' ? 'total' : 'you receive'}{' '}
          <strong>{formatPrice(side === 'buy' ? total : proceeds)}</strong>.
        </p>
      )}
      {type === 'market' && (
        <p>
          <Muted>
            A market order fills at the best prices in the book
            {marketBandBps !== undefined && ` within ${feePercent(marketBandBps)} of the last price`}, and what it
            cannot fill there is cancelled; the final figures may differ.
          </Muted>
        </p>
      )}
      <Row>
        <Button $variant="outline" onClick={() => form.setConfirming(false)} disabled={busy}>
          Back
        </Button>
        <Button $variant={side === 'buy' ? 'default' : 'destructive'} onClick={form.place} disabled={busy}>
          {busy ? 'Placing...' : `Confirm ${side === 'buy' ? 'Buy' : 'Sell'}`}
        </Button>
      </Row>
    </Confirm>
  );
}
