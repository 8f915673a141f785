import { DEFAULT_SORT, readQuery, searchPattern, writeQuery } from './query';

describe('market query in the URL', () => {
  it('defaults to all categories, market cap first, page 1', () => {
    expect(readQuery(new URLSearchParams())).toEqual({ search: '', category: 'all', sort: DEFAULT_SORT, page: 1 });
  });
  it('ignores an unknown sort or a bad page', () => {
    expect(readQuery(new URLSearchParams('sort=evil&page=-3'))).toMatchObject({ sort: DEFAULT_SORT, page: 1 });
  });
  it('round-trips, keeping defaults out of the URL', () => {
    const q = { search: 'sarah', category: 'Designer', sort: 'price.asc', page: 2 };
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
});
