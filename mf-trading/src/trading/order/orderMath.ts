import { formatPrice } from '@repex/shared-ui/ui';

/**
 * The order panel's rules, spec sections 4, 5 and 9. The fee is not one of them: it is the
 * exchange's setting (exchange_settings.fee_bps), read from the database and passed in.
 */
const AMOUNT_STEP = 10;
const AMOUNT_MIN = 1;
export const SHORTCUTS = [25, 50, 75, 100] as const;

export type Side = 'buy' | 'sell';

/**
 * A typed amount of tokens, as typed: never changed into another number. Tokens are whole, so
 * "1.5" and "-5" are errors, said beside the field, and count as 0 (spec section 5: a typed
 * non-number is 0). An empty field is no amount yet, not an error.
 */
export function readAmount(text: string): { amount: number; error: string | null } {
  const t = text.trim();
  if (t === '') return { amount: 0, error: null };
  if (/^\d+$/.test(t)) {
    const n = Number(t);
    return n >= AMOUNT_MIN ? { amount: n, error: null } : { amount: 0, error: 'Enter at least 1 token.' };
  }
  if (/^-/.test(t)) return { amount: 0, error: 'The amount cannot be negative: enter a whole number of tokens.' };
  if (/^\d*[.,]\d*$/.test(t)) {
    const whole = Math.floor(Number(t.replace(',', '.')));
    return {
      amount: 0,
      error: `Tokens are whole: enter ${whole >= 1 ? `${whole} or ${whole + 1}` : '1 or more'} (not ${t}).`,
    };
  }
  return { amount: 0, error: 'Enter the number of tokens in digits, such as 10.' };
}

/** A sum to spend in dollars ("spend $50"): above $0.00, at most two decimals. */
export function readSpend(text: string): { spend: number; error: string | null } {
  const t = text.trim().replace(/^\$/, '').replace(/,/g, '');
  if (t === '') return { spend: 0, error: null };
  if (!/^\d+(\.\d{1,2})?$/.test(t)) return { spend: 0, error: 'Enter a sum in dollars, such as 50 or 49.99.' };
  const n = Number(t);
  return n > 0 ? { spend: n, error: null } : { spend: 0, error: 'Enter a sum above $0.00.' };
}

export const increment = (amount: number) => amount + AMOUNT_STEP;
/** Minus never goes below 1. */
export const decrement = (amount: number) => Math.max(AMOUNT_MIN, amount - AMOUNT_STEP);

/**
 * Buy: the most tokens whose total (value + fee) the cash pays for, so 100% can always be placed
 * (a decided departure from spec section 5, which divided by the price alone). Sell: the tokens held.
 */
export function maxAmount(side: Side, cash: number, price: number, held: number, feeBps: number): number {
  if (side === 'sell') return Math.max(0, Math.floor(held));
  if (!(price > 0) || !(cash > 0)) return 0;
  let n = Math.floor(cash / (price * (1 + feeBps / 10_000)));
  while (n > 0 && orderCost(price, n, feeBps).total > cash) n--;
  while (orderCost(price, n + 1, feeBps).total <= cash) n++;
  return n;
}

/** A 25/50/75/100% shortcut: that share of the maximum, rounded down. */
export function shortcutAmount(percent: number, max: number): number {
  return Math.floor((max * percent) / 100);
}

/**
 * Value = price x tokens; fee = feeBps of value, rounded half up to the cent, as the database
 * rounds it; a buyer pays value + fee, a seller receives value - fee. In whole cents, so no binary
 * fraction can round a fee the other way.
 */
export function orderCost(
  price: number,
  amount: number,
  feeBps: number,
): { value: number; fee: number; total: number; proceeds: number } {
  const valueCents = Math.round(price * 100) * amount;
  const feeCents = Math.floor((valueCents * feeBps + 5_000) / 10_000);
  return {
    value: valueCents / 100,
    fee: feeCents / 100,
    total: (valueCents + feeCents) / 100,
    proceeds: (valueCents - feeCents) / 100,
  };
}

/** The fee in percent as people write it: 200 bps is '2%', 150 is '1.5%'. */
export const feePercent = (feeBps: number) => `${Number((feeBps / 100).toFixed(2))}%`;

/**
 * A limit price (or, named by `what`, a trigger or take-profit price): a number above 0 with at most
 * two decimals, not above the exchange's `maxPrice`.
 */
export function limitPriceError(text: string, maxPrice?: number, what = 'limit price'): string | null {
  if (text.trim() === '') return `Enter a ${what}.`;
  const n = Number(text);
  const The = `The ${what}`;
  if (!Number.isFinite(n) || n <= 0) return `${The} must be above $0.00.`;
  if (!/^\d+(\.\d{1,2})?$/.test(text.trim())) return `${The} has at most two decimals (step 0.01).`;
  if (maxPrice !== undefined && n > maxPrice) return `${The} cannot exceed ${formatPrice(maxPrice)}.`;
  return null;
}

/** What the user lacks for a side at all, said before any amount is typed; null when they have some. */
export function lackingFor(side: Side, cash: number, held: number): string | null {
  if (side === 'buy') return cash > 0 ? null : 'You have no cash to buy with: deposit some in your Wallet first.';
  return held > 0 ? null : 'You hold none of these tokens to sell.';
}
