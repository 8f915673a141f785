import { adminSuite } from './harness/suites';
import { ENGINES } from './harness/backends';
import { phase as phaseOf, referencedToken, uncross } from './harness/auctions';
import { book, cash, holding, invariantViolations, placeOrder, trader, type Trader } from './harness/market';

interface Placed {
  order_id: number;
  status: string;
  filled: number;
  resting: number;
  average_price: number | null;
  auction_until?: string;
}

/*
 * Volatility auctions (supabase/schemas/auctions.sql). Each example is computed by hand: the band
 * is 20% around the reference ($10.00: from $8.00 to $12.00), fees are 2% on each side, and the
 * token has no person (no fee share).
 */
describe.each(ENGINES)('volatility auctions on %s', (engine) => {
  const suite = adminSuite(engine);

  const market = () => referencedToken(suite.backend);
  const phase = (token: string) => phaseOf(suite.backend, token);
  const seller = (token: string, tokens = 50) => trader(suite.backend, { token, tokens, cash: 100 });
  const buyer = (money = 1000) => trader(suite.backend, { cash: money });
  const limit = (t: Trader, token: string, side: 'buy' | 'sell', amount: number, price: number) =>
    placeOrder(t.client, token, side, 'limit', amount, price);

  it('an order that would trade beyond the band trades what lies within, rests its rest, and the token enters an auction', async () => {
    const token = await market();
    const s = await seller(token);
    for (const price of [11, 12, 13]) expect((await limit(s, token, 'sell', 5, price)).error).toBeNull();
    const b = await buyer();
    // The order panel's quote says so first, from the same band.
    const { data: quoted } = await b.client.rpc(
      'quote_order',
      { p_token: token, p_side: 'buy', p_type: 'limit', p_amount: 15, p_price: 14 },
      { get: true },
    );
    expect(quoted).toMatchObject({ stopped_by: 'band', filled: 10, resting: 5, band_beyond: 13, band_reference: 10 });

    const { data, error } = await limit(b, token, 'buy', 15, 14);
    expect(error).toBeNull();
    const placed = data as Placed;
    expect(placed).toMatchObject({ status: 'open', filled: 10, resting: 5, average_price: 11.5 });
    expect(placed.auction_until).toBeDefined();
    expect(await phase(token)).toEqual({ trading_phase: 'volatility_auction', auction_until: expect.anything() });
    // The book is crossed now, and stays so: nothing matches in the call period.
    expect(await book(suite.backend, token)).toEqual([
      { side: 'buy', price: 14, amount: 5 },
      { side: 'sell', price: 13, amount: 5 },
    ]);
    const [auction] = await suite.backend.db.query<{
      reference_price: string;
      trigger_price: string;
      band_bps: number;
    }>('select reference_price, trigger_price, band_bps from volatility_auctions where token_id = $1', [token]);
    expect(auction).toMatchObject({ reference_price: '10.00', trigger_price: '13.00', band_bps: 2000 });
    // 10 tokens for $115.00 and its fee of $2.30; the rest's $70.00 and fee of $1.40 held back.
    expect(await cash(suite.backend, b.id)).toEqual({ available: 811.3, reserved: 71.4 });
    expect(await invariantViolations(suite.backend)).toEqual([]);
  });

  it('in the call period limit orders rest unmatched; market, immediate-or-cancel, fill-or-kill and post-only orders are refused in words', async () => {
    const token = await market();
    const s = await seller(token);
    expect((await limit(s, token, 'sell', 1, 13)).error).toBeNull();
    const b = await buyer();
    // A bid at $13.00 would meet the ask beyond $12.00: it rests, and the auction starts.
    expect((await limit(b, token, 'buy', 1, 13)).data).toMatchObject({ status: 'open', filled: 0, resting: 1 });
    const { auction_until } = await phase(token);
    const until = new Date(auction_until!).toISOString().slice(11, 19);
    const [{ name }] = (await suite.backend.db.query<{ name: string }>('select name from tokens where id = $1', [
      token,
    ])) as [{ name: string }];
    const refusal = `${name} is in a volatility auction until ${until} UTC: orders are collected and trade at one price when it ends. A limit order good til cancelled or til a date joins the auction; market, immediate-or-cancel, fill-or-kill and post-only orders wait until continuous trading resumes.`;
    const before = await cash(suite.backend, b.id);
    expect((await placeOrder(b.client, token, 'buy', 'market', 1)).error?.message).toBe(refusal);
    for (const extra of [{ p_time_in_force: 'ioc' }, { p_time_in_force: 'fok' }, { p_post_only: true }])
      expect(
        (
          await b.client.rpc('place_order', {
            p_token: token,
            p_side: 'buy',
            p_type: 'limit',
            p_amount: 1,
            p_price: 13,
            ...extra,
          })
        ).error?.message,
      ).toBe(refusal);
    expect(await cash(suite.backend, b.id)).toEqual(before);
    // A crossing limit order rests: the ask at $12.50 waits under the bid at $13.00 for the uncross.
    expect((await limit(s, token, 'sell', 1, 12.5)).data).toMatchObject({ status: 'open', filled: 0, resting: 1 });
    const { data: shown } = await b.client
      .from('volatility_auction_book')
      .select('indicative_price, indicative_volume, demand, supply')
      .eq('token_id', token)
      .is('uncrossed_at', null)
      .single();
    // At $12.50 one is bid and one offered; at $13.00 one bid and two offered: $12.50 leaves none over.
    expect(shown).toEqual({ indicative_price: 12.5, indicative_volume: 1, demand: 1, supply: 1 });
    expect(await invariantViolations(suite.backend)).toEqual([]);
  });

  it('the uncross trades at the one price of most volume, by price then time, each side paying the taker fee; trading resumes there', async () => {
    const token = await market();
    // A bid meets only an ask beyond the band: nothing trades, the bid rests, the auction starts.
    const e = await seller(token);
    expect((await limit(e, token, 'sell', 1, 13)).error).toBeNull();
    const f = await buyer();
    expect((await limit(f, token, 'buy', 1, 13)).data).toMatchObject({
      status: 'open',
      filled: 0,
      auction_until: expect.any(String),
    });
    const [a, b, c, d] = [await buyer(), await buyer(), await seller(token), await seller(token)];
    expect((await limit(a, token, 'buy', 10, 13)).error).toBeNull();
    expect((await limit(c, token, 'sell', 6, 12)).error).toBeNull();
    expect((await limit(b, token, 'buy', 10, 12.5)).error).toBeNull();
    expect((await limit(d, token, 'sell', 10, 12.5)).error).toBeNull();
    // At $12.50: 21 bid at or above, 16 offered at or below: 16 trade (at $12.00 only 6, at $13.00 11).
    await uncross(suite.backend, token);

    const [done] = await suite.backend.db.query<{ uncross_price: string; volume: string }>(
      'select uncross_price, volume::text from volatility_auctions where token_id = $1',
      [token],
    );
    expect(done).toEqual({ uncross_price: '12.50', volume: '16' });
    const trades = await suite.backend.db.query<{ buyer_id: string; seller_id: string; price: string; amount: string }>(
      `select buyer_id, seller_id, price, amount::text from trades where token_id = $1 and price = 12.5 order by id`,
      [token],
    );
    // Bids by price then time (F's 1 and A's 10 at $13.00, B's 10 at $12.50), asks likewise (C's 6, D's 10).
    expect(trades).toEqual([
      { buyer_id: f.id, seller_id: c.id, price: '12.50', amount: '1' },
      { buyer_id: a.id, seller_id: c.id, price: '12.50', amount: '5' },
      { buyer_id: a.id, seller_id: d.id, price: '12.50', amount: '5' },
      { buyer_id: b.id, seller_id: d.id, price: '12.50', amount: '5' },
    ]);
    // A: 10 for $125.00 + $2.50, all it held back released. B: 5 for $62.50 + $1.25; 5 rest at $12.50 ($63.75 held).
    expect(await cash(suite.backend, a.id)).toEqual({ available: 872.5, reserved: 0 });
    expect(await cash(suite.backend, b.id)).toEqual({ available: 872.5, reserved: 63.75 });
    expect(await cash(suite.backend, f.id)).toEqual({ available: 987.25, reserved: 0 });
    expect(await cash(suite.backend, c.id)).toEqual({ available: 173.5, reserved: 0 });
    expect(await cash(suite.backend, d.id)).toEqual({ available: 222.5, reserved: 0 });
    expect(await holding(suite.backend, b.id, token)).toEqual({ amount: 5, reserved: 0 });
    expect(await phase(token)).toEqual({ trading_phase: 'continuous', auction_until: null });
    expect(await book(suite.backend, token)).toEqual([
      { side: 'buy', price: 12.5, amount: 5 },
      { side: 'sell', price: 13, amount: 1 },
    ]);
    // The auction's price is the reference now: $13.00 lies within 20% of $12.50, and trades.
    expect((await placeOrder(f.client, token, 'buy', 'market', 1)).data).toMatchObject({
      status: 'filled',
      average_price: 13,
    });
    // A holder was told when it started and when it ended.
    const told = await suite.backend.db.query<{ title: string }>(
      `select title from notifications where user_id = $1 and kind = 'auction' order by id`,
      [e.id],
    );
    expect(told.map((n) => n.title)).toEqual([
      expect.stringMatching(/: volatility auction$/),
      expect.stringMatching(/: trading resumed$/),
    ]);
    // Every order rested in the auction: buyers are told of their fills, as sellers are.
    const [filled] = await suite.backend.db.query<{ body: string }>(
      `select body from notifications where user_id = $1 and kind = 'fill' and title = 'Filled in the Auction'`,
      [b.id],
    );
    expect(filled!.body).toMatch(
      /^Your order to buy 10 .* tokens at \$12\.50 traded 5 at the volatility auction's price of \$12\.50; the rest still rests on the book\.$/,
    );
    const sellers = await suite.backend.db.query<{ user_id: string }>(
      `select distinct user_id from notifications where kind = 'fill' and user_id = any ($1::uuid[])`,
      [[c.id, d.id]],
    );
    expect(sellers).toHaveLength(2);
    expect(await invariantViolations(suite.backend)).toEqual([]);
  });

  it('a fill-or-kill that would reach beyond the band is refused and starts nothing', async () => {
    const token = await market();
    const s = await seller(token);
    expect((await limit(s, token, 'sell', 5, 11)).error).toBeNull();
    expect((await limit(s, token, 'sell', 5, 13)).error).toBeNull();
    const b = await buyer();
    const { error } = await b.client.rpc('place_order', {
      p_token: token,
      p_side: 'buy',
      p_type: 'limit',
      p_amount: 10,
      p_price: 13,
      p_time_in_force: 'fok',
    });
    expect(error?.message).toMatch(
      /^Fill or kill: at \$13\.00 this order would trade beyond the volatility band around .*'s reference price of \$10\.00, so nothing was placed\.$/,
    );
    const { data: quoted } = await b.client.rpc(
      'quote_order',
      { p_token: token, p_side: 'buy', p_type: 'limit', p_amount: 10, p_price: 13, p_time_in_force: 'fok' },
      { get: true },
    );
    expect((quoted as { refusal: string }).refusal).toBe(error?.message);
    expect(await phase(token)).toEqual({ trading_phase: 'continuous', auction_until: null });
    expect(await cash(suite.backend, b.id)).toEqual({ available: 1000, reserved: 0 });
  });

  it("a stop cascade stops at the boundary: the stop that meets the band waits again, and runs at the auction's price", async () => {
    const token = await market();
    const [b1, b2, x] = [await buyer(), await buyer(), await seller(token)];
    const holder = await seller(token, 5);
    expect((await limit(b1, token, 'buy', 5, 9.5)).error).toBeNull();
    expect((await limit(b2, token, 'buy', 5, 7.7)).error).toBeNull();
    const stop = await holder.client.rpc('place_order', {
      p_token: token,
      p_side: 'sell',
      p_type: 'market',
      p_amount: 5,
      p_stop_price: 9.6,
    });
    expect(stop.error).toBeNull();
    // The sale at $9.50 triggers the stop; its market sell would meet $7.70, beyond $8.00.
    expect((await placeOrder(x.client, token, 'sell', 'market', 5)).data).toMatchObject({
      status: 'filled',
      average_price: 9.5,
    });
    expect((await phase(token)).trading_phase).toBe('volatility_auction');
    const waiting = async () =>
      (
        await suite.backend.db.query<{ status: string; triggered_at: string | null }>(
          'select status, triggered_at from orders where id = $1',
          [(stop.data as Placed).order_id],
        )
      )[0];
    expect(await waiting()).toEqual({ status: 'pending', triggered_at: null });
    expect(await holding(suite.backend, holder.id, token)).toEqual({ amount: 5, reserved: 5 });
    // Nobody answers in the call period: the move stands ($7.70 is the reference), and the stop sells there.
    await uncross(suite.backend, token);
    expect((await waiting())!.status).toBe('filled');
    expect(await holding(suite.backend, holder.id, token)).toEqual({ amount: 0, reserved: 0 });
    expect(await cash(suite.backend, holder.id)).toEqual({ available: 137.73, reserved: 0 });
    expect(await invariantViolations(suite.backend)).toEqual([]);
  });
});
