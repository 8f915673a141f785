import { useEffect, useState, type RefObject } from 'react';
import { useExchangeSettings } from '@repex/shared-ui/platform';
import { formatPrice, formatTokens } from '@repex/shared-ui/ui';
import type { BookLevel, QuoteRequest } from './data';
import type { BookPick } from './OrderBook';
import { fundsCheck, limitPriceError, maxAmount, orderCost, readAmount, readSpend, type Side } from './orderMath';
import { describePlan, figuredPrices, stopLimitPriceError, type OrderKind } from './orderPlan';
import { limitWarning, marketError, marketNote } from './quoteWords';
import { submitOrder } from './submitOrder';
import { useOrderTerms } from './useOrderTerms';
import { useQuote } from './useQuote';

export interface OrderFormInput {
  tokenId: string;
  tokenName: string;
  price: number;
  cash: number;
  held: number;
  initialSide: Side;
  /** The token's book as the screen holds it: a new value when it changes, so the quote is asked again. */
  book?: BookLevel[];
  /** The last price chosen in the order book (a new object for each choice), if any. */
  pick?: BookPick;
}

/** How a buy at market is sized: in tokens, or as a sum to spend ("spend $50"). */
export type AmountUnit = 'tokens' | 'usd';

/**
 * The order form's state and what follows from it. An order now (at market or at a limit) is
 * estimated by the database's own walk of the book (quote_order, asked as the user types), so the
 * panel's figures are the engine's; a stop, which trades later, is figured at its trigger. The
 * rules here guide the user; place_order enforces them all again.
 */
export function useOrderForm(
  { tokenId, tokenName, price, cash, held, initialSide, book, pick }: OrderFormInput,
  /** The panel and its price input, which a price chosen in the book brings into view. */
  refs: PanelRefs,
) {
  const [side, setSide] = useState<Side>(initialSide);
  const [type, setType] = useState<OrderKind>('market');
  const [amountText, setAmountText] = useState('');
  const [chosenUnit, setUnit] = useState<AmountUnit>('tokens');
  const [spendText, setSpendText] = useState('');
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
  // Spending a sum is a market buy's way of sizing; any other order is in tokens.
  const unit: AmountUnit = side === 'buy' && type === 'market' ? chosenUnit : 'tokens';
  const typed = readAmount(amountText);
  const spent = readSpend(spendText);
  const hasLimit = type === 'limit' || (type === 'stop' && terms.stopType === 'limit');
  const limitError = hasLimit ? limitPriceError(limitText, settings?.max_price) : null;
  const limit = hasLimit && !limitError ? Number(limitText) : undefined;
  const stopLimitError =
    type === 'stop' && hasLimit && !limitError && !terms.stopError
      ? stopLimitPriceError(side, Number(limitText), terms.stopPrice!)
      : null;
  const minimum = settings?.min_order_amount ?? 1;
  const amountError =
    unit === 'usd'
      ? spent.error
      : (typed.error ??
        (typed.amount > 0 && typed.amount < minimum ? `The minimum order is ${formatTokens(minimum)}.` : null));

  // The order now, as the database is asked to walk it.
  const request: QuoteRequest | null =
    type === 'stop' || amountError || (type === 'limit' && limit === undefined)
      ? null
      : unit === 'usd'
        ? spent.spend > 0
          ? { tokenId, side: 'buy', type: 'market', maxTotal: spent.spend }
          : null
        : typed.amount > 0
          ? { tokenId, side, type, amount: typed.amount, price: limit, tif: type === 'limit' ? terms.tif : undefined }
          : null;
  const { quote, pending, error: quoteError } = useQuote(request, book);
  const amount = unit === 'usd' ? (quote?.filled ?? 0) : typed.amount;

  // A stop is figured at its trigger (or its limit): it trades later, on a book not yet known.
  const { effectivePrice, reservePrice } = figuredPrices({
    price,
    limit,
    stop: type === 'stop' && !terms.stopError ? terms.stopPrice : undefined,
    buyStopMarket: type === 'stop' && !hasLimit && side === 'buy',
    bandBps: settings?.market_band_bps,
  });
  const bestAsk = book?.filter((l) => l.side === 'sell').reduce((m, l) => Math.min(m, l.price), Infinity);
  const maxAt = type === 'market' && bestAsk !== undefined && bestAsk < Infinity ? bestAsk : reservePrice;
  const max = feeBps === undefined ? 0 : maxAmount(side, cash, maxAt, held, feeBps);
  const summary =
    type === 'stop'
      ? { price: effectivePrice, ...orderCost(effectivePrice, amount, feeBps ?? 0) }
      : quote && {
          price: type === 'limit' ? limit! : quote.average_price,
          ...totals(quote.value + quote.rest_value, quote.fee + quote.rest_fee),
        };
  const reserve = orderCost(reservePrice, amount, feeBps ?? 0).total;

  // What holds the button (an error) or explains the order (a note), from the quote once it answers.
  const problem =
    quoteError ??
    (quote && (quote.blocked ?? quote.refusal ?? (type === 'market' ? marketError(side, quote, unit === 'usd') : null)));
  const note = quote && type === 'market' && unit === 'tokens' ? marketNote(side, quote) : null;
  const warning = quote && type === 'limit' && limit !== undefined ? limitWarning(side, limit, quote) : null;
  const stopFunds =
    type !== 'stop' || feeBps === undefined || amount < 1 || terms.termsError || limitError
      ? null
      : fundsCheck({ side, type: hasLimit ? 'limit' : 'market', amount, max, total: reserve, cash, held });
  const funds = stopFunds ?? (problem ? { error: problem } : note ? { note } : null);

  const plan =
    unit === 'usd'
      ? `Spend up to ${spent.spend > 0 ? formatPrice(spent.spend) : 'the sum you enter'} on ${tokenName} tokens at the best prices: the whole tokens it covers${quote && quote.filled > 0 ? ` (${formatTokens(quote.filled)} now, ${formatPrice(quote.total)} with the fee)` : ''}. The rest stays cash.`
      : describePlan({
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
        maxTotal: unit === 'usd' ? spent.spend : undefined,
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
    unit,
    setUnit,
    amountText,
    setAmountText,
    spendText,
    setSpendText,
    amount,
    limitText,
    setLimitText,
    confirming,
    setConfirming,
    busy,
    marketBandBps: settings?.market_band_bps,
    feeBps,
    limitError: limitError ?? stopLimitError,
    limit,
    terms,
    plan,
    hasLimit,
    quote,
    pending,
    summary,
    reserve,
    max,
    amountError,
    funds,
    warning,
    ready:
      amount >= 1 &&
      !amountError &&
      !limitError &&
      !stopLimitError &&
      !terms.termsError &&
      feeBps !== undefined &&
      (type === 'stop' || (!!quote && !pending)) &&
      !(funds && 'error' in funds),
    place,
  };
}

/** An order's value and fee, and what they come to for each side. */
const totals = (value: number, fee: number) => ({
  value,
  fee,
  total: Math.round((value + fee) * 100) / 100,
  proceeds: Math.round((value - fee) * 100) / 100,
});

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
