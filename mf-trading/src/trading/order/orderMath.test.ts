import {
  decrement,
  feePercent,
  increment,
  limitPriceError,
  maxAmount,
  orderCost,
  readAmount,
  readSpend,
  shortcutAmount,
} from './orderMath';

describe('order panel arithmetic (spec sections 4, 5, 9)', () => {
  it('plus and minus move by 10; minus never goes below 1', () => {
    expect(increment(100)).toBe(110);
    expect(decrement(100)).toBe(90);
    expect(decrement(15)).toBe(5);
    expect(decrement(5)).toBe(1);
    expect(decrement(1)).toBe(1);
    expect(decrement(0)).toBe(1);
  });

  it('a typed amount is kept as typed: whole tokens, or an error that says so, never another number', () => {
    expect(readAmount('')).toEqual({ amount: 0, error: null });
    expect(readAmount('42')).toEqual({ amount: 42, error: null });
    expect(readAmount(' 7 ')).toEqual({ amount: 7, error: null });
    expect(readAmount('1.5')).toEqual({ amount: 0, error: 'Tokens are whole: enter 1 or 2 (not 1.5).' });
    expect(readAmount('1.')).toEqual({ amount: 0, error: 'Tokens are whole: enter 1 or 2 (not 1.).' });
    expect(readAmount('0.5')).toEqual({ amount: 0, error: 'Tokens are whole: enter 1 or more (not 0.5).' });
    expect(readAmount('-5')).toEqual({
      amount: 0,
      error: 'The amount cannot be negative: enter a whole number of tokens.',
    });
    expect(readAmount('0')).toEqual({ amount: 0, error: 'Enter at least 1 token.' });
    expect(readAmount('abc').amount).toBe(0); // spec section 5: a typed non-number is 0
    expect(readAmount('abc').error).toBe('Enter the number of tokens in digits, such as 10.');
    expect(readAmount('1e3').error).not.toBeNull();
  });

  it('a sum to spend is dollars and cents above zero', () => {
    expect(readSpend('')).toEqual({ spend: 0, error: null });
    expect(readSpend('50')).toEqual({ spend: 50, error: null });
    expect(readSpend('$1,250.5')).toEqual({ spend: 1250.5, error: null });
    expect(readSpend('0')).toEqual({ spend: 0, error: 'Enter a sum above $0.00.' });
    expect(readSpend('10.001').error).toBe('Enter a sum in dollars, such as 50 or 49.99.');
    expect(readSpend('-5').error).toBe('Enter a sum in dollars, such as 50 or 49.99.');
  });

  it('buy maximum is what the cash pays for, fee included; sell maximum is the tokens held', () => {
    // At 2%: 53 tokens cost $2,443.64; 54 would cost $2,489.74.
    expect(maxAmount('buy', 2450, 45.2, 500, 200)).toBe(53);
    expect(orderCost(45.2, 53, 200).total).toBeLessThanOrEqual(2450);
    expect(orderCost(45.2, 54, 200).total).toBeGreaterThan(2450);
    expect(maxAmount('buy', 10.2, 10, 0, 200)).toBe(1); // exactly affordable with its fee
    expect(maxAmount('buy', 2450, 45.2, 500, 0)).toBe(54); // no fee: cash / price
    expect(maxAmount('sell', 2450, 45.2, 500, 200)).toBe(500);
    expect(maxAmount('buy', 2450, 0, 500, 200)).toBe(0);
    expect(maxAmount('buy', 0, 45.2, 0, 200)).toBe(0);
  });

  it('shortcuts take 25, 50, 75 or 100% of the maximum, rounded down', () => {
    expect([25, 50, 75, 100].map((p) => shortcutAmount(p, 54))).toEqual([13, 27, 40, 54]);
    expect([25, 50, 75, 100].map((p) => shortcutAmount(p, 500))).toEqual([125, 250, 375, 500]);
    expect(shortcutAmount(25, 3)).toBe(0);
  });

  it('the fee is its basis points of value, rounded half up to the cent; a buyer pays value + fee, a seller receives value - fee', () => {
    expect(orderCost(45.2, 100, 200)).toEqual({ value: 4520, fee: 90.4, total: 4610.4, proceeds: 4429.6 });
    expect(orderCost(0.01, 1, 200)).toEqual({ value: 0.01, fee: 0, total: 0.01, proceeds: 0.01 });
    expect(orderCost(33.33, 3, 200)).toEqual({ value: 99.99, fee: 2, total: 101.99, proceeds: 97.99 });
    // 1.5% of $333.30 is $4.9995: half up to $5.00, where binary floating point would give $4.99.
    expect(orderCost(33.33, 10, 150)).toEqual({ value: 333.3, fee: 5, total: 338.3, proceeds: 328.3 });
    expect(orderCost(0.25, 1, 200).fee).toBe(0.01); // $0.005 rounds up
  });

  it('says the fee as people write it', () => {
    expect([200, 150, 125, 0].map(feePercent)).toEqual(['2%', '1.5%', '1.25%', '0%']);
  });

  it('a limit price is above 0 with step 0.01', () => {
    expect(limitPriceError('45.25')).toBeNull();
    expect(limitPriceError('45')).toBeNull();
    expect(limitPriceError('0')).toMatch(/above/);
    expect(limitPriceError('-1')).toMatch(/above/);
    expect(limitPriceError('45.255')).toMatch(/two decimals/);
    expect(limitPriceError('abc')).toMatch(/above/);
    expect(limitPriceError('')).toMatch(/Enter/);
    expect(limitPriceError('1000000.01', 1_000_000)).toBe('The limit price cannot exceed $1,000,000.00.');
    expect(limitPriceError('1000000', 1_000_000)).toBeNull();
  });
});
