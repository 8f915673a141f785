import { useEffect, useState, type RefObject } from 'react';
import { useExchangeSettings } from '@repex/shared-ui/platform';
import { formatTokens } from '@repex/shared-ui/ui';
import type { BookPick } from './OrderBook';
import { DEFAULT_AMOUNT, fundsCheck, limitPriceError, maxAmount, orderCost, type Side } from './orderMath';
import { describePlan, figuredPrices, stopLimitPriceError, type OrderKind } from './orderPlan';
import { submitOrder } from './submitOrder';
import { useOrderTerms } from './useOrderTerms';

export interface OrderFormInput {
  tokenId: string;
  tokenName: string;
  price: number;
  cash: number;
  held: number;
  initialSide: Side;
  /** The last price chosen in the order book (a new object for each choice), if any. */
  pick?: BookPick;
}

/**
 * The order form's state and what follows from it: the exchange's fee and limits (followed live,
 * since an admin may change them at any time), the order's cost, what is wrong with it, and
 * placing it. The rules here guide the user; place_order enforces them all again.
 */
export function useOrderForm(
  { tokenId, tokenName, price, cash, held, initialSide, pick }: OrderFormInput,
  /** The panel and its price input, which a price chosen in the book brings into view. */
  refs: PanelRefs,
) {
  const [side, setSide] = useState<Side>(initialSide);
  const [type, setType] = useState<OrderKind>('market');
  const [amount, setAmount] = useState(DEFAULT_AMOUNT);
  const [limitText, setLimitText] = useState(price.toFixed(2));
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  usePick(pick, busy, refs, (p) => {
    setSide(p.side);
    setType('limit');
    setLimitText(p.price.toFixed(2));
    setConfirming(false);
  });

  const settings = useExchangeSettings().data;
  const feeBps = settings?.fee_bps;
  const terms = useOrderTerms(type, side, price, settings?.max_price);
  const hasLimit = type === 'limit' || (type === 'stop' && terms.stopType === 'limit');
  const limitError = hasLimit ? limitPriceError(limitText, settings?.max_price) : null;
  const stopLimitError =
    type === 'stop' && hasLimit && !limitError && !terms.stopError
      ? stopLimitPriceError(side, Number(limitText), terms.stopPrice!)
      : null;
  const { effectivePrice, reservePrice } = figuredPrices({
    price,
    limit: hasLimit && !limitError ? Number(limitText) : undefined,
    stop: type === 'stop' && !terms.stopError ? terms.stopPrice : undefined,
    buyStopMarket: type === 'stop' && !hasLimit && side === 'buy',
    bandBps: settings?.market_band_bps,
  });
  const max = feeBps === undefined ? 0 : maxAmount(side, cash, reservePrice, held, feeBps);
  const cost = orderCost(effectivePrice, amount, feeBps ?? 0);
  const reserve = orderCost(reservePrice, amount, feeBps ?? 0).total;
  const minimum = settings?.min_order_amount ?? 1;
  const amountError =
    amount < 1 ? 'Enter at least 1 token.' : amount < minimum ? `The minimum order is ${formatTokens(minimum)}.` : null;
  const funds =
    feeBps === undefined || amountError || limitError || terms.termsError
      ? null
      : fundsCheck({ side, type: type === 'market' ? 'market' : 'limit', amount, max, total: reserve, cash, held });
  const plan = describePlan({
    side,
    kind: type,
    amount,
    tokenName,
    limitPrice: Number(limitText),
    stopPrice: terms.stopPrice,
    stopType: terms.stopType,
    takeProfit: terms.takeProfit,
    tif: terms.tif,
    expiresAt: terms.expiresAt,
    postOnly: terms.postOnly,
  });

  const place = async () => {
    setBusy(true);
    try {
      await submitOrder({
        tokenId,
        tokenName,
        side,
        type,
        amount,
        limit: hasLimit ? Number(limitText) : undefined,
        terms,
        plan,
      });
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  };

  return {
    side,
    setSide,
    type,
    setType,
    amount,
    setAmount,
    limitText,
    setLimitText,
    confirming,
    setConfirming,
    busy,
    marketBandBps: settings?.market_band_bps,
    feeBps,
    limitError: limitError ?? stopLimitError,
    terms,
    plan,
    hasLimit,
    effectivePrice,
    reserve,
    max,
    ...cost,
    amountError,
    funds,
    ready:
      !amountError &&
      !limitError &&
      !stopLimitError &&
      !terms.termsError &&
      feeBps !== undefined &&
      !(funds && 'error' in funds),
    place,
  };
}

export type OrderForm = ReturnType<typeof useOrderForm>;

export interface PanelRefs {
  card: RefObject<HTMLElement | null>;
  limitInput: RefObject<HTMLInputElement | null>;
}

/**
 * A price chosen in the book: applied to the form (unless an order is being placed), the panel's
 * head brought into the upper half of the view (on a phone it is above the book), and the price
 * focused for keyboard and mouse users (a touch screen keeps its keyboard closed).
 */
function usePick(
  pick: BookPick | undefined,
  busy: boolean,
  { card, limitInput }: PanelRefs,
  apply: (pick: BookPick) => void,
) {
  const [seenPick, setSeenPick] = useState(pick);
  const [picks, setPicks] = useState(0);
  if (pick !== seenPick) {
    setSeenPick(pick);
    if (pick && !busy) {
      apply(pick);
      setPicks(picks + 1);
    }
  }
  useEffect(() => {
    if (picks === 0) return;
    const head = card.current?.getBoundingClientRect().top ?? 0;
    const covered = parseFloat(getComputedStyle(document.documentElement).scrollPaddingTop) || 0;
    if (head < covered || head > window.innerHeight / 2) card.current?.scrollIntoView?.({ block: 'start' });
    if (window.matchMedia?.('(pointer: fine)').matches) limitInput.current?.focus({ preventScroll: true });
  }, [picks, card, limitInput]);
}
