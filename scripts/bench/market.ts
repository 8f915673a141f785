import type { SupabaseClient } from '@supabase/supabase-js';
import pg from 'pg';
import { signedIn } from '../../integration/harness/clients';
import { DEMO_ACCOUNTS } from '../../server/demo';
import {
  NO_FILTERS,
  conditions,
  readQuery,
  searchPattern,
  where,
  type Filterable,
} from '../../mf-market/src/market/query';
import { MARKET_TOKEN_COLUMNS } from '../../shared-ui/src/contracts/data';
import { httpFetch } from '../lib/httpFetch';
import { overHttp, benchBackend, timeReads, type Engine } from './common';

/** Requests of each kind sent to a fresh server before its timings count. */
const WARM_UP = 30;

/**
 * `count` tokens, each with a trade a day ago and one an hour ago (derived prices, change, volume).
 * Loaded in bulk, as one would: the trades without the market-figures trigger, which would
 * recompute every token (its trades are back-dated) by plans made from statistics that still
 * describe the seed's few tokens, then the figures recomputed once the tables are analyzed, then
 * vacuumed.
 */
async function loadMarket(engine: Engine, count: number) {
  const { store, backend: prepared } = await benchBackend(engine, 'repex_bench_market', { seed: true });
  await prepared.db.exec(`
    insert into tokens (name, username, category, reputation_score, total_supply, issue_price)
    select 'Bench Person ' || g, 'bench' || g, (array['Tech Influencer','Business Leader','Fitness Coach','Content Creator','Crypto Expert','Designer'])[1 + g % 6],
           40 + (g % 60), 1000000, 5 + (g % 100)
    from generate_series(1, ${count} - (select count(*) from tokens)) g;`);
  // One transaction each: the trades' references to orders are checked at commit, and a table
  // with checks pending cannot be altered.
  await prepared.db.exec('alter table trades disable trigger trades_stats');
  await prepared.db.exec(`
    insert into trades (token_id, buyer_id, seller_id, price, amount, taker_side, buyer_fee, seller_fee, created_at, fee_bps)
    select t.id, (select id from profiles where username = 'sarahchen'), (select id from profiles where username = 'marcusj'),
           t.issue_price + d, 10, 'buy', round(t.issue_price * 0.2, 2), round(t.issue_price * 0.2, 2), now() - make_interval(hours => h), 200
    from tokens t, (values (0, 25), (0.5, 1)) v(d, h) where t.username like 'bench%';`);
  await prepared.db.exec('alter table trades enable trigger trades_stats');
  await prepared.db.exec('analyze');
  await prepared.db.exec(`select private.refresh_token_stats(id) from tokens where username like 'bench%'`);
  // As autovacuum leaves a table after a bulk load (PostgreSQL vacuums insert-heavy tables too):
  // its visibility map set, so an index that carries a read's columns answers it alone. On
  // PostgreSQL, once the server's jobs have stopped: a job running over 100,000 tokens during the
  // vacuum holds a snapshot that keeps the load's old row versions (autovacuum's next pass would
  // remove them; this one vacuum is all the bench has), and a filtered page then visits the table
  // for each token it walks past.
  if (engine === 'pglite') await prepared.db.exec('vacuum analyze');
  await prepared.close();
  if (engine === 'postgres') {
    const db = new pg.Client({ connectionString: store.env.DATABASE_URL });
    await db.connect();
    await db.query('vacuum analyze');
    await db.end();
  }
  return store;
}

const time = (run: () => PromiseLike<{ error: unknown }>) => timeReads(run, { warmUp: WARM_UP });

/** As the market screen asks: one page of the view, and its count (per category, or the search's matches). */
async function marketPages(c: SupabaseClient) {
  const cols = MARKET_TOKEN_COLUMNS;
  const term = searchPattern('Person 12')!;
  const both = async (rows: PromiseLike<{ error: unknown }>, counted: PromiseLike<{ error: unknown }>) => {
    const [a, b] = await Promise.all([rows, counted]);
    return { error: a.error ?? b.error };
  };
  const page = (sort: string) =>
    c.from('market_tokens').select(cols).order(sort, { ascending: false }).order('id', { ascending: false });
  // Every Advanced Filter set at once, as the market screen sends them (mf-market/src/market/query.ts).
  const advanced = conditions({
    ...readQuery(new URLSearchParams()),
    filters: {
      ...NO_FILTERS,
      ranges: {
        price: { min: 10, max: 90 },
        score: { min: 50 },
        change: { min: -50 },
        cap: { min: 1 },
        volume: { min: 1 },
      },
      verifiedOnly: false,
      hideHalted: true,
      categories: ['Designer', 'Tech Influencer', 'Fitness Coach'],
    },
  });
  // The bench's client is untyped, which PostgREST's builder types cannot follow through a generic.
  type Builder = PromiseLike<{ error: unknown }> & Filterable<Builder>;
  const filtered = (query: unknown) => where(query as Builder, advanced);
  return {
    first_page: await time(() => both(page('market_cap').range(0, 24), c.from('token_categories').select('tokens'))),
    search: await time(() =>
      both(
        page('market_cap').like('search_text', term).range(0, 24),
        c.from('market_tokens').select('id', { count: 'exact', head: true }).like('search_text', term),
      ),
    ),
    category: await time(() =>
      both(
        page('change_24h').eq('category', 'Designer').range(0, 24),
        c.from('token_categories').select('tokens').eq('category', 'Designer'),
      ),
    ),
    // The rows, one more, and their estimated count in one request, as mf-market/src/market/data.ts
    // asks with filters.
    advanced_filters: await time(() =>
      filtered(
        c
          .from('market_tokens')
          .select(cols, { count: 'estimated' })
          .order('market_cap', { ascending: false })
          .order('id', { ascending: false })
          .range(0, 25),
      ),
    ),
  };
}

/**
 * The other screens' reads as the demo trader: the market's figures and index above its list
 * (market_screen, as mf-market asks it), dashboard, wallet P&L, trading chart and open orders, profile.
 */
async function screenReads(c: SupabaseClient) {
  const { data: token } = await c.from('tokens').select('id').eq('username', 'sarahchen').single();
  const p_token = (token as { id: string }).id;
  return {
    market_screen: await time(() => c.rpc('market_screen', { p_index_days: 7 }, { get: true })),
    my_positions: await time(() => c.rpc('my_positions')),
    my_pnl: await time(() => c.rpc('my_pnl', { p_days: 30 })),
    price_history: await time(() => c.rpc('price_history', { p_token, p_hours: 24 })),
    list_open_orders: await time(() => c.rpc('list_open_orders', { p_token })),
    reputation_components: await time(() => c.rpc('reputation_components', { p_token })),
  };
}

/** The market screen's first page, a search and a category with another sort, over `count` tokens; the other screens' reads. */
export async function benchMarketListing(engine: Engine, count: number) {
  return overHttp(await loadMarket(engine, count), async (url) => {
    const c = await signedIn(url, DEMO_ACCOUNTS.user, httpFetch);
    return { tokens: count, ...(await marketPages(c)), reads: await screenReads(c) };
  });
}
