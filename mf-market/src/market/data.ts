import { MARKET_TOKEN_COLUMNS } from '@repex/shared-ui/contracts';
import { isEstimate, supabase, unwrap } from '@repex/shared-ui/platform';
import { PAGE_SIZE, activeFilters, conditions, searchPattern, where, type MarketQuery } from './query';

/** The market's reads, typed by the database (contracts/typedDatabase.ts). */

/**
 * A page of the market as `q` asks for it; how many tokens match in all, and whether that is an
 * estimate; and whether a page follows.
 */
export async function loadTokens(q: MarketQuery) {
  const [column, direction] = q.sort.split('.') as [string, string];
  const from = (q.page - 1) * PAGE_SIZE;
  // Ties go the same way as the sort, so one index per figure serves both directions.
  const ascending = direction === 'asc';
  const filtered = activeFilters(q.filters) > 0;
  const page = () =>
    // With advanced filters, the rows and their count in one request. The count is PostgREST's
    // estimated one: exact up to the API's max_rows, the planner's estimate past it, so a filter
    // that matches most of a large market does not count every match. One row past the page says
    // whether Next leads anywhere, whatever the estimate.
    where(
      supabase()
        .from('market_tokens')
        .select(MARKET_TOKEN_COLUMNS, filtered ? { count: 'estimated' } : {}),
      conditions(q),
    )
      .order(column, { ascending })
      .order('id', { ascending })
      .range(from, from + PAGE_SIZE - (filtered ? 0 : 1));
  if (filtered) {
    const { data, count, error } = await page();
    if (error) throw new Error(error.message);
    const rows = data ?? [];
    const more = rows.length > PAGE_SIZE;
    // On the last page the total is known, whatever the estimate said.
    const total = more ? Math.max(count ?? 0, from + rows.length) : from + rows.length;
    return { rows: rows.slice(0, PAGE_SIZE), total, estimated: more && isEstimate(total), more };
  }
  const [rows, total] = await Promise.all([page(), countTokens(q)]);
  return { rows: unwrap(rows), total, estimated: false, more: from + PAGE_SIZE < total };
}

/**
 * How many tokens match without advanced filters: without a search, the database's per-category
 * counts (a few rows); with one, the matches counted on the view's own table (token_stats, whose
 * search column has its trigram index), which a count asking for no token column reads alone.
 */
async function countTokens(q: MarketQuery): Promise<number> {
  const search = searchPattern(q.search);
  if (!search) {
    let counts = supabase().from('token_categories').select('tokens');
    if (q.category !== 'all') counts = counts.eq('category', q.category);
    return unwrap(await counts).reduce((n, c) => n + c.tokens, 0);
  }
  const { count, error } = await where(
    supabase().from('market_tokens').select('id', { count: 'exact', head: true }),
    conditions(q),
  );
  if (error) throw new Error(error.message);
  return count ?? 0;
}

/**
 * The figures around the market's list in one request (public.market_screen): the screen's first
 * read of them. Each is read on its own afterwards (below), when a message says it changed.
 */
export const loadMarketScreen = async () =>
  unwrap(await supabase().rpc('market_screen', { p_index_days: INDEX_DAYS }, { get: true }));
export type MarketScreenRead = Awaited<ReturnType<typeof loadMarketScreen>>;

/** How many days of the index's hourly levels the market's card shows. */
const INDEX_DAYS = 7;

/** The four figures above the market table. */
export const loadSummary = async () => unwrap(await supabase().from('market_summary').select('*').single());

/** The categories that have tokens, for the filter. */
export const loadCategories = async () =>
  unwrap(await supabase().from('token_categories').select('category').order('category')).map((c) => c.category);

/**
 * The RepX index (supabase/schemas/repx_index.sql): its hourly levels over the last `days` days,
 * oldest first; the latest basket, heaviest first, with each member's units and last price; and
 * when they were read.
 */
export async function loadIndex(days = INDEX_DAYS) {
  const readAt = Date.now();
  const [levels, basket, method] = await Promise.all([
    supabase()
      .from('index_levels')
      .select('at, level')
      .eq('period', 'hour')
      .gte('at', new Date(readAt - days * 86_400_000).toISOString())
      .order('at'),
    supabase()
      .from('index_basket')
      .select('token_id, name, username, weight, units, price')
      .order('weight', { ascending: false })
      .order('name'),
    supabase().rpc('index_method', {}, { get: true }),
  ]);
  return { levels: unwrap(levels), basket: unwrap(basket), method: unwrap(method), readAt };
}

/** The offerings open now (public.offering_book): which tokens are in their batch auction, until when. */
export const loadOpenOfferings = async () =>
  unwrap(await supabase().from('offering_book').select('token_id, closes_at, indicative_price').is('closed_at', null));
export type OpenOffering = Awaited<ReturnType<typeof loadOpenOfferings>>[number];
