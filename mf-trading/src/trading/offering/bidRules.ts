import { formatInteger, formatPrice } from '@repex/shared-ui/ui';
import { limitPriceError, orderCost, readAmount } from '../order/orderMath';

/** An offering's terms, as a bid is checked against them (the database checks them again). */
export interface OfferingTerms {
  reserve_price: number;
  account_cap: number;
  fee_bps: number;
}

/**
 * A typed bid against the offering's terms and the cash it may use (available cash plus what the
 * current bid holds back, which a change releases): its price, amount and cost, or what is wrong.
 */
export function checkBid(
  priceText: string,
  amountText: string,
  terms: OfferingTerms,
  cash: number,
  maxPrice?: number,
): { price: number; amount: number; cost: ReturnType<typeof orderCost>; error: string | null } {
  const price = Number(priceText);
  const { amount, error: amountError } = readAmount(amountText);
  const cost = orderCost(Number.isFinite(price) ? price : 0, amount, terms.fee_bps);
  const priceError = limitPriceError(priceText, maxPrice, 'bid price');
  const error =
    priceError ??
    (price < terms.reserve_price
      ? `Bids start at the issue price, ${formatPrice(terms.reserve_price)}.`
      : amountError || amount < 1
        ? (amountError ?? 'Enter a whole number of tokens, at least 1.')
        : amount > terms.account_cap
          ? `One account may bid for at most ${formatInteger(terms.account_cap)} tokens in this offering.`
          : cost.total > cash
            ? `Insufficient funds: this bid needs ${formatPrice(cost.total)} and you have ${formatPrice(cash)} available.`
            : null);
  return { price, amount, cost, error };
}
