import { useState } from 'react';
import { toast, useExchangeSettings } from '@repex/shared-ui/platform';
import { formatPrice, formatTokens } from '@repex/shared-ui/ui';
import { cancelBid, placeBid, type MyBid, type Offering } from '../data';
import { checkBid } from './bidRules';

/**
 * The bid form's state: the typed price and amount (the user's bid, or the indicative price and
 * 100 tokens), their check against the offering and the cash, and the two calls, each told in a
 * toast in the database's words when refused. The screen reads the result from the market event
 * the call makes.
 */
export function useBidForm({
  tokenId,
  tokenName,
  offering,
  bid,
  cash,
}: {
  tokenId: string;
  tokenName: string;
  offering: Offering;
  bid: MyBid | null;
  cash: number;
}) {
  const settings = useExchangeSettings();
  const [priceText, setPriceText] = useState(() =>
    String(bid?.price ?? offering.indicative_price ?? offering.reserve_price),
  );
  const [amountText, setAmountText] = useState(() => String(bid?.amount ?? Math.min(100, offering.account_cap)));
  const [busy, setBusy] = useState(false);
  // A change releases the current bid's reservation first, so that cash is the bid's to use too.
  const usable = cash + (bid?.reserved ?? 0);
  const check = checkBid(priceText, amountText, offering, usable, settings.data?.max_price);

  const run = async (
    call: () => PromiseLike<{ error: { message: string } | null }>,
    done: () => void,
    failed: string,
  ) => {
    setBusy(true);
    try {
      const { error } = await call();
      if (error) throw error;
      done();
    } catch (err) {
      const message = (err as { message?: string } | null)?.message;
      toast({ title: failed, description: message || 'Something went wrong', variant: 'destructive' });
    } finally {
      setBusy(false);
    }
  };

  const submit = () =>
    run(
      () => placeBid(tokenId, check.price, check.amount),
      () =>
        toast({
          title: bid ? 'Bid Changed' : 'Bid Placed',
          description: `${formatTokens(check.amount, tokenName)} at ${formatPrice(check.price)}: ${formatPrice(
            check.cost.total,
          )} is held back until the offering closes.`,
        }),
      'Bid Failed',
    );
  const cancel = () =>
    run(
      () => cancelBid(tokenId),
      () => toast({ title: 'Bid Cancelled', description: `${formatPrice(bid?.reserved ?? 0)} is available again.` }),
      'Cancel Failed',
    );

  return { priceText, setPriceText, amountText, setAmountText, usable, busy, ...check, submit, cancel };
}
