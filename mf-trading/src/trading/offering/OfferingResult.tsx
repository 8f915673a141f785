import { Card, CardTitle, formatInteger, formatPrice, formatTokens } from '@repex/shared-ui/ui';
import type { MyBid, Offering } from '../data';

/** A closed offering, to someone who bid in it: the one price, and what their bid received. */
export function OfferingResult({ offering: o, bid, tokenName }: { offering: Offering; bid: MyBid; tokenName: string }) {
  return (
    <Card aria-label="Offering result" data-testid="offering-result">
      <CardTitle>Offering Closed</CardTitle>
      <p style={{ margin: '0 0 8px' }}>
        {o.clearing_price === null
          ? 'It closed without a sale.'
          : `Cleared at ${formatPrice(o.clearing_price)} a token: ${formatInteger(o.sold)} of ${formatInteger(o.supply)} sold.`}
      </p>
      <p style={{ margin: 0 }} data-testid="offering-allocation">
        {bid.allocated
          ? `You received ${formatTokens(bid.allocated, tokenName)} at ${formatPrice(o.clearing_price ?? 0)} (your bid: ${formatInteger(bid.amount)} at ${formatPrice(bid.price)}).`
          : `Your bid for ${formatInteger(bid.amount)} at ${formatPrice(bid.price)} received no tokens; all it held back is available again.`}
      </p>
    </Card>
  );
}
