import { useEffect, useState, type RefObject } from 'react';
import { useExchangeSettings } from '@repex/shared-ui/platform';
import type { BookLevel } from '../data';
import type { BookPick } from '../book/OrderBook';
import { lackingFor, limitPriceError, maxAmount, type Side } from './orderMath';
import { describePlan, describeSpend, type OrderKind } from './orderPlan';
import { submitOrder } from './submitOrder';
import { useOrderTerms } from './useOrderTerms';
import { useOrderAmount } from './useOrderAmount';
import { useOrderEstimate } from './useOrderEstimate';

export interface OrderFormInput {
  tokenId: string;
  tokenName: string;
  price: number;
  cash: number;
  held: number;
  initialSide: Side;
  /** The token's book as the screen holds it: a new value when it changes, so the quote is asked again. */
  book?: BookLevel[];
  /**
   * The last choice made outside the panel (a new object for each): a price chosen in the order
   * book, or a side chosen on the phone's Buy/Sell bar.
   */
  pick?: PanelPick;
}

/** A price chosen in the book (a limit order at it), or only a side (the phone's Buy/Sell bar). */
export type PanelPick = BookPick | { side: Side };

/**
 * The order form's state and what follows from it. The order is quoted by the database as the user
 * types (quote_order): an order now by the engine's own walk of the book, a stop at its trigger,
 * each with the engine's own checks of its terms and funds, so the panel's figures and refusals are
 * the engine's. The panel itself checks only what is typed (digits, a date chosen).
 */
export function useOrderForm(
  { tokenId, tokenName, price, cash, held, initialSide, book, pick }: OrderFormInput,
  /** The panel and its price input, which a price chosen in the book brings into view. */
  refs: PanelRefs,
) {
  const [side, setSide] = useState<Side>(initialSide);
  const [type, setType] = useState<OrderKind>('market');
  const [limitText, setLimitText] = useState(price.toFixed(2));
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  usePick(pick, busy, refs, (p) => {
    setSide(p.side);
    if ('price' in p) {
      setType('limit');
      setLimitText(p.price.toFixed(2));
    }
    setConfirming(false);
  });

  const settings = useExchangeSettings().data;
  const feeBps = settings?.fee_bps;
  const terms = useOrderTerms(type, side, settings?.max_price);
  const size = useOrderAmount(side, type, settings?.min_order_amount ?? 1);
  const { amountError } = size;
  const hasLimit = type === 'limit' || (type === 'stop' && terms.stopType === 'limit');
  const typedLimitError = hasLimit ? limitPriceError(limitText, settings?.max_price) : null;
  const limit = hasLimit && !typedLimitError ? Number(limitText) : undefined;
  const estimate = useOrderEstimate(
    {
      tokenId,
      tokenName,
      side,
      type,
      tokens: size.tokens,
      spend: size.spend,
      limit,
      tif: terms.tif,
      expiresAt: terms.expiresAt ?? undefined,
      postOnly: terms.postOnly,
      stop:
        type === 'stop' && !terms.stopError
          ? { price: terms.stopPrice!, type: terms.stopType, takeProfit: terms.takeProfit ?? undefined }
          : undefined,
      invalid: !!(amountError || terms.takeProfitError || terms.expiresError),
    },
    book,
    settings,
  );
  const { quote, termError } = estimate;
  const amount = size.spend !== undefined ? (quote?.filled ?? 0) : size.tokens;
  // Each field's error: what is typed wrong, else what the engine refuses of that term.
  const errors = {
    stop: terms.stopError ?? termError('stop_price'),
    takeProfit: terms.takeProfitError ?? termError('take_profit'),
    expires: terms.expiresError ?? termError('expires_at'),
    limit: typedLimitError ?? termError('price'),
  };

  const lacking = lackingFor(side, cash, held);
  const { problem, note } = estimate;
  const funds = lacking ? { error: lacking } : problem ? { error: problem } : note ? { note } : null;

  const plan =
    size.spend !== undefined
      ? describeSpend(size.spend, tokenName, quote)
      : describePlan({ ...terms, side, kind: type, amount, tokenName, limitPrice: Number(limitText) });

  const place = () =>
    placing(setBusy, setConfirming, size.clear, {
      tokenId,
      tokenName,
      side,
      type,
      amount,
      limit: hasLimit ? Number(limitText) : undefined,
      maxTotal: size.spend,
      terms,
      plan,
    });

  return {
    side,
    setSide,
    type,
    setType,
    ...size,
    amount,
    limitText,
    setLimitText,
    confirming,
    setConfirming,
    busy,
    marketBandBps: settings?.market_band_bps,
    feeBps,
    /** What a resting order pays when it fills (maker), where the exchange sets it apart from the taker's fee. */
    makerFeeBps: settings && settings.maker_fee_bps !== settings.fee_bps ? settings.maker_fee_bps : undefined,
    limitError: errors.limit,
    errors,
    limit,
    terms,
    plan,
    hasLimit,
    ...estimate,
    summary: estimate.figures,
    /** The cash a buy stop holds back until it triggers. */
    reserve: quote?.at_trigger?.hold ?? 0,
    max: maxFor({ side, type, cash, held, feeBps, book, at: limit ?? terms.stopPrice ?? price, quote }),
    funds,
    ready:
      amount >= 1 &&
      !Object.values(errors).some(Boolean) &&
      !amountError &&
      feeBps !== undefined &&
      !!quote &&
      !estimate.pending &&
      !(funds && 'error' in funds),
    place,
  };
}

export type OrderForm = ReturnType<typeof useOrderForm>;

/**
 * The most the user can buy or sell, which the 25–100% shortcuts share out: the tokens held for a
 * sell; for a buy, what the cash pays for with the fee, at the best ask for a market order, at the
 * limit for a limit order, and for a stop as the database figures its hold (at the trigger until
 * it answers).
 */
function maxFor(o: {
  side: Side;
  type: OrderKind;
  cash: number;
  held: number;
  feeBps?: number;
  book?: BookLevel[];
  at: number;
  quote: { at_trigger: { max_amount: number } | null } | null;
}) {
  if (o.feeBps === undefined) return 0;
  if (o.type === 'stop' && o.quote?.at_trigger) return o.quote.at_trigger.max_amount;
  const asks = (o.book ?? []).filter((l) => l.side === 'sell').map((l) => l.price);
  const at = o.type === 'market' && asks.length ? Math.min(...asks) : o.at;
  return maxAmount(o.side, o.cash, at, o.held, o.feeBps);
}

/**
 * Sends the order, the panel busy meanwhile; a placed order leaves the panel empty, as it opened,
 * so the next one is typed afresh and never sent twice by mistake.
 */
async function placing(
  setBusy: (busy: boolean) => void,
  setConfirming: (confirming: boolean) => void,
  clear: () => void,
  order: Parameters<typeof submitOrder>[0],
) {
  setBusy(true);
  try {
    if (await submitOrder(order)) clear();
  } finally {
    setBusy(false);
    setConfirming(false);
  }
}

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
  pick: PanelPick | undefined,
  busy: boolean,
  { card, limitInput }: PanelRefs,
  apply: (pick: PanelPick) => void,
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
