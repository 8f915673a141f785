import type { SupabaseClient } from '@supabase/supabase-js';
import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { DEMO, client, signedIn } from './harness/clients';
import { freshToken, offeringToken, placeOrder, trader } from './harness/market';

/**
 * Each part of public.trading_screen, read on its own as the trading screen reads it afterwards
 * (mf-trading/src/trading/data.ts): the one request must answer the same.
 */
async function partsAlone(c: SupabaseClient, token: string, userId: string) {
  const one = async <T>(q: PromiseLike<{ data: T; error: unknown }>) => {
    const { data, error } = await q;
    expect(error).toBeNull();
    return data;
  };
  const offering = await one(
    c.from('offering_book').select('*').eq('token_id', token).order('opens_at', { ascending: false }).limit(1),
  );
  const o = (offering as { id: number }[])[0];
  return {
    token: await one(c.from('market_tokens').select('*').eq('id', token).maybeSingle()),
    history: await one(c.rpc('price_history', { p_token: token, p_hours: 24 })),
    book: await one(c.from('order_book').select('side, price, amount').eq('token_id', token)),
    tape: await one(
      c
        .from('recent_trades')
        .select('id, price, amount, type, created_at')
        .eq('token_id', token)
        .order('created_at', { ascending: false })
        .order('id', { ascending: false })
        .limit(5),
    ),
    cash:
      (
        (await one(c.from('cash_accounts').select('available').eq('user_id', userId).maybeSingle())) as {
          available: number;
        } | null
      )?.available ?? 0,
    held:
      (
        (await one(
          c.from('holdings').select('available').eq('user_id', userId).eq('token_id', token).maybeSingle(),
        )) as { available: number } | null
      )?.available ?? 0,
    orders: await one(c.rpc('list_open_orders', { p_token: token })),
    vesting: await one(
      c.from('token_vesting').select('total, vested, cliff_at, ends_at').eq('token_id', token).maybeSingle(),
    ),
    offering: o
      ? {
          ...o,
          bid: await one(
            c
              .from('offering_bids')
              .select('price, amount, reserved, placed_at, allocated')
              .eq('offering_id', o.id)
              .eq('user_id', userId)
              .maybeSingle(),
          ),
        }
      : null,
    auction: await one(
      c.from('volatility_auction_book').select('*').eq('token_id', token).is('uncrossed_at', null).maybeSingle(),
    ),
  };
}

/** Sets compared whatever their order where the screen does not order them (the book's levels). */
const sortedBook = <T extends { book: unknown }>(s: T) => ({
  ...s,
  book: [...(s.book as { side: string; price: number }[])].sort(
    (a, b) => a.side.localeCompare(b.side) || a.price - b.price,
  ),
});

describe.each(ENGINES)("the trading screen's first read on %s", (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  const screen = async (c: SupabaseClient, token: string) => {
    const { data, error } = await c.rpc('trading_screen', { p_token: token }, { get: true });
    expect(error).toBeNull();
    return data as { book: unknown } & Record<string, unknown>;
  };

  it("answers in one request what the screen's own reads answer, the caller's parts their own", async () => {
    const token = await freshToken(backend, 10_000, 10);
    const seller = await trader(backend, { cash: 1000, token, tokens: 100 });
    const buyer = await trader(backend, { cash: 1000 });
    expect((await placeOrder(seller.client, token, 'sell', 'limit', 10, 12)).error).toBeNull();
    expect((await placeOrder(seller.client, token, 'sell', 'limit', 5, 13)).error).toBeNull();
    expect((await placeOrder(buyer.client, token, 'buy', 'market', 4)).error).toBeNull();
    expect((await placeOrder(buyer.client, token, 'buy', 'limit', 3, 9)).error).toBeNull();

    for (const who of [seller, buyer]) {
      const got = await screen(who.client, token);
      expect(sortedBook(got)).toEqual(sortedBook(await partsAlone(who.client, token, who.id)));
    }
    const mine = await screen(buyer.client, token);
    expect((mine.orders as { user_id: string }[]).map((o) => o.user_id)).toEqual([buyer.id]);
    expect(mine.held).toBe(4);
    expect((mine.tape as unknown[]).length).toBe(1);
  });

  it("shows an offering with the caller's bid alone, nothing of a token that does not exist, and nothing to anon", async () => {
    const token = await offeringToken(backend, { supply: 100, price: 10, cap: 50 });
    const bidder = await trader(backend, { cash: 500 });
    const other = await trader(backend, { cash: 500 });
    const bid = await bidder.client.rpc('place_offering_bid', { p_token: token, p_price: 11, p_amount: 10 });
    expect(bid.error).toBeNull();
    const seen = await screen(bidder.client, token);
    expect(seen).toEqual(await partsAlone(bidder.client, token, bidder.id));
    expect((seen.offering as { bid: { amount: number } }).bid.amount).toBe(10);
    expect((await screen(other.client, token)).offering).toMatchObject({ bid: null });

    const none = await screen(bidder.client, '00000000-0000-0000-0000-000000000000');
    expect(none).toMatchObject({ token: null, book: [], tape: [], orders: [], offering: null });
    const anon = await client(backend.url).rpc('trading_screen', { p_token: token }, { get: true });
    expect(anon.error).not.toBeNull();
  });
});

describe.each(ENGINES)("the market screen's first read on %s", (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
    // An index with levels and a basket, as the hourly job records them.
    await backend.db.query('select private.record_index_levels()');
  });
  afterAll(() => backend.close());

  it("answers in one request what the market's own reads around its list answer", async () => {
    const c = await signedIn(backend.url, DEMO);
    await offeringToken(backend, { supply: 100, price: 10 });
    const { data, error } = await c.rpc('market_screen', { p_index_days: 7 }, { get: true });
    expect(error).toBeNull();
    const since = new Date(Date.now() - 7 * 86_400_000).toISOString();
    const alone = async <T>(q: PromiseLike<{ data: T; error: unknown }>) => {
      const r = await q;
      expect(r.error).toBeNull();
      return r.data;
    };
    const [summary, categories, offerings, levels, basket, method] = await Promise.all([
      alone(c.from('market_summary').select('*').single()),
      alone(c.from('token_categories').select('category').order('category')),
      alone(c.from('offering_book').select('token_id, closes_at, indicative_price').is('closed_at', null)),
      alone(c.from('index_levels').select('at, level').eq('period', 'hour').gte('at', since).order('at')),
      alone(
        c
          .from('index_basket')
          .select('token_id, name, username, weight, units, price')
          .order('weight', { ascending: false })
          .order('name'),
      ),
      alone(c.rpc('index_method', {}, { get: true })),
    ]);
    expect((offerings as unknown[]).length).toBeGreaterThan(0);
    expect((basket as unknown[]).length).toBeGreaterThan(0);
    expect(data).toEqual({
      summary,
      categories: (categories as { category: string }[]).map((r) => r.category),
      offerings,
      index: { levels, basket, method },
    });
    expect((await client(backend.url).rpc('market_screen', {}, { get: true })).error).not.toBeNull();
  });
});
