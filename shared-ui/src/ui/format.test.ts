import {
  formatChange,
  formatDay,
  formatSignedPrice,
  formatCount,
  formatCountdown,
  formatInteger,
  formatLevel,
  formatMoney,
  formatNumber,
  formatPrice,
  formatShare,
  formatSignedMoney,
  formatTokens,
} from './format';

describe('formatNumber (spec section 9)', () => {
  it.each([
    [0, '0.00'],
    [0.004, '0.00'],
    [12.5, '12.50'],
    [999.99, '999.99'],
    [999.994, '999.99'],
    [999.995, '1K'],
    [1_000, '1K'],
    [1_499, '1K'],
    [1_500, '2K'],
    [245_000, '245K'],
    [999_499, '999K'],
    [999_999, '1.0M'],
    [1_000_000, '1.0M'],
    [2_450_000, '2.5M'],
    [1_234_567_890, '1234.6M'],
    [-0.001, '0.00'],
    [-12.5, '-12.50'],
    [-1_500, '-2K'],
    [-2_450_000, '-2.5M'],
  ])('%p -> %p', (input, expected) => {
    expect(formatNumber(input)).toBe(expected);
  });

  it('shows a dash for values that are not numbers', () => {
    expect(formatNumber(Number.NaN)).toBe('—');
  });
});

describe('formatMoney', () => {
  it.each([
    [0, '$0.00'],
    [2_450, '$2K'],
    [999.995, '$1K'],
    [1_000_000, '$1.0M'],
    [-1_000, '-$1K'],
    [-5.5, '-$5.50'],
  ])('%p -> %p', (input, expected) => {
    expect(formatMoney(input)).toBe(expected);
  });
});

describe('formatPrice and formatChange', () => {
  it('prices keep two decimals in full', () => {
    expect(formatPrice(45.2)).toBe('$45.20');
    expect(formatPrice(1_234.567)).toBe('$1,234.57');
    expect(formatPrice(0)).toBe('$0.00');
  });
  it('changes have one decimal and a sign', () => {
    expect(formatChange(5.25)).toBe('+5.3%');
    expect(formatChange(-3.14)).toBe('-3.1%');
    expect(formatChange(0)).toBe('0.0%');
    expect(formatChange(-0.04)).toBe('0.0%');
  });
  it('integers get separators', () => {
    expect(formatInteger(12_450)).toBe('12,450');
  });
  it('index levels keep two decimals with separators and no currency; shares are percents of one', () => {
    expect(formatLevel(1026.575)).toBe('1,026.58');
    expect(formatLevel(1000)).toBe('1,000.00');
    expect(formatShare(0.25)).toBe('25.0%');
    expect(formatShare(0.08695)).toBe('8.7%');
  });
});

describe('formatSignedMoney', () => {
  it('signs gains, keeps the minus of losses, no sign on zero', () => {
    expect([1234, 12.5, -30, 0, 0.001].map(formatSignedMoney)).toEqual([
      '+$1K',
      '+$12.50',
      '-$30.00',
      '$0.00',
      '$0.00',
    ]);
  });
});

describe('formatTokens', () => {
  it('says one token and many tokens', () => {
    expect([
      formatTokens(1, 'Sarah Chen'),
      formatTokens(20, 'Sarah Chen'),
      formatTokens(1500),
      formatTokens(0),
    ]).toEqual(['1 Sarah Chen token', '20 Sarah Chen tokens', '1,500 tokens', '0 tokens']);
  });
});

describe('formatCount', () => {
  it('says one thing and many things, with thousands separators and an irregular plural', () => {
    expect([
      formatCount(1, 'trade'),
      formatCount(0, 'trade'),
      formatCount(1204, 'token application'),
      formatCount(1, 'suspicious pattern'),
      formatCount(2, 'person', 'people'),
    ]).toEqual(['1 trade', '0 trades', '1,204 token applications', '1 suspicious pattern', '2 people']);
  });
});

describe('formatDay', () => {
  it('writes a calendar date as it is, whatever the time zone', () => {
    expect(formatDay('2026-11-27')).toBe('Nov 27, 2026');
    expect(formatDay('2027-02-28')).toBe('Feb 28, 2027');
  });
});

describe('formatSignedPrice', () => {
  it('writes a gain or loss in full, with its sign', () => {
    expect(formatSignedPrice(1234.561)).toBe('+$1,234.56');
    expect(formatSignedPrice(-30)).toBe('-$30.00');
    expect(formatSignedPrice(0.001)).toBe('$0.00');
  });
});

describe('formatCountdown', () => {
  it('says what is left, to the second under a day, and never less than nothing', () => {
    expect(formatCountdown(2 * 86_400_000 + 3 * 3_600_000 + 4 * 60_000 + 5_000)).toBe('2d 03h 04m');
    expect(formatCountdown(23 * 3_600_000 + 4 * 60_000 + 9_999)).toBe('23h 04m 09s');
    expect(formatCountdown(4 * 60_000 + 9_000)).toBe('4m 09s');
    expect(formatCountdown(9_000)).toBe('9s');
    expect(formatCountdown(-5_000)).toBe('0s');
  });
});
