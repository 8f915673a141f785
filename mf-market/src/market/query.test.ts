import { DEFAULT_SORT, NO_FILTERS, activeFilters, conditions, readQuery, searchPattern, writeQuery } from './query';

describe('market query in the URL', () => {
  it('defaults to all categories, market cap first, page 1', () => {
    expect(readQuery(new URLSearchParams())).toEqual({
      search: '',
      category: 'all',
      sort: DEFAULT_SORT,
      page: 1,
      filters: NO_FILTERS,
    });
  });
  it('ignores an unknown sort or a bad page', () => {
    expect(readQuery(new URLSearchParams('sort=evil&page=-3'))).toMatchObject({ sort: DEFAULT_SORT, page: 1 });
  });
  it('round-trips, keeping defaults out of the URL', () => {
    const q = { search: 'sarah', category: 'Designer', sort: 'price.asc', page: 2, filters: NO_FILTERS };
    expect(readQuery(writeQuery(q))).toEqual(q);
    expect(writeQuery(readQuery(new URLSearchParams())).toString()).toBe('');
  });
  it('matches the lower-cased term anywhere, wildcards taken out', () => {
    expect(searchPattern(' Tech ')).toBe('*tech*');
    expect(searchPattern('a,b(c)')).toBe('*a,b(c)*');
    expect(searchPattern('50%*')).toBe('*50*');
    expect(searchPattern('  ')).toBeNull();
    expect(searchPattern('**')).toBeNull();
  });

  it('keeps the advanced filters in the URL, and reads them back as the database conditions', () => {
    const q = {
      ...readQuery(new URLSearchParams()),
      filters: {
        ranges: { price: { min: 10, max: 50.5 }, change: { min: -5 }, cap: { max: 1_000_000 } },
        verifiedOnly: true,
        hideHalted: true,
        categories: ['Designer', 'Tech Influencer'],
      },
    };
    const url = writeQuery(q);
    expect(url.toString()).toBe(
      'price_min=10&price_max=50.5&change_min=-5&cap_max=1000000&verified=1&live=1&cat=Designer&cat=Tech+Influencer',
    );
    expect(readQuery(url)).toEqual(q);
    expect(activeFilters(q.filters)).toBe(6);
    expect(conditions(q)).toEqual([
      { op: 'gte', column: 'price', value: 10 },
      { op: 'lte', column: 'price', value: 50.5 },
      { op: 'gte', column: 'change_24h', value: -5 },
      { op: 'lte', column: 'market_cap', value: 1_000_000 },
      { op: 'eq', column: 'verified', value: true },
      { op: 'eq', column: 'halted', value: false },
      { op: 'in', column: 'category', value: ['Designer', 'Tech Influencer'] },
    ]);
  });
  it('ignores a bound in the URL that is not a number', () => {
    const q = readQuery(new URLSearchParams('price_min=cheap&price_max=&score_max=90'));
    expect(q.filters.ranges).toEqual({ score: { max: 90 } });
  });
});
