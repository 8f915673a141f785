import type { OrderQuote } from '@repex/shared-ui/contracts';
import { bandNote, fillRange, fillSentence, limitWarning, marketError, marketNote } from './quoteWords';

/** A quote as quote_order answers it, at a last price of $45.20 with a 20% band and a 2% fee. */
const quote = (q: Partial<OrderQuote>): OrderQuote => ({
  filled: 0,
  value: 0,
  fee: 0,
  total: 0,
  average_price: null,
  best_price: null,
  worst_price: null,
  levels: [],
  remaining: 0,
  stopped_by: 'filled',
  resting: 0,
  rest_value: 0,
  rest_fee: 0,
  at_trigger: null,
  last_price: 45.2,
  band_bps: 2000,
  band_edge: 54.24,
  impact_bps: null,
  band_beyond: null,
  band_reference: null,
  volatility_band_bps: 2000,
  best_bid: 45.1,
  best_ask: 45.38,
  fee_bps: 200,
  cash: 2450,
  held: 500,
  blocked: null,
  term_refusal: null,
  refusal: null,
  ...q,
});

describe('what the panel says of a quote', () => {
  it('says an order that meets the volatility band pauses the token, and what becomes of its rest', () => {
    const met = quote({
      stopped_by: 'band',
      filled: 10,
      remaining: 5,
      best_price: 45.38,
      worst_price: 52,
      band_beyond: 56,
      band_reference: 45,
    });
    expect(bandNote(met, 'Sarah Chen', true)).toBe(
      'At $56.00 this order would move Sarah Chen more than 20% from its reference price of $45.00. It trades 10 tokens at $45.38 to $52.00; then Sarah Chen pauses for a volatility auction, and the other 5 tokens wait at your limit and join the auction.',
    );
    expect(bandNote({ ...met, filled: 0, remaining: 15 }, 'Sarah Chen', false)).toBe(
      'At $56.00 this order would move Sarah Chen more than 20% from its reference price of $45.00. Nothing trades at once: Sarah Chen pauses for a volatility auction, and its 15 tokens are cancelled: only limit orders join an auction.',
    );
    expect(marketError('buy', { ...met, filled: 0 }, false)).toBeNull();
    expect(bandNote(quote({ stopped_by: 'limit' }), 'Sarah Chen', true)).toBeNull();
  });
  it('names the prices an order meets', () => {
    expect(fillRange(quote({ best_price: 45.38, worst_price: 45.38 }))).toBe('$45.38');
    expect(fillRange(quote({ best_price: 45.38, worst_price: 45.9 }))).toBe('$45.38 to $45.90');
    expect(fillRange(quote({}))).toBe('');
  });

  it('a market order that cannot trade says why, in the engine terms', () => {
    expect(marketError('buy', quote({ stopped_by: 'cash' }), false)).toBe(
      'Not enough cash for one token at $45.38 with the fee.',
    );
    expect(marketError('buy', quote({ stopped_by: 'cash' }), true)).toBe(
      'That sum buys no whole token at $45.38 with the 2% fee.',
    );
    expect(marketError('sell', quote({ stopped_by: 'limit' }), false)).toMatch(
      /^No buy order is within 20% of the last price \(\$45\.20\)/,
    );
    expect(marketError('sell', quote({ stopped_by: 'book' }), false)).toBe(
      'There are no buy orders right now. Place a limit order to wait for a buyer.',
    );
    expect(marketError('buy', quote({ filled: 1 }), false)).toBeNull();
  });

  it('a market order that fills in part says what it buys and why the rest is cancelled', () => {
    expect(marketNote('buy', quote({ filled: 53, remaining: 47, total: 2_449.1, stopped_by: 'cash' }))).toBe(
      'Your cash covers 53 tokens: this order buys 53 tokens for $2,449.10 and cancels the rest.',
    );
    expect(marketNote('sell', quote({ filled: 3, remaining: 2, total: 130, stopped_by: 'book' }))).toBe(
      'Only 3 tokens are bid for right now: this order sells 3 tokens for $130.00 and cancels the rest.',
    );
    expect(marketNote('buy', quote({ filled: 5, remaining: 0 }))).toBeNull();
  });

  it('warns of a limit beyond the band: through the book it trades at the book, and what waits is anyone’s', () => {
    const through = quote({ filled: 10, best_price: 45.1, worst_price: 44.8, resting: 5 });
    expect(limitWarning('sell', 1, through)).toBe(
      "Check your limit: $1.00 is 97.79% below the last price ($45.20). It sells 10 tokens at once at the book's prices ($45.10 to $44.80), not at your limit. The other 5 tokens wait at $1.00, where anyone may buy them.",
    );
    expect(limitWarning('buy', 30, quote({}))).toBe(
      'Your limit of $30.00 is 33.63% below the last price ($45.20): it trades only if the price falls that far.',
    );
    expect(limitWarning('buy', 46, quote({}))).toBeNull();
    expect(limitWarning('sell', 40, quote({}))).toBeNull();
  });

  it('the confirmation says what fills at once, at which prices, and what waits', () => {
    expect(
      fillSentence(quote({ filled: 10, best_price: 45.1, worst_price: 44.8, average_price: 44.95, resting: 5 }), 1),
    ).toBe('10 tokens fill at once at $45.10 to $44.80 (average $44.95); 5 tokens wait on the book at $1.00.');
    expect(fillSentence(quote({ filled: 4, best_price: 45.38, worst_price: 45.38, remaining: 6 }))).toBe(
      '4 tokens fill at once at $45.38; the other 6 tokens are cancelled.',
    );
  });
});
