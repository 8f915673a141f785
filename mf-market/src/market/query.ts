/** The market's search, filter and sort, as kept in the URL and sent to the database. */
export const SORTS = [
  { value: 'market_cap.desc', label: 'Market Cap: High to Low' },
  { value: 'market_cap.asc', label: 'Market Cap: Low to High' },
  { value: 'price.desc', label: 'Price: High to Low' },
  { value: 'price.asc', label: 'Price: Low to High' },
  { value: 'change_24h.desc', label: '24h Change: Best First' },
  { value: 'change_24h.asc', label: '24h Change: Worst First' },
  { value: 'volume_24h.desc', label: 'Volume: High to Low' },
  { value: 'volume_24h.asc', label: 'Volume: Low to High' },
  { value: 'reputation_score.desc', label: 'Reputation: High to Low' },
  { value: 'reputation_score.asc', label: 'Reputation: Low to High' },
  { value: 'holders.desc', label: 'Holders: Most First' },
  { value: 'holders.asc', label: 'Holders: Fewest First' },
] as const;

export const DEFAULT_SORT = 'market_cap.desc';
export const PAGE_SIZE = 25;

/** The Advanced Filters' ranges: each a figure of market_tokens, with its key in the URL. */
export const RANGES = [
  { key: 'price', column: 'price', label: 'Price (USD)' },
  { key: 'score', column: 'reputation_score', label: 'Reputation score' },
  { key: 'change', column: 'change_24h', label: '24h change (%)' },
  { key: 'cap', column: 'market_cap', label: 'Market cap (USD)' },
  { key: 'volume', column: 'volume_24h', label: '24h volume (USD)' },
] as const;
export type RangeKey = (typeof RANGES)[number]['key'];
interface Range {
  min?: number;
  max?: number;
}

export interface Filters {
  ranges: Partial<Record<RangeKey, Range>>;
  verifiedOnly: boolean;
  hideHalted: boolean;
  /** Several categories at once (the toolbar's Category picks one). */
  categories: string[];
}
export const NO_FILTERS: Filters = { ranges: {}, verifiedOnly: false, hideHalted: false, categories: [] };

export interface MarketQuery {
  search: string;
  category: string;
  sort: string;
  page: number;
  filters: Filters;
}

const bound = (text: string | null): number | undefined => {
  if (text === null || text.trim() === '') return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
};

function readFilters(params: URLSearchParams): Filters {
  const ranges: Filters['ranges'] = {};
  for (const { key } of RANGES) {
    const range = { min: bound(params.get(`${key}_min`)), max: bound(params.get(`${key}_max`)) };
    if (range.min !== undefined || range.max !== undefined) ranges[key] = range;
  }
  return {
    ranges,
    verifiedOnly: params.get('verified') === '1',
    hideHalted: params.get('live') === '1',
    categories: params.getAll('cat').filter(Boolean),
  };
}

/** How many advanced filters are set (shown on the button that opens them). */
export function activeFilters(f: Filters): number {
  return Object.keys(f.ranges).length + Number(f.verifiedOnly) + Number(f.hideHalted) + Number(f.categories.length > 0);
}

export function readQuery(params: URLSearchParams): MarketQuery {
  const sort = params.get('sort') ?? DEFAULT_SORT;
  const page = Number(params.get('page') ?? '1');
  return {
    search: params.get('q') ?? '',
    category: params.get('category') ?? 'all',
    sort: SORTS.some((s) => s.value === sort) ? sort : DEFAULT_SORT,
    page: Number.isInteger(page) && page > 0 ? page : 1,
    filters: readFilters(params),
  };
}

/** Only what differs from the defaults goes into the URL. */
export function writeQuery(q: MarketQuery): URLSearchParams {
  const p = new URLSearchParams();
  if (q.search) p.set('q', q.search);
  if (q.category !== 'all') p.set('category', q.category);
  if (q.sort !== DEFAULT_SORT) p.set('sort', q.sort);
  if (q.page > 1) p.set('page', String(q.page));
  for (const { key } of RANGES) {
    const range = q.filters.ranges[key];
    if (range?.min !== undefined) p.set(`${key}_min`, String(range.min));
    if (range?.max !== undefined) p.set(`${key}_max`, String(range.max));
  }
  if (q.filters.verifiedOnly) p.set('verified', '1');
  if (q.filters.hideHalted) p.set('live', '1');
  for (const c of q.filters.categories) p.append('cat', c);
  return p;
}

/** One condition on market_tokens, as PostgREST's filters name them. */
export type Condition =
  | { op: 'gte' | 'lte'; column: string; value: number }
  | { op: 'eq'; column: string; value: string | boolean }
  | { op: 'in'; column: string; value: string[] }
  | { op: 'like'; column: string; value: string };

/**
 * Every condition a query puts on the market's rows: the search, the category and the advanced
 * filters. They run in the database, each figure over its own index (supabase/schemas/market.sql).
 */
export function conditions(q: MarketQuery): Condition[] {
  const out: Condition[] = [];
  const search = searchPattern(q.search);
  if (search) out.push({ op: 'like', column: 'search_text', value: search });
  if (q.category !== 'all') out.push({ op: 'eq', column: 'category', value: q.category });
  for (const { key, column } of RANGES) {
    const range = q.filters.ranges[key];
    if (range?.min !== undefined) out.push({ op: 'gte', column, value: range.min });
    if (range?.max !== undefined) out.push({ op: 'lte', column, value: range.max });
  }
  if (q.filters.verifiedOnly) out.push({ op: 'eq', column: 'verified', value: true });
  if (q.filters.hideHalted) out.push({ op: 'eq', column: 'halted', value: false });
  if (q.filters.categories.length) out.push({ op: 'in', column: 'category', value: q.filters.categories });
  return out;
}

/**
 * The `like` pattern of a search over name, username and category (the database's lower-cased
 * `search_text`), so the term is lower-cased too. * and % are dropped: they would be wildcards.
 */
export function searchPattern(search: string): string | null {
  const term = search
    .trim()
    .replace(/[*%\\]/g, '')
    .toLowerCase();
  return term ? `*${term}*` : null;
}

/** The filter methods the market's conditions use, as every PostgREST query builder has them. */
export interface Filterable<B> {
  gte(column: string, value: number): B;
  lte(column: string, value: number): B;
  eq(column: string, value: string | boolean): B;
  in(column: string, values: string[]): B;
  like(column: string, pattern: string): B;
}

export function where<B extends Filterable<B>>(query: B, all: Condition[]): B {
  return all.reduce((q, c) => {
    switch (c.op) {
      case 'gte':
        return q.gte(c.column, c.value);
      case 'lte':
        return q.lte(c.column, c.value);
      case 'eq':
        return q.eq(c.column, c.value);
      case 'in':
        return q.in(c.column, c.value);
      case 'like':
        return q.like(c.column, c.value);
    }
  }, query);
}
