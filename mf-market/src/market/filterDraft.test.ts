import { draftOf, filtersOf } from './filterDraft';
import { NO_FILTERS } from './query';

const draft = () => draftOf(NO_FILTERS);

describe('the Advanced Filters as typed', () => {
  it('applies what is typed as numbers, leaving out empty bounds', () => {
    const d = draft();
    d.ranges.price = { min: ' 10 ', max: '50.5' };
    d.ranges.change = { min: '-5', max: '' };
    d.verifiedOnly = true;
    expect(filtersOf(d)).toEqual({
      filters: {
        ranges: { price: { min: 10, max: 50.5 }, change: { min: -5, max: undefined } },
        verifiedOnly: true,
        hideHalted: false,
        categories: [],
      },
    });
  });

  it('says what is wrong with each range, and applies nothing', () => {
    const d = draft();
    d.ranges.price = { min: 'ten', max: '' };
    d.ranges.cap = { min: '500', max: '100' };
    d.ranges.volume = { min: '-1', max: '' };
    d.ranges.score = { min: '', max: '101' };
    d.ranges.change = { min: '1e3', max: '' };
    expect(filtersOf(d)).toEqual({
      errors: {
        price: 'Enter a number, like 12.50.',
        cap: 'The minimum is above the maximum.',
        volume: 'Enter 0 or more.',
        score: 'A reputation score is at most 100.',
        change: 'Enter a number, like 12.50.',
      },
    });
  });

  it('shows applied filters as they were typed', () => {
    const d = draftOf({ ...NO_FILTERS, ranges: { score: { min: 80 } }, categories: ['Designer'] });
    expect(d.ranges.score).toEqual({ min: '80', max: '' });
    expect(d.ranges.price).toEqual({ min: '', max: '' });
    expect(d.categories).toEqual(['Designer']);
  });
});
