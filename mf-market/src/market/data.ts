import { MARKET_TOKEN_COLUMNS } from '@repex/shared-ui/contracts';
import { supabase, unwrap } from '@repex/shared-ui/platform';
import { PAGE_SIZE, searchPattern, type MarketQuery } from './query';

/** The market's reads, typed by the database (contracts/typedDatabase.ts). */

/** A page of the market as `q` asks for it, and how many tokens match in all. */
export async function loadTokens(q: MarketQuery) {
  const [column, direction] = q.sort.split('.') as [string, string];
  const search = searchPattern(q.search);
  let rows = supabase().from('market_tokens').select(MARKET_TOKEN_COLUMNS);
  if (search) rows = rows.like('search_text', search);
  if (q.category !== 'all') rows = rows.eq('category', q.category);
  const from = (q.page - 1) * PAGE_SIZE;
  // Ties go the same way as the sort, so one index per figure serves both directions.
  const ascending = direction === 'asc';
  const [page, total] = await Promise.all([
    rows
      .order(column, { ascending })
      .order('id', { ascending })
      .range(from, from + PAGE_SIZE - 1),
    countTokens(search, q.category),
  ]);
  return { rows: unwrap(page), total };
}

/**
 * How many tokens match: without a search, the database's per-category counts (a few rows); with
 * one, the matches counted on the token table (its search column), not on the derived view.
 */
async function countTokens(search: string | null, category: string): Promise<number> {
  if (!search) {
    let counts = supabase().from('token_categories').select('tokens');
    if (category !== 'all') counts = counts.eq('category', category);
    return unwrap(await counts).reduce((n, c) => n + c.tokens, 0);
  }
  let count = supabase().from('tokens').select('id', { count: 'exact', head: true }).like('search_text', search);
  if (category !== 'all') count = count.eq('category', category);
  const { count: n, error } = await count;
  if (error) throw new Error(error.message);
  return n ?? 0;
}

/** The four figures above the market table. */
export const loadSummary = async () => unwrap(await supabase().from('market_summary').select('*').single());

/** The categories that have tokens, for the filter. */
export const loadCategories = async () =>
  unwrap(await supabase().from('token_categories').select('category').order('category')).map((c) => c.category);
