import { investNotice } from './investNotice';

describe("an Auto-Invest run's notice", () => {
  it('says what a run spent, fee included', () => {
    expect(investNotice({ status: 'bought', amount: 100, spent: 91.8, reason: null })).toEqual({
      title: 'Auto-Invest Bought',
      description: 'Your $100.00 plan spent $91.80, fee included.',
    });
  });
  it("says why a run was skipped, in the database's words", () => {
    expect(
      investNotice({
        status: 'skipped',
        amount: 50,
        spent: 0,
        reason: 'Not enough cash: the plan buys $50.00 and $20.00 was available.',
      }),
    ).toEqual({
      title: 'Auto-Invest Skipped',
      description: 'Your $50.00 plan did not buy: Not enough cash: the plan buys $50.00 and $20.00 was available.',
      variant: 'destructive',
    });
  });
  it('says what a partly bought run spent and what did not buy', () => {
    expect(
      investNotice({
        status: 'partial',
        amount: 200,
        spent: 120.4,
        reason: 'There are no sell orders for Alex Rivera right now.',
      }).description,
    ).toBe(
      'Your $200.00 plan spent $120.40, fee included. Part of it did not buy: There are no sell orders for Alex Rivera right now.',
    );
  });
});
