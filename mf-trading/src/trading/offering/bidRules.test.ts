import { readBid } from './bidRules';

describe('readBid', () => {
  it('prices a typed bid with the offering fee, and says what is typed wrong', () => {
    expect(readBid('10.50', '100', 200)).toMatchObject({
      price: 10.5,
      amount: 100,
      cost: { value: 1050, fee: 21, total: 1071 },
      error: null,
    });
    expect(readBid('10.001', '100', 200).error).toBe('The bid price has at most two decimals (step 0.01).');
    expect(readBid('10', '0', 200).error).toBe('Enter at least 1 token.');
    expect(readBid('10', '', 200).error).toBe('Enter a whole number of tokens, at least 1.');
    expect(readBid('10', '2.5', 200).error).toBe('Tokens are whole: enter 2 or 3 (not 2.5).');
    expect(readBid('1000001', '1', 200, 1_000_000).error).toBe('The bid price cannot exceed $1,000,000.00.');
  });
});
