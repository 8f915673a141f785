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

export interface MarketQuery {
  search: string;
  category: string;
  sort: string;
  page: number;
}

export function readQuery(params: URLSearchParams): MarketQuery {
  const sort = params.get('sort') ?? DEFAULT_SORT;
  const page = Number(params.get('page') ?? '1');
  return {
    search: params.get('q') ?? '',
    category: params.get('category') ?? 'all',
    sort: SORTS.some((s) => s.value === sort) ? sort : DEFAULT_SORT,
    page: Number.isInteger(page) && page > 0 ? page : 1,
  };
}

/** Only what differs from the defaults goes into the URL. */
export function writeQuery(q: MarketQuery): URLSearchParams {
  const p = new URLSearchParams();
  if (q.search) p.set('q', q.search);
  if (q.category !== 'all') p.set('category', q.category);
  if (q.sort !== DEFAULT_SORT) p.set('sort', q.sort);
  if (q.page > 1) p.set('page', String(q.page));
  return p;
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
