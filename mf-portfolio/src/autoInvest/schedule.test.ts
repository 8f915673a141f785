import { ordinal, scheduleWords, targetWords } from './schedule';

describe("a plan's schedule in words", () => {
  it('names the day of a weekly and a monthly plan', () => {
    expect(scheduleWords({ frequency: 'daily', run_day: null })).toBe('Daily');
    expect(scheduleWords({ frequency: 'weekly', run_day: 1 })).toBe('Weekly on Monday');
    expect(scheduleWords({ frequency: 'weekly', run_day: 7 })).toBe('Weekly on Sunday');
    expect(scheduleWords({ frequency: 'monthly', run_day: 31 })).toBe('Monthly on the 31st');
  });
  it('writes ordinals as English does, the teens included', () => {
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 30].map(ordinal)).toEqual([
      '1st',
      '2nd',
      '3rd',
      '4th',
      '11th',
      '12th',
      '13th',
      '21st',
      '22nd',
      '23rd',
      '30th',
    ]);
  });
  it('calls a plan without a token the index basket', () => {
    expect(targetWords({ token_name: null })).toBe('the RepX Index basket');
    expect(targetWords({ token_name: 'Sarah Chen' })).toBe('Sarah Chen');
  });
});
