import { useState } from 'react';
import { toast, useExchangeSettings, usePausedQuery } from '@repex/shared-ui/platform';
import { formatPrice, formatTokens } from '@repex/shared-ui/ui';
import { cancelBid, placeBid, quoteBid, type MyBid, type Offering } from '../data';
import { readBid } from './bidRules';

/** How long typing pauses before the database is asked. */
const PAUSE_MS = 200;

/**
 * The bid form's state: the typed price and amount (the user's bid, or the indicative price and
 * 100 tokens), what the database says of them as they are typed (quote_offering_bid: the cost,
 * and a refusal for the issue price, the cap or the funds, in place_offering_bid's words), and the
 * two calls, each told in a toast in the database's words when refused. The screen reads the
 * result from the market event the call makes.
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
  const typed = readBid(priceText, amountText, offering.fee_bps, settings.data?.max_price);
  const quote = usePausedQuery(
    typed.error ? null : `${typed.price}:${typed.amount}`,
    () => quoteBid(tokenId, typed.price, typed.amount),
    PAUSE_MS,
    // Asked again when what it reads changes (the terms, the user's bid and cash), not on each
    // market event that moves the offering's indicative price: 1,000 open panels, no reads per bid.
    [offering.reserve_price, offering.account_cap, offering.fee_bps, bid?.reserved, cash],
  );
  const check = {
    ...typed,
    cost: quote.data ?? typed.cost,
    error: typed.error ?? quote.error ?? quote.data?.refusal ?? null,
  };
  // A change releases the current bid's reservation first, so that cash is the bid's to use too.
  const usable = quote.data?.usable ?? cash + (bid?.reserved ?? 0);

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

  return {
    priceText,
    setPriceText,
    amountText,
    setAmountText,
    usable,
    busy,
    ...check,
    /** Typed right and answered by the database without a refusal. */
    ready: !check.error && !!quote.data && !quote.pending,
    submit,
    cancel,
  };
}
