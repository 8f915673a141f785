import { DEFAULT_SORT, readQuery, searchFilter, writeQuery } from './query';

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
  it('searches name, username and category, quoting the term', () => {
    expect(searchFilter(' Tech ')).toBe('name.ilike."*Tech*",username.ilike."*Tech*",category.ilike."*Tech*"');
    expect(searchFilter('a,b(c)')).toContain('"*a,b(c)*"');
    expect(searchFilter('  ')).toBeNull();
    expect(searchFilter('**')).toBeNull();
  });
});
