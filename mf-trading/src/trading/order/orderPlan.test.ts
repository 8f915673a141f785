import { describePlan, timesInForce, type OrderTerms } from './orderPlan';

const base: OrderTerms = { side: 'sell', kind: 'limit', amount: 100, tif: 'gtc' };

describe('what an order will do, said before it is placed', () => {
  it('a stop says the price it waits for and what it does then', () => {
    expect(describePlan({ ...base, kind: 'stop', stopPrice: 38, stopType: 'market' })).toBe(
      'If the price falls to $38.00, sell 100 tokens at market.',
    );
    expect(
      describePlan({ ...base, side: 'buy', kind: 'stop', stopPrice: 12, stopType: 'limit', limitPrice: 12.5 }),
    ).toBe('If the price rises to $12.00, buy 100 tokens at $12.50 or less.');
  });
  it('never names a price or an amount not yet entered', () => {
    expect(describePlan({ ...base, kind: 'stop', stopPrice: 0, stopType: 'market' })).toBe(
      'If the price falls to the trigger price you set, sell 100 tokens at market.',
    );
    expect(describePlan({ ...base, side: 'buy', kind: 'stop', stopPrice: 12, stopType: 'limit', limitPrice: 0 })).toBe(
      'If the price rises to $12.00, buy 100 tokens at the limit you set.',
    );
    expect(describePlan({ ...base, amount: 0, kind: 'market' })).toBe('Enter how many tokens to sell.');
  });
  it('a pair says both orders and that one cancels the other', () => {
    expect(
      describePlan({
        ...base,
        kind: 'stop',
        stopPrice: 38,
        stopType: 'market',
        takeProfit: 45,
        tokenName: 'Sarah Chen',
      }),
    ).toBe(
      'Sell 100 Sarah Chen tokens at $45.00 or more (take profit). If the price falls to $38.00 first, sell them at market instead (stop). Whichever happens first cancels the other.',
    );
  });
  it('a limit order says how long it lives', () => {
    expect(describePlan({ ...base, limitPrice: 40 })).toBe(
      'Sell 100 tokens at $40.00 or more. What does not fill now waits on the book until you cancel it.',
    );
    expect(describePlan({ ...base, limitPrice: 40, tif: 'ioc' })).toBe(
      'Sell 100 tokens at $40.00 or more. What does not fill at once is cancelled.',
    );
    expect(describePlan({ ...base, side: 'buy', limitPrice: 40, tif: 'fok' })).toBe(
      'Buy all 100 tokens at $40.00 or less at once, or nothing at all.',
    );
    expect(describePlan({ ...base, limitPrice: 40, postOnly: true })).toMatch(
      / Post-only: if any of it would trade at once, the order is refused instead\.$/,
    );
    const at = new Date('2026-12-01T15:30:00Z');
    expect(describePlan({ ...base, limitPrice: 40, tif: 'gtd', expiresAt: at })).toMatch(
      /^Sell 100 tokens at \$40\.00 or more\. What does not fill now waits on the book until Dec 1, 2026, /,
    );
  });
  it('a market order fills what it can at once', () => {
    expect(describePlan({ ...base, kind: 'market', side: 'buy', amount: 1 })).toBe(
      'Buy 1 token now at the best prices; what cannot fill at once is cancelled.',
    );
  });
});

describe('the times in force the panel offers', () => {
  it('each kind offers the times in force the database accepts for it', () => {
    expect(timesInForce('market', 'market', false)).toEqual(['gtc']);
    expect(timesInForce('limit', 'market', false)).toEqual(['gtc', 'ioc', 'fok', 'gtd']);
    expect(timesInForce('stop', 'market', false)).toEqual(['gtc', 'gtd']);
    expect(timesInForce('stop', 'limit', true)).toEqual(['gtc', 'gtd']);
    expect(timesInForce('stop', 'limit', false)).toEqual(['gtc', 'ioc', 'fok', 'gtd']);
  });
});
