import { openCount, orderOutcome } from './orders';

describe('orderOutcome', () => {
  it('names what became of an order that left the book', () => {
    expect(orderOutcome({ status: 'filled', filled: 10 })).toBe('Filled');
    expect(orderOutcome({ status: 'cancelled', filled: 0 })).toBe('Cancelled');
    expect(orderOutcome({ status: 'cancelled', filled: 4 })).toBe('Partly filled');
    expect(orderOutcome({ status: 'open', filled: 4 })).toBe('Open');
    expect(orderOutcome({ status: 'expired', filled: 0 })).toBe('Expired');
    expect(orderOutcome({ status: 'expired', filled: 3 })).toBe('Partly filled, expired');
  });
});

describe('openCount', () => {
  it('says how many orders rest and how many stops wait', () => {
    expect(openCount([{ status: 'open' }, { status: 'open' }])).toBe('2 orders on the book.');
    expect(openCount([{ status: 'open' }, { status: 'pending' }])).toBe(
      '2 orders: 1 on the book, 1 waiting for its trigger.',
    );
  });
});
