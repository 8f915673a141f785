import { Button, Muted, formatPrice, formatTokens } from '@repex/shared-ui/ui';
import { Confirm, Lines, Row } from './OrderPanel.styles';
import { feePercent } from './orderMath';
import { fillRange, fillSentence } from './quoteWords';
import type { OrderForm } from './useOrderForm';

const unknown = '…';

/** The maker's terms in words: a fee, none, or a rebate. */
const makerWords = (bps: number) =>
  bps > 0 ? `${feePercent(bps)} maker fee` : bps === 0 ? 'no fee' : `${feePercent(-bps)} rebate`;

/** What the part of an order that waits in the book is charged as it fills, where makers have their own fee. */
const makerSentence = (bps: number) =>
  bps > 0
    ? ` What waits in the book pays the ${feePercent(bps)} maker fee as it fills, not the taker fee held back for it.`
    : ` What waits in the book ${bps === 0 ? 'pays no fee' : `earns a ${feePercent(-bps)} rebate`} as it fills, and the taker fee held back for it comes back.`;

/**
 * What the order comes to: for an order now, the database's walk of the book (its average price,
 * the prices it meets and how far that moves the price); for a stop, its figures at the trigger.
 */
export function OrderSummary({ form }: { form: OrderForm }) {
  const { side, feeBps, makerFeeBps, summary, quote, type } = form;
  const fills = type !== 'stop' && quote && quote.filled > 0;
  // '…' while the database is asked; '—' for a figure there is none of (no amount yet, nothing fills).
  const money = (n: number | null | undefined) =>
    n === null || n === undefined ? (form.pending ? unknown : '—') : formatPrice(n);
  return (
    <Lines aria-label="Order summary" aria-busy={form.pending}>
      <dt>{type === 'market' ? 'Average price' : type === 'limit' ? 'Limit price' : 'Price'}</dt>
      <dd data-testid="order-price">{money(summary?.price)}</dd>
      {fills && (
        <>
          <dt>Fills at</dt>
          <dd data-testid="order-fills-at">{fillRange(quote)}</dd>
          {quote.impact_bps !== null && quote.impact_bps !== 0 && (
            <>
              <dt>Price impact</dt>
              <dd data-testid="order-impact">
                {quote.impact_bps > 0 ? '+' : '−'}
                {feePercent(Math.abs(quote.impact_bps))}
              </dd>
            </>
          )}
        </>
      )}
      <dt>Value</dt>
      <dd data-testid="order-value">{money(summary?.value)}</dd>
      <dt>
        Fee ({feeBps === undefined ? unknown : feePercent(feeBps)}
        {makerFeeBps !== undefined && type !== 'market' && `; ${makerWords(makerFeeBps)} when it waits`})
      </dt>
      <dd data-testid="order-fee">{money(summary?.fee)}</dd>
      <dt className="total">{side === 'buy' ? 'Total' : 'You receive'}</dt>
      <dd className="total" data-testid="order-total">
        {money(side === 'buy' ? summary?.total : summary?.proceeds)}
      </dd>
    </Lines>
  );
}

/** The last look before an order is placed: what fills at once and at which prices, what waits, and the money. */
export function OrderConfirmation({ form, tokenName }: { form: OrderForm; tokenName: string }) {
  const { side, type, amount, summary, quote, limit, marketBandBps, busy, terms } = form;
  // Anything beyond an order now at market or resting until cancelled is said in the plan's words.
  const plain = type === 'market' || (type === 'limit' && terms.tif === 'gtc' && !terms.postOnly);
  const money = summary && (side === 'buy' ? summary.total : summary.proceeds);
  return (
    <Confirm role="region" aria-label="Confirm order">
      {!plain && (
        <p>
          <strong>{form.plan}</strong>
        </p>
      )}
      {type === 'stop' ? (
        <p>
          At {formatPrice(summary?.price ?? 0)}: value {formatPrice(summary?.value ?? 0)}, fee{' '}
          {formatPrice(summary?.fee ?? 0)}, {side === 'buy' ? 'total' : 'you receive'} {formatPrice(money ?? 0)}
          {side === 'buy' &&
            `; ${formatPrice(form.reserve)} of your cash is held back until it triggers or you cancel it`}
          .
        </p>
      ) : (
        quote && (
          <p data-testid="confirm-fills">
            <strong>
              {side === 'buy' ? 'Buy' : 'Sell'} {formatTokens(amount, tokenName)}
            </strong>{' '}
            {type === 'market' ? 'at market' : `at ${formatPrice(limit ?? 0)} or ${side === 'buy' ? 'less' : 'more'}`}:{' '}
            {fillSentence(quote, limit)} Value {formatPrice(summary?.value ?? 0)}, fee {formatPrice(summary?.fee ?? 0)},{' '}
            {side === 'buy' ? 'total' : 'you receive'} <strong>{formatPrice(money ?? 0)}</strong>
            {quote.resting > 0 && ' once all of it has filled'}.
            {quote.resting > 0 && form.makerFeeBps !== undefined && makerSentence(form.makerFeeBps)}
          </p>
        )
      )}
      {type === 'market' && (
        <p>
          <Muted>
            A market order fills at the best prices in the book
            {marketBandBps !== undefined && ` within ${feePercent(marketBandBps)} of the last price`}, and what it
            cannot fill there is cancelled. If the book moves before it arrives, the fills may differ.
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
