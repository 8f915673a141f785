import type { OrderResult } from '../../contracts/results';
import { describeResult } from './orderResult';

const base: OrderResult = {
  order_id: 1,
  status: 'filled',
  side: 'buy',
  type: 'market',
  time_in_force: 'gtc',
  amount: 10,
  filled: 10,
  resting: 0,
  average_price: 45.2,
  total: 461.04,
};

describe('order result toasts', () => {
  it('a filled order says what was bought, at what average and for how much', () => {
    expect(describeResult(base, 'Sarah Chen')).toEqual({
      title: 'Order Filled',
      description: 'Bought 10 Sarah Chen tokens at an average $45.20, total $461.04.',
    });
  });
  it('a resting limit order says it is on the book', () => {
    expect(
      describeResult(
        { ...base, status: 'open', type: 'limit', side: 'sell', filled: 0, resting: 10, average_price: null, total: 0 },
        'Sarah Chen',
        50,
      ),
    ).toEqual({
      title: 'Order Placed',
      description: 'Your limit order to sell 10 Sarah Chen tokens at $50.00 is on the book.',
    });
  });
  it('an order that met the volatility band says the token is paused, until when, and what became of the rest', () => {
    const until = '2026-11-29T14:05:30Z';
    const at = describeResult({ ...base, auction_until: until }, 'Sarah Chen').description;
    expect(at).toMatch(
      /^Bought 10 Sarah Chen tokens at an average \$45\.20, total \$461\.04\. Trading further would have moved Sarah Chen beyond its volatility band, so it is paused for an auction until /,
    );
    const rests = describeResult(
      { ...base, status: 'open', type: 'limit', amount: 15, filled: 10, resting: 5, auction_until: until },
      'Sarah Chen',
      50,
    );
    expect(rests.title).toBe('Volatility Auction');
    expect(rests.description).toMatch(/ The remaining 5 tokens rest at \$50\.00 and join the auction\.$/);
    const market = describeResult(
      { ...base, status: 'cancelled', amount: 1, filled: 0, average_price: null, total: 0, auction_until: until },
      'Sarah Chen',
    );
    expect(market.description).toMatch(
      /^Trading further would have moved Sarah Chen .* The remaining 1 token was cancelled: only limit orders join an auction\.$/,
    );
  });
  it('one token is a token', () => {
    expect(describeResult({ ...base, amount: 1, filled: 1, total: 46.1 }, 'Sarah Chen').description).toBe(
      'Bought 1 Sarah Chen token at an average $45.20, total $46.10.',
    );
  });
  it('a market order that ran out of liquidity or cash says what was cancelled', () => {
    expect(describeResult({ ...base, status: 'cancelled', filled: 9, amount: 100 }, 'X').description).toMatch(
      /The remaining 91 tokens could not be filled at the moment and were cancelled\.$/,
    );
    expect(describeResult({ ...base, status: 'cancelled', filled: 52, amount: 53 }, 'X').description).toMatch(
      /The remaining 1 token could not be filled at the moment and was cancelled\.$/,
    );
  });
  it('a partly filled limit order says how many tokens rest on the book', () => {
    const partly = { ...base, status: 'open' as const, type: 'limit' as const, filled: 4 };
    expect(describeResult({ ...partly, resting: 6 }, 'X', 45).description).toMatch(
      /The remaining 6 tokens rest on the book at \$45\.00\.$/,
    );
    expect(describeResult({ ...partly, resting: 1 }, 'X', 45).description).toMatch(
      /The remaining 1 token rests on the book at \$45\.00\.$/,
    );
  });
});
