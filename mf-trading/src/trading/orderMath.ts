import { roundTo } from '@repex/shared-ui';

/** The order panel's rules, spec sections 4, 5 and 9. */
export const FEE_RATE = 0.02;
export const AMOUNT_STEP = 10;
export const AMOUNT_MIN = 1;
export const DEFAULT_AMOUNT = 100;
export const SHORTCUTS = [25, 50, 75, 100] as const;

export type Side = 'buy' | 'sell';
export type OrderType = 'market' | 'limit';

const cents = (n: number) => roundTo(n, 2);

/** A typed amount: whole tokens; anything that is not a number becomes 0. */
export function parseAmount(text: string): number {
  const n = Number.parseInt(text, 10);
  return Number.isFinite(n) && n > 0 ? n : 0;
}

export const increment = (amount: number) => amount + AMOUNT_STEP;
/** Minus never goes below 1. */
export const decrement = (amount: number) => Math.max(AMOUNT_MIN, amount - AMOUNT_STEP);

/**
 * Buy: the most tokens whose total (value + fee) the cash pays for, so 100% can always be placed
 * (a decided departure from spec section 5, which divided by the price alone). Sell: the tokens held.
 */
export function maxAmount(side: Side, cash: number, price: number, held: number): number {
  if (side === 'sell') return Math.max(0, Math.floor(held));
  if (!(price > 0) || !(cash > 0)) return 0;
  let n = Math.floor(cash / (price * (1 + FEE_RATE)));
  while (n > 0 && orderCost(price, n).total > cash) n--;
  while (orderCost(price, n + 1).total <= cash) n++;
  return n;
}

/** A 25/50/75/100% shortcut: that share of the maximum, rounded down. */
export function shortcutAmount(percent: number, max: number): number {
  return Math.floor((max * percent) / 100);
}

/** Value = price x tokens; fee = 2% of value; total = value + fee. */
export function orderCost(price: number, amount: number): { value: number; fee: number; total: number } {
  const value = cents(price * amount);
  const fee = cents(value * FEE_RATE);
  return { value, fee, total: cents(value + fee) };
}

/** A limit price: a number above 0 with at most two decimals. */
export function limitPriceError(text: string): string | null {
  if (text.trim() === '') return 'Enter a limit price.';
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) return 'The limit price must be above $0.00.';
  if (!/^\d+(\.\d{1,2})?$/.test(text.trim())) return 'The limit price has at most two decimals (step 0.01).';
  return null;
}
