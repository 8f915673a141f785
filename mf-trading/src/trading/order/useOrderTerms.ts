import { useState } from 'react';
import type { TimeInForce } from '@repex/shared-ui/contracts';
import { limitPriceError, type Side } from './orderMath';
import { timesInForce, type OrderKind } from './orderPlan';

/**
 * The order's terms beyond side, amount and limit: a stop's trigger and what it becomes, a sell
 * stop's take-profit, how long the order lives and post-only; each with what is wrong with its
 * form (a price's digits, a date not chosen). Whether the terms hold against the market (a trigger
 * on the wrong side of the last price, an expiry beyond 90 days) is the database's to say: the
 * quote runs the engine's own checks (useOrderEstimate).
 */
export function useOrderTerms(kind: OrderKind, side: Side, maxPrice?: number) {
  const [stopText, setStopText] = useState('');
  const [stopType, setStopType] = useState<'market' | 'limit'>('market');
  const [takeProfitOn, setTakeProfitOn] = useState(false);
  const [takeProfitText, setTakeProfitText] = useState('');
  const [chosenTif, setTif] = useState<TimeInForce>('gtc');
  const [expiresText, setExpiresText] = useState('');
  const [chosenPostOnly, setPostOnly] = useState(false);

  const pair = kind === 'stop' && side === 'sell' && takeProfitOn;
  const allowed = timesInForce(kind, stopType, pair);
  // A choice the order cannot take (IOC on a stop-market, say) falls back to the default.
  const tif: TimeInForce = allowed.includes(chosenTif) ? chosenTif : allowed[0]!;
  const postOnly = kind === 'limit' && (tif === 'gtc' || tif === 'gtd') && chosenPostOnly;
  const stopPrice = Number(stopText);
  const takeProfit = pair ? Number(takeProfitText) : null;
  const expiresAt = tif === 'gtd' && expiresText ? new Date(expiresText) : null;

  const stopError = kind === 'stop' ? limitPriceError(stopText, maxPrice, 'trigger price') : null;
  const takeProfitError = pair ? limitPriceError(takeProfitText, maxPrice, 'take-profit price') : null;
  const expiresError =
    tif === 'gtd' && !(expiresAt && !Number.isNaN(expiresAt.getTime()))
      ? 'Choose the date and time the order expires.'
      : null;

  return {
    stopText,
    setStopText,
    stopType,
    setStopType,
    stopPrice: kind === 'stop' ? stopPrice : undefined,
    takeProfitOn,
    setTakeProfitOn,
    takeProfitText,
    setTakeProfitText,
    takeProfit,
    pair,
    allowedTif: allowed,
    tif,
    setTif,
    expiresText,
    setExpiresText,
    expiresAt,
    postOnly,
    setPostOnly,
    stopError,
    takeProfitError,
    expiresError,
  };
}

export type OrderTermsState = ReturnType<typeof useOrderTerms>;
