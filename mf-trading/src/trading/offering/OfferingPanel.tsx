import { useNow } from '@repex/shared-ui/platform';
import {
  Badge,
  Button,
  Card,
  CardTitle,
  Input,
  Label,
  Muted,
  formatCountdown,
  formatDate,
  formatPrice,
  formatTime,
  formatTokens,
} from '@repex/shared-ui/ui';
import type { MyBid, Offering } from '../data';
import { feePercent } from '../order/orderMath';
import { Field, FieldError, Lines } from '../order/OrderPanel.styles';
import { Countdown, TitleRow } from './Offering.styles';
import { useBidForm } from './useBidForm';

/**
 * In place of the order form while the token's offering is open: the countdown, the indicative
 * clearing price and total demand (bids are sealed), the offering's terms, and the user's one bid,
 * placed, changed or cancelled here.
 */
export function OfferingPanel(props: {
  tokenId: string;
  tokenName: string;
  offering: Offering;
  bid: MyBid | null;
  cash: number;
}) {
  const { offering: o, bid, tokenName } = props;
  const now = useNow(1000);
  const left = Date.parse(o.closes_at) - now;
  const form = useBidForm(props);
  return (
    <Card aria-label="Offering" data-testid="offering-panel">
      <TitleRow>
        <CardTitle>Offering</CardTitle>
        <Badge $variant="secondary">Batch auction</Badge>
      </TitleRow>
      <Countdown data-testid="offering-countdown" aria-live="off">
        {left > 0 ? `Closes in ${formatCountdown(left)}` : 'Closing: the bids are being settled'}
      </Countdown>
      <Muted as="p" style={{ margin: '0 0 12px' }}>
        {formatDate(o.closes_at)}, {formatTime(o.closes_at)}. Bids are sealed; at the close, everyone who bid at or
        above one clearing price pays that price, and bids at it share what is left.
      </Muted>
      <Lines aria-label="Offering figures">
        <dt>Indicative Price</dt>
        <dd data-testid="offering-indicative">
          {o.indicative_price === null ? 'No bids yet' : formatPrice(o.indicative_price)}
        </dd>
        <dt>Total Demand</dt>
        <dd data-testid="offering-demand">{formatTokens(o.demand ?? 0)}</dd>
        <dt>On Offer</dt>
        <dd>{formatTokens(o.supply)}</dd>
        <dt>Lowest Bid</dt>
        <dd>{formatPrice(o.reserve_price)}</dd>
        <dt>Most per Account</dt>
        <dd>{formatTokens(o.account_cap)}</dd>
      </Lines>

      {bid && (
        <p data-testid="my-bid" style={{ margin: '0 0 12px' }}>
          Your bid: <strong>{formatTokens(bid.amount, tokenName)}</strong> at <strong>{formatPrice(bid.price)}</strong>,{' '}
          {formatPrice(bid.reserved)} held back.
        </p>
      )}
      <Field>
        <Label htmlFor="bid-price">Bid Price (USD)</Label>
        <Input
          id="bid-price"
          type="number"
          step={0.01}
          min={o.reserve_price}
          value={form.priceText}
          onChange={(e) => form.setPriceText(e.target.value)}
        />
      </Field>
      <Field>
        <Label htmlFor="bid-amount">Amount (tokens)</Label>
        <Input
          id="bid-amount"
          type="number"
          step={1}
          min={1}
          max={o.account_cap}
          value={form.amountText}
          onChange={(e) => form.setAmountText(e.target.value)}
        />
      </Field>
      <Lines aria-label="Bid summary">
        <dt>Value</dt>
        <dd>{formatPrice(form.cost.value)}</dd>
        <dt>Fee ({feePercent(o.fee_bps)})</dt>
        <dd>{formatPrice(form.cost.fee)}</dd>
        <dt className="total">Held Back</dt>
        <dd className="total" data-testid="bid-total">
          {formatPrice(form.cost.total)}
        </dd>
        {/* A change may use what the current bid holds back. */}
        <dt>{bid ? 'Available, with Your Bid' : 'Available Cash'}</dt>
        <dd>{formatPrice(form.usable)}</dd>
      </Lines>
      {form.error && <FieldError role="alert">{form.error}</FieldError>}
      <Muted as="p" style={{ margin: '0 0 12px', fontSize: 13 }}>
        You pay the clearing price, never more than your bid; what your bid does not use is released at the close.
      </Muted>
      <Button $block $size="lg" disabled={!form.ready || form.busy || left <= 0} onClick={form.submit}>
        {bid ? 'Change Bid' : 'Place Bid'}
      </Button>
      {bid && (
        <Button
          $block
          $variant="outline"
          style={{ marginTop: 8 }}
          disabled={form.busy || left <= 0}
          onClick={form.cancel}
        >
          Cancel Bid
        </Button>
      )}
    </Card>
  );
}
