/**
 * @jest-environment node
 */
import {
  MAX_LOGIC_DEPTH,
  parseFilter,
  parseList,
  parseNonNegativeInt,
  parseOrder,
  parseSelect,
  splitTopLevel,
} from './parse';

// The grammar of PostgREST's query string, as postgrest-js writes it.
describe('the PostgREST query grammar', () => {
  it('splits on top-level commas only, keeping quoted and nested ones', () => {
    expect(splitTopLevel('a,b(c,d),"e,f",g')).toEqual(['a', 'b(c,d)', '"e,f"', 'g']);
    expect(splitTopLevel('"a\\",b",c')).toEqual(['"a\\",b"', 'c']);
    expect(() => splitTopLevel('a,(b')).toThrow(/Unbalanced/);
    expect(() => splitTopLevel('"a')).toThrow(/Unbalanced/);
  });

  it('reads a select: star, columns with aliases and casts, embedded resources with hints', () => {
    expect(parseSelect('')).toEqual([{ kind: 'star' }]);
    expect(parseSelect('id, price:last_price::text')).toEqual([
      { kind: 'column', name: 'id', alias: undefined, cast: undefined },
      { kind: 'column', name: 'last_price', alias: 'price', cast: 'text' },
    ]);
    expect(parseSelect('name,owner:profiles!inner(username,avatar_url)')).toEqual([
      { kind: 'column', name: 'name', alias: undefined, cast: undefined },
      {
        kind: 'embed',
        relation: 'profiles',
        alias: 'owner',
        inner: true,
        select: [
          { kind: 'column', name: 'username', alias: undefined, cast: undefined },
          { kind: 'column', name: 'avatar_url', alias: undefined, cast: undefined },
        ],
      },
    ]);
    expect(() => parseSelect('id;drop table x')).toThrow(/failed to parse select/);
    expect(() => parseSelect(Array.from({ length: 101 }, (_, i) => `c${i}`).join(','))).toThrow(/at most 100/);
  });

  it('reads filters: operators, negation, quoted values, lists', () => {
    expect(parseFilter('price', 'gte.10.5')).toEqual({
      kind: 'compare',
      column: 'price',
      op: 'gte',
      value: '10.5',
      negate: false,
    });
    expect(parseFilter('status', 'not.eq.open')).toEqual({
      kind: 'compare',
      column: 'status',
      op: 'eq',
      value: 'open',
      negate: true,
    });
    expect(parseFilter('name', 'ilike."*a,b*"')).toMatchObject({ op: 'ilike', value: '*a,b*' });
    expect(parseFilter('id', 'in.(1,"2,3")')).toMatchObject({ op: 'in', value: '(1,"2,3")' });
    expect(parseList('(1,"2,3",)')).toEqual(['1', '2,3', '']);
    expect(parseList('()')).toEqual([]);
    expect(() => parseFilter('price', 'between.1.2')).toThrow(/unsupported operator "between"/);
    expect(() => parseFilter('owner.name', 'eq.x')).toThrow(/embedded resources/);
    expect(() => parseList('1,2')).toThrow(/parentheses/);
  });

  it('reads and/or trees, nested and negated, within a depth bound', () => {
    expect(parseFilter('or', '(name.ilike.*sa*,and(price.gt.1,not.or(category.eq.A,category.eq.B)))')).toEqual({
      kind: 'logic',
      op: 'or',
      negate: false,
      items: [
        { kind: 'compare', column: 'name', op: 'ilike', value: '*sa*', negate: false },
        {
          kind: 'logic',
          op: 'and',
          negate: false,
          items: [
            { kind: 'compare', column: 'price', op: 'gt', value: '1', negate: false },
            {
              kind: 'logic',
              op: 'or',
              negate: true,
              items: [
                { kind: 'compare', column: 'category', op: 'eq', value: 'A', negate: false },
                { kind: 'compare', column: 'category', op: 'eq', value: 'B', negate: false },
              ],
            },
          ],
        },
      ],
    });
    expect(parseFilter('not.and', '(a.eq.1)')).toMatchObject({ op: 'and', negate: true });
    const deep = (n: number): string => (n === 0 ? 'a.eq.1' : `or(${deep(n - 1)})`);
    expect(() => parseFilter('or', `(${deep(MAX_LOGIC_DEPTH)})`)).toThrow(/at most 10 levels/);
    expect(() => parseFilter('or', 'a.eq.1')).toThrow(/list in parentheses/);
    expect(() => parseFilter('or', '(nodot)')).toThrow(/failed to parse logic tree/);
  });

  it('reads an order and paging numbers', () => {
    expect(parseOrder('market_cap.desc,id.asc.nullslast')).toEqual([
      { column: 'market_cap', descending: true },
      { column: 'id', descending: false, nulls: 'last' },
    ]);
    expect(() => parseOrder('price.sideways')).toThrow(/failed to parse order/);
    expect(() => parseOrder('1abc')).toThrow(/failed to parse order/);
    expect(parseNonNegativeInt('limit', '25')).toBe(25);
    expect(parseNonNegativeInt('limit', null)).toBeUndefined();
    expect(() => parseNonNegativeInt('offset', '-1')).toThrow(/non-negative integer/);
  });
});
