import { orderTerms } from './orderTerms';

describe('an order in a list', () => {
  it('a resting limit shows its price', () => {
    expect(orderTerms({ price: 10, status: 'open' })).toEqual({ price: '$10.00', note: null });
  });
  it('a waiting stop shows its trigger and what it becomes', () => {
    expect(orderTerms({ price: null, status: 'pending', stop_price: 9.5 })).toEqual({
      price: 'Stop $9.50',
      note: 'then market',
    });
    expect(orderTerms({ price: 9.4, status: 'pending', stop_price: 9.5 }).note).toBe('then $9.40');
  });
  it('the orders of a pair say so, and a good-til-date its day', () => {
    expect(
      orderTerms({ price: 12, status: 'open', oco_with: 7, time_in_force: 'gtd', expires_at: '2026-12-01T10:00:00Z' }),
    ).toEqual({ price: 'Take profit $12.00', note: 'pair: one cancels the other · until Dec 1, 2026' });
    expect(orderTerms({ price: null, status: 'pending', stop_price: 9, oco_with: 6 }).note).toBe(
      'then market · pair: one cancels the other',
    );
  });
});
