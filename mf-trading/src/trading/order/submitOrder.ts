import { toast } from '@repex/shared-ui/platform';
import { describeResult } from '@repex/shared-ui/ui';
import { placeOrder, placePair } from '../data';
import type { Side } from './orderMath';
import type { OrderKind } from './orderPlan';
import type { OrderTermsState } from './useOrderTerms';

/**
 * Sends the order the panel holds (place_order, or place_oco for a take-profit and stop pair) and
 * tells the user what happened in a toast: the result, the plan of a stop now waiting, or the
 * database's refusal in its own words. Resolves to whether the order was placed.
 */
export async function submitOrder(o: {
  tokenId: string;
  tokenName: string;
  side: Side;
  type: OrderKind;
  amount: number;
  limit?: number;
  /** A market buy sized as a sum to spend: the most it pays, fee included. */
  maxTotal?: number;
  terms: OrderTermsState;
  plan: string;
}): Promise<boolean> {
  const { terms } = o;
  const when = { tif: terms.tif, expiresAt: terms.expiresAt?.toISOString() };
  try {
    if (terms.pair) {
      const { error } = await placePair({
        tokenId: o.tokenId,
        amount: o.amount,
        takeProfit: terms.takeProfit!,
        stopPrice: terms.stopPrice!,
        stopLimit: o.limit,
        ...when,
      });
      if (error) throw error;
      toast({ title: 'Orders Placed', description: o.plan });
      return true;
    }
    const { data, error } = await placeOrder({
      tokenId: o.tokenId,
      side: o.side,
      type: o.type === 'stop' ? terms.stopType : o.type,
      amount: o.amount,
      price: o.limit,
      stopPrice: terms.stopPrice,
      postOnly: terms.postOnly,
      maxTotal: o.maxTotal,
      ...when,
    });
    if (error) throw error;
    toast(
      data.status === 'pending'
        ? { title: 'Stop Placed', description: o.plan }
        : describeResult(data, o.tokenName, o.limit),
    );
    return true;
  } catch (err) {
    // A refusal from the database or a failed request: either way its message, in the user's words.
    const message = (err as { message?: string } | null)?.message;
    toast({ title: 'Order Failed', description: message || 'Something went wrong', variant: 'destructive' });
    return false;
  }
}
