import { limitPriceError, orderCost, readAmount } from '../order/orderMath';

/**
 * A typed bid: its price and amount, their cost at the offering's fee (the estimate shown until the
 * database's quote answers), or what is wrong with what is typed. Whether the bid holds against the
 * offering and the cash (the issue price, the cap, the funds) is the database's to say
 * (quote_offering_bid).
 */
export function readBid(
  priceText: string,
  amountText: string,
  feeBps: number,
  maxPrice?: number,
): { price: number; amount: number; cost: ReturnType<typeof orderCost>; error: string | null } {
  const price = Number(priceText);
  const { amount, error: amountError } = readAmount(amountText);
  const cost = orderCost(Number.isFinite(price) ? price : 0, amount, feeBps);
  const error =
    limitPriceError(priceText, maxPrice, 'bid price') ??
    (amountError || amount < 1 ? (amountError ?? 'Enter a whole number of tokens, at least 1.') : null);
  return { price, amount, cost, error };
}
