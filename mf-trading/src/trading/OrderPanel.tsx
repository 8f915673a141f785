import { useEffect, useRef, useState } from 'react';
import {
  AmountRow,
  Confirm,
  Field,
  FieldError,
  Lines,
  Note,
  Row,
  Shortcuts,
  Toggle,
  ToggleButton,
} from './OrderPanel.styles';
import { toast, useExchangeSettings } from '@repex/shared-ui/platform';
import { placeOrder } from './data';
import {
  Button,
  Card,
  CardTitle,
  Input,
  Label,
  Muted,
  describeResult,
  formatPrice,
  formatTokens,
} from '@repex/shared-ui/ui';
import type { BookPick } from './OrderBook';
import {
  DEFAULT_AMOUNT,
  SHORTCUTS,
  decrement,
  feePercent,
  fundsCheck,
  increment,
  limitPriceError,
  maxAmount,
  orderCost,
  parseAmount,
  shortcutAmount,
  type OrderType,
  type Side,
} from './orderMath';

interface Props {
  tokenId: string;
  tokenName: string;
  price: number;
  cash: number;
  held: number;
  initialSide: Side;
  /** The last price chosen in the order book (a new object for each choice), if any. */
  pick?: BookPick;
  /** Called after an order was accepted, so the screen refreshes at once. */
}

/**
 * Spec sections 4, 5 and 9: the order form. The rules here guide the user; the database
 * function place_order enforces them all again, whoever calls it.
 */
export function OrderPanel({ tokenId, tokenName, price, cash, held, initialSide, pick }: Props) {
  const [side, setSide] = useState<Side>(initialSide);
  const [type, setType] = useState<OrderType>('market');
  const [amount, setAmount] = useState(DEFAULT_AMOUNT);
  const [limitText, setLimitText] = useState(price.toFixed(2));
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);

  // A price chosen in the book becomes a limit order at it, on the side that trades against it.
  const [seenPick, setSeenPick] = useState(pick);
  const [picks, setPicks] = useState(0);
  if (pick !== seenPick) {
    setSeenPick(pick);
    if (pick && !busy) {
      setSide(pick.side);
      setType('limit');
      setLimitText(pick.price.toFixed(2));
      setConfirming(false);
      setPicks(picks + 1);
    }
  }
  const card = useRef<HTMLElement>(null);
  const limitInput = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (picks === 0) return;
    // The panel's head comes into the upper half of the view (on a phone it is above the book).
    const head = card.current?.getBoundingClientRect().top ?? 0;
    const covered = parseFloat(getComputedStyle(document.documentElement).scrollPaddingTop) || 0;
    if (head < covered || head > window.innerHeight / 2) card.current?.scrollIntoView?.({ block: 'start' });
    // Keyboard and mouse users land on the price; a touch screen keeps its keyboard closed.
    if (window.matchMedia?.('(pointer: fine)').matches) limitInput.current?.focus({ preventScroll: true });
  }, [picks]);

  // The fee, limits and market band are the exchange's settings, followed live (an admin may change them at any time).
  const settings = useExchangeSettings();
  const feeBps = settings.data?.fee_bps;
  const limitError = type === 'limit' ? limitPriceError(limitText, settings.data?.max_price) : null;
  const effectivePrice = type === 'limit' && !limitError ? Number(limitText) : price;
  const max = feeBps === undefined ? 0 : maxAmount(side, cash, effectivePrice, held, feeBps);
  const { value, fee, total, proceeds } = orderCost(effectivePrice, amount, feeBps ?? 0);
  const minimum = settings.data?.min_order_amount ?? 1;
  const amountError =
    amount < 1 ? 'Enter at least 1 token.' : amount < minimum ? `The minimum order is ${formatTokens(minimum)}.` : null;
  const funds =
    feeBps === undefined || amountError || limitError
      ? null
      : fundsCheck({ side, type, amount, max, total, cash, held });

  const place = async () => {
    setBusy(true);
    try {
      const { data, error } = await placeOrder({
        tokenId,
        side,
        type,
        amount,
        ...(type === 'limit' ? { price: Number(limitText) } : {}),
      });
      if (error) {
        toast({ title: 'Order Failed', description: error.message || 'Something went wrong', variant: 'destructive' });
        return;
      }
      toast(describeResult(data, tokenName, type === 'limit' ? Number(limitText) : undefined));
    } catch (err) {
      toast({
        title: 'Order Failed',
        description: err instanceof Error ? err.message : 'Something went wrong',
        variant: 'destructive',
      });
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  };

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
          {side === 'buy'
            ? `Up to ${formatTokens(max)} with your ${formatPrice(cash)}`
            : `You hold ${formatTokens(held, tokenName)}`}
        </Muted>
        {funds && 'error' in funds && <FieldError role="alert">{funds.error}</FieldError>}
        {funds && 'note' in funds && <Note role="status">{funds.note}</Note>}
      </Field>

      {type === 'limit' && (
        <Field>
          <Label htmlFor="order-limit">Limit Price (USD)</Label>
          <Input
            id="order-limit"
            ref={limitInput}
            type="number"
            step={0.01}
            min={0.01}
            value={limitText}
            onChange={(e) => setLimitText(e.target.value)}
            aria-invalid={!!limitError}
          />
          {limitError && <FieldError role="alert">{limitError}</FieldError>}
        </Field>
      )}

      <Lines aria-label="Order summary">
        <dt>Price</dt>
        <dd data-testid="order-price">{formatPrice(effectivePrice)}</dd>
        <dt>Value</dt>
        <dd data-testid="order-value">{formatPrice(value)}</dd>
        <dt>Fee ({feeBps === undefined ? '…' : feePercent(feeBps)})</dt>
        <dd data-testid="order-fee">{feeBps === undefined ? '…' : formatPrice(fee)}</dd>
        <dt className="total">{side === 'buy' ? 'Total' : 'You receive'}</dt>
        <dd className="total" data-testid="order-total">
          {feeBps === undefined ? '…' : formatPrice(side === 'buy' ? total : proceeds)}
        </dd>
      </Lines>
      {confirming ? (
        <Confirm role="region" aria-label="Confirm order">
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
          {type === 'market' && (
            <p>
              <Muted>
                A market order fills at the best prices in the book
                {settings.data && ` within ${feePercent(settings.data.market_band_bps)} of the last price`}, and what it
                cannot fill there is cancelled; the final figures may differ.
              </Muted>
            </p>
          )}
          <Row>
            <Button $variant="outline" onClick={() => setConfirming(false)} disabled={busy}>
              Back
            </Button>
            <Button $variant={side === 'buy' ? 'default' : 'destructive'} onClick={place} disabled={busy}>
              {busy ? 'Placing...' : `Confirm ${side === 'buy' ? 'Buy' : 'Sell'}`}
            </Button>
          </Row>
        </Confirm>
      ) : (
        <Button
          $block
          $size="lg"
          $variant={side === 'buy' ? 'default' : 'destructive'}
          disabled={!!amountError || !!limitError || feeBps === undefined || (!!funds && 'error' in funds)}
          onClick={() => setConfirming(true)}
        >
          {side === 'buy' ? 'Place Buy Order' : 'Place Sell Order'}
        </Button>
      )}
    </Card>
  );
}
