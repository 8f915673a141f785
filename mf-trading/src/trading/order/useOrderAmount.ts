import { useState } from 'react';
import { formatTokens } from '@repex/shared-ui/ui';
import { readAmount, readSpend, type Side } from './orderMath';
import type { OrderKind } from './orderPlan';

/** How a buy at market is sized: in tokens, or as a sum to spend ("spend $50"). */
export type AmountUnit = 'tokens' | 'usd';

/**
 * The order's size as typed: whole tokens, or for a buy at market a sum to spend; each kept as
 * typed, with what is wrong with it (the exchange's minimum order included).
 */
export function useOrderAmount(side: Side, type: OrderKind, minimum: number) {
  const [amountText, setAmountText] = useState('');
  const [spendText, setSpendText] = useState('');
  const [chosenUnit, setUnit] = useState<AmountUnit>('tokens');
  // Spending a sum is a market buy's way of sizing; any other order is in tokens.
  const unit: AmountUnit = side === 'buy' && type === 'market' ? chosenUnit : 'tokens';
  const typed = readAmount(amountText);
  const spent = readSpend(spendText);
  const amountError =
    unit === 'usd'
      ? spent.error
      : (typed.error ??
        (typed.amount > 0 && typed.amount < minimum ? `The minimum order is ${formatTokens(minimum)}.` : null));
  return {
    unit,
    setUnit,
    amountText,
    setAmountText,
    spendText,
    setSpendText,
    tokens: typed.amount,
    /** The sum to spend, when the order is sized in dollars. */
    spend: unit === 'usd' ? spent.spend : undefined,
    amountError,
    clear: () => {
      setAmountText('');
      setSpendText('');
    },
  };
}
