import type { FilledOrder } from './data';
import { fillNotice } from './fillNotice';

const order = (o: Partial<FilledOrder>): FilledOrder => ({
  id: 7,
  side: 'sell',
  price: 45.1,
  amount: 20,
  filled: 20,
  status: 'filled',
  filled_value: 902,
  stop_price: null,
  triggered_at: null,
  tokens: { name: 'Sarah Chen' },
  ...o,
});

describe('the notice of a resting order someone traded against', () => {
  it('says a filled order has filled, in its own terms', () => {
    expect(fillNotice([order({})])).toEqual({
      title: 'Order Filled',
      description: 'Your limit order to sell 20 Sarah Chen tokens at $45.10 has filled.',
    });
  });
  it('says how much of a partly filled order traded and how much still rests', () => {
    expect(fillNotice([order({ side: 'buy', amount: 1500, filled: 1, status: 'open' })])).toEqual({
      title: 'Order Partly Filled',
      description:
        'Your limit order to buy 1,500 Sarah Chen tokens at $45.10: 1 bought so far, 1,499 still on the book.',
    });
  });
  it('says what traded of an order cancelled since', () => {
    expect(fillNotice([order({ amount: 20, filled: 4, status: 'cancelled' })])).toEqual({
      title: 'Order Partly Filled',
      description: 'Your limit order to sell 20 Sarah Chen tokens at $45.10: 4 sold before it was cancelled.',
    });
  });
  it('gathers several orders in one toast, and says nothing for none', () => {
    expect(fillNotice([order({}), order({ id: 8 })])).toEqual({
      title: 'Orders Filled',
      description: '2 of your limit orders traded. Your dashboard has the details.',
    });
    expect(fillNotice([])).toBeNull();
  });
  it("says a stop someone's trade triggered, at its trigger, and what it did", () => {
    expect(
      fillNotice([order({ price: null, stop_price: 38, triggered_at: '2026-11-26T10:00:00Z', filled_value: 759.8 })]),
    ).toEqual({
      title: 'Stop Triggered',
      description:
        'The price reached $38.00: your stop to sell 20 Sarah Chen tokens triggered and filled: 20 sold at an average $37.99.',
    });
    expect(
      fillNotice([
        order({
          stop_price: 38,
          price: 37.5,
          triggered_at: '2026-11-26T10:00:00Z',
          filled: 5,
          filled_value: 187.5,
          status: 'open',
        }),
      ])?.description,
    ).toBe(
      'The price reached $38.00: your stop to sell 20 Sarah Chen tokens triggered: 5 sold at an average $37.50, 15 on the book at $37.50.',
    );
  });
});
