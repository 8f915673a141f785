import { checkBid } from './bidRules';

const terms = { reserve_price: 10, account_cap: 400, fee_bps: 200 };

describe('checkBid', () => {
  it('prices a bid with the offering fee, and holds it to the issue price, the cap and the cash', () => {
    expect(checkBid('10.50', '100', terms, 5000)).toMatchObject({
      price: 10.5,
      amount: 100,
      cost: { value: 1050, fee: 21, total: 1071 },
      error: null,
    });
    expect(checkBid('9.99', '100', terms, 5000).error).toBe('Bids start at the issue price, $10.00.');
    expect(checkBid('10.001', '100', terms, 5000).error).toBe('The bid price has at most two decimals (step 0.01).');
    expect(checkBid('10', '401', terms, 1e6).error).toBe(
      'One account may bid for at most 400 tokens in this offering.',
    );
    expect(checkBid('10', '0', terms, 5000).error).toBe('Enter at least 1 token.');
    expect(checkBid('10', '', terms, 5000).error).toBe('Enter a whole number of tokens, at least 1.');
    expect(checkBid('10', '2.5', terms, 5000).error).toBe('Tokens are whole: enter 2 or 3 (not 2.5).');
    expect(checkBid('12', '400', terms, 4000).error).toBe(
      'Insufficient funds: this bid needs $4,896.00 and you have $4,000.00 available.',
    );
    // At the edge: the whole cost, fee included, is what counts.
    expect(checkBid('10', '100', terms, 1020).error).toBeNull();
    expect(checkBid('10', '100', terms, 1019.99).error).not.toBeNull();
  });
});
