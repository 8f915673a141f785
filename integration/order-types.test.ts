import type { SupabaseClient } from '@supabase/supabase-js';
import { adminSuite } from './harness/suites';
import { ENGINES } from './harness/backends';
import { book, cash, freshToken, holding, invariantViolations, placeOrder, trader } from './harness/market';

interface Placed {
  order_id: number;
  status: string;
  filled: number;
  resting: number;
  average_price: number | null;
}

/** place_order with the terms beyond side, type, amount and price. */
const place = (
  client: SupabaseClient,
  token: string,
  order: {
    side: 'buy' | 'sell';
    type?: 'market' | 'limit';
    amount: number;
    price?: number;
    tif?: string;
    expires?: string;
    postOnly?: boolean;
    stop?: number;
  },
) =>
  client.rpc('place_order', {
    p_token: token,
    p_side: order.side,
    p_type: order.type ?? 'limit',
    p_amount: order.amount,
    p_price: order.price ?? null,
    p_time_in_force: order.tif ?? 'gtc',
    p_expires_at: order.expires ?? null,
    p_post_only: order.postOnly ?? false,
    p_stop_price: order.stop ?? null,
  });

describe.each(ENGINES)('time in force, post-only, stops and pairs on %s', (engine) => {
  const suite = adminSuite(engine);
  const db = () => suite.backend.db;
  const orderRow = async (id: number) => {
    const [row] = await db().query<{ status: string; amount: string; filled: string; triggered_at: string | null }>(
      'select status, amount, filled, triggered_at from orders where id = $1',
      [id],
    );
    return { ...row!, amount: Number(row!.amount), filled: Number(row!.filled) };
  };
  /** A token at $10.00 with a holder of 100 tokens and a buyer with $5,000. */
  const market = async () => {
    const token = await freshToken(suite.backend);
    const seller = await trader(suite.backend, { token, tokens: 100, cash: 1000 });
    const buyer = await trader(suite.backend, { token, tokens: 100, cash: 5000 });
    return { token, seller, buyer };
  };

  it('immediate or cancel fills what crosses and cancels the rest; nothing rests or stays reserved', async () => {
    const { token, seller, buyer } = await market();
    await placeOrder(seller.client, token, 'sell', 'limit', 5, 10);
    const { data, error } = await place(buyer.client, token, { side: 'buy', amount: 8, price: 10, tif: 'ioc' });
    expect(error).toBeNull();
    expect(data as Placed).toMatchObject({ status: 'cancelled', filled: 5, resting: 0 });
    expect(await book(suite.backend, token)).toEqual([]);
    expect((await cash(suite.backend, buyer.id)).reserved).toBe(0);
    expect(await invariantViolations(suite.backend)).toEqual([]);
  });

  it('fill or kill fills entirely or is refused in words and changes nothing', async () => {
    const { token, seller, buyer } = await market();
    await placeOrder(seller.client, token, 'sell', 'limit', 5, 10);
    const before = await cash(suite.backend, buyer.id);
    const refused = await place(buyer.client, token, { side: 'buy', amount: 8, price: 10, tif: 'fok' });
    expect(refused.error?.message).toMatch(
      /^Fill or kill: 5 \S+ tokens are offered at \$10\.00 or better right now, fewer than the 8 asked, so nothing was placed\.$/,
    );
    expect(await cash(suite.backend, buyer.id)).toEqual(before);
    expect(await book(suite.backend, token)).toEqual([{ side: 'sell', price: 10, amount: 5 }]);
    const filled = await place(buyer.client, token, { side: 'buy', amount: 5, price: 10, tif: 'fok' });
    expect(filled.data as Placed).toMatchObject({ status: 'filled', filled: 5 });
  });

  it('post-only is refused when it would take liquidity, and rests when it would not', async () => {
    const { token, seller, buyer } = await market();
    await placeOrder(seller.client, token, 'sell', 'limit', 5, 10);
    const refused = await place(buyer.client, token, { side: 'buy', amount: 5, price: 10.5, postOnly: true });
    expect(refused.error?.message).toBe(
      'Post-only: at $10.50 this order would trade at once with the best ask at $10.00, so it was not placed. Choose a price below $10.00, or turn post-only off.',
    );
    expect(await book(suite.backend, token)).toEqual([{ side: 'sell', price: 10, amount: 5 }]);
    const rests = await place(buyer.client, token, { side: 'buy', amount: 5, price: 9.99, postOnly: true });
    expect(rests.data as Placed).toMatchObject({ status: 'open', resting: 5 });
  });

  it('a good-til-date order expires on the schedule and gives back what it held', async () => {
    const { token, buyer } = await market();
    const soon = new Date(Date.now() + 5 * 60_000).toISOString();
    const { data } = await place(buyer.client, token, { side: 'buy', amount: 10, price: 9, tif: 'gtd', expires: soon });
    const id = (data as Placed).order_id;
    expect((await cash(suite.backend, buyer.id)).reserved).toBe(91.8);
    await db().query(`update orders set expires_at = now() - interval '1 second' where id = $1`, [id]);
    await db().query('select private.expire_orders()');
    expect((await orderRow(id)).status).toBe('expired');
    expect((await cash(suite.backend, buyer.id)).reserved).toBe(0);
    expect(await book(suite.backend, token)).toEqual([]);
  });

  it('refuses terms that do not go together, in words, changing nothing', async () => {
    const { token, buyer } = await market();
    const before = await cash(suite.backend, buyer.id);
    const cases: [Parameters<typeof place>[2], string][] = [
      [
        { side: 'buy', amount: 1, price: 9, tif: 'forever' },
        'The time in force must be gtc (good til cancelled), ioc (immediate or cancel), fok (fill or kill) or gtd (good til date).',
      ],
      [{ side: 'buy', amount: 1, price: 9, tif: 'gtd' }, 'A good-til-date order needs the date and time it expires.'],
      [
        { side: 'buy', amount: 1, price: 9, tif: 'gtd', expires: new Date(Date.now() + 10_000).toISOString() },
        'A good-til-date order must expire at least one minute from now.',
      ],
      [
        { side: 'buy', type: 'market', amount: 1, postOnly: true },
        'Post-only is for limit orders placed on the book now.',
      ],
      [
        { side: 'buy', amount: 1, price: 9, tif: 'ioc', postOnly: true },
        'A post-only order waits on the book, so it cannot be immediate or cancel, nor fill or kill.',
      ],
      [
        { side: 'buy', type: 'market', amount: 1, tif: 'fok' },
        'Fill or kill is for limit orders: a market order already fills what it can at once and cancels the rest.',
      ],
      [{ side: 'buy', type: 'market', amount: 1, stop: 10.005 }, 'The trigger price has at most two decimals.'],
      [
        { side: 'buy', type: 'market', amount: 1, stop: 9.5 },
        'A buy stop triggers when the price rises to it, so its trigger must be above the last price of $10.00. To buy now, place a market or limit order.',
      ],
      [
        { side: 'sell', type: 'market', amount: 1, stop: 10 },
        'A sell stop triggers when the price falls to it, so its trigger must be below the last price of $10.00. To sell now, place a market or limit order.',
      ],
      [
        { side: 'buy', amount: 1, price: 10.5, stop: 11 },
        "A buy stop-limit's limit price must be at or above its trigger of $11.00: it buys once the price has risen there.",
      ],
    ];
    for (const [order, message] of cases)
      expect((await place(buyer.client, token, order)).error?.message).toBe(message);
    expect(await cash(suite.backend, buyer.id)).toEqual(before);
    expect((await db().query('select 1 from orders where token_id = $1', [token])).length).toBe(0);
  });

  it("a sell stop waits off the book with its tokens held, and another user's trade triggers it in that trade's transaction", async () => {
    const { token, seller, buyer } = await market();
    const third = await trader(suite.backend, { token, tokens: 10 });
    const { data, error } = await place(seller.client, token, { side: 'sell', type: 'market', amount: 50, stop: 9.5 });
    expect(error).toBeNull();
    const stop = data as Placed;
    expect(stop.status).toBe('pending');
    expect(await holding(suite.backend, seller.id, token)).toEqual({ amount: 100, reserved: 50 });
    expect(await book(suite.backend, token)).toEqual([]); // off the book
    await placeOrder(buyer.client, token, 'buy', 'limit', 100, 9.4);
    expect((await orderRow(stop.order_id)).status).toBe('pending');
    // Someone else sells one token at $9.40: the last price reaches the trigger.
    expect((await placeOrder(third.client, token, 'sell', 'market', 1)).error).toBeNull();
    const row = await orderRow(stop.order_id);
    expect(row).toMatchObject({ status: 'filled', filled: 50 });
    expect(row.triggered_at).not.toBeNull();
    expect(await holding(suite.backend, seller.id, token)).toEqual({ amount: 50, reserved: 0 });
    expect(await book(suite.backend, token)).toEqual([{ side: 'buy', price: 9.4, amount: 49 }]);
    expect(await invariantViolations(suite.backend)).toEqual([]);
  });

  it('a buy stop-market reserves its cost at the band edge from its trigger, and a cancel gives it back', async () => {
    const { token, buyer } = await market();
    const { data } = await place(buyer.client, token, { side: 'buy', type: 'market', amount: 10, stop: 11 });
    // 10 tokens at $13.20 (20% above $11.00) and the 2% fee.
    expect((await cash(suite.backend, buyer.id)).reserved).toBe(134.64);
    const cancelled = await buyer.client.rpc('cancel_order', { p_order: (data as Placed).order_id });
    expect(cancelled.error).toBeNull();
    expect(await cash(suite.backend, buyer.id)).toEqual({ available: 5000, reserved: 0 });
  });

  it('a cascade: one trade triggers stops whose fills trigger the next, all in its transaction, crossed first', async () => {
    const token = await freshToken(suite.backend, 100_000);
    const bidder = await trader(suite.backend, { cash: 100_000 });
    const holders = [];
    for (let i = 0; i < 5; i++) holders.push(await trader(suite.backend, { token, tokens: 10 }));
    // A ladder of bids: $9.90, $9.80, ... each for 10 tokens.
    for (let i = 1; i <= 6; i++) await placeOrder(bidder.client, token, 'buy', 'limit', 10, 10 - i / 10);
    // Each holder's stop triggers at the price the one before it sells down to.
    const stops: number[] = [];
    for (let i = 0; i < 5; i++) {
      const { data, error } = await place(holders[i]!.client, token, {
        side: 'sell',
        type: 'market',
        amount: 10,
        stop: Number((9.95 - i / 10).toFixed(2)),
      });
      expect(error).toBeNull();
      stops.push((data as Placed).order_id);
    }
    const starter = await trader(suite.backend, { token, tokens: 1 });
    expect((await placeOrder(starter.client, token, 'sell', 'market', 1)).error).toBeNull();
    const rows = await db().query<{ id: string; status: string; triggered_at: string }>(
      'select id, status, triggered_at from orders where id = any($1) order by triggered_at',
      [stops],
    );
    expect(rows.map((r) => r.status)).toEqual(['filled', 'filled', 'filled', 'filled', 'filled']);
    expect(rows.map((r) => Number(r.id))).toEqual(stops); // highest sell trigger first
    expect(await invariantViolations(suite.backend)).toEqual([]);
  });

  it('a take-profit and stop pair holds the tokens once; a partial take-profit shrinks the stop; the stop cancels the rest', async () => {
    const { token, seller, buyer } = await market();
    const { data, error } = await seller.client.rpc('place_oco', {
      p_token: token,
      p_amount: 100,
      p_take_profit: 10.5,
      p_stop_price: 9,
    });
    expect(error).toBeNull();
    const pair = data as { take_profit: Placed; stop: Placed };
    expect(await holding(suite.backend, seller.id, token)).toEqual({ amount: 100, reserved: 100 });
    await placeOrder(buyer.client, token, 'buy', 'limit', 40, 10.5);
    expect(await orderRow(pair.stop.order_id)).toMatchObject({ status: 'pending', amount: 60 });
    // The price falls to the trigger: the stop sells the 60 left, the take-profit is cancelled.
    await placeOrder(buyer.client, token, 'buy', 'limit', 100, 8.9);
    const third = await trader(suite.backend, { token, tokens: 1 });
    expect((await placeOrder(third.client, token, 'sell', 'market', 1)).error).toBeNull();
    expect(await orderRow(pair.take_profit.order_id)).toMatchObject({ status: 'cancelled', filled: 40 });
    expect(await orderRow(pair.stop.order_id)).toMatchObject({ status: 'filled', filled: 60 });
    expect(await holding(suite.backend, seller.id, token)).toEqual({ amount: 0, reserved: 0 });
    expect(await invariantViolations(suite.backend)).toEqual([]);
  });

  it('cancelling either order of a pair cancels both and gives the tokens back', async () => {
    const { token, seller } = await market();
    const { data } = await seller.client.rpc('place_oco', {
      p_token: token,
      p_amount: 30,
      p_take_profit: 11,
      p_stop_price: 9,
      p_stop_limit: 8.5,
    });
    const pair = data as { take_profit: Placed; stop: Placed };
    // The market hears of the take-profit's level too, found from the stop alone.
    const [told] = await db().query('select private.order_levels(array[$1::bigint]) as l', [pair.stop.order_id]);
    expect(told!.l).toContainEqual({ side: 'sell', price: 11 });
    expect((await seller.client.rpc('cancel_order', { p_order: pair.stop.order_id })).error).toBeNull();
    expect((await orderRow(pair.take_profit.order_id)).status).toBe('cancelled');
    expect(await holding(suite.backend, seller.id, token)).toEqual({ amount: 100, reserved: 0 });
    expect(await invariantViolations(suite.backend)).toEqual([]);
  });

  it('a waiting stop is edited to a new trigger, keeping its reservation whole', async () => {
    const { token, seller } = await market();
    const { data } = await place(seller.client, token, { side: 'sell', type: 'market', amount: 20, stop: 9 });
    const edited = await seller.client.rpc('replace_order', {
      p_order: (data as Placed).order_id,
      p_amount: 30,
      p_price: null,
      p_filled: 0,
      p_stop_price: 8.5,
    });
    expect(edited.error).toBeNull();
    const id = (edited.data as Placed).order_id;
    const [row] = await db().query<{ stop_price: string; amount: string }>(
      'select stop_price, amount from orders where id = $1',
      [id],
    );
    expect([Number(row!.stop_price), Number(row!.amount)]).toEqual([8.5, 30]);
    expect(await holding(suite.backend, seller.id, token)).toEqual({ amount: 100, reserved: 30 });
    expect(await invariantViolations(suite.backend)).toEqual([]);
  });

  // PostgreSQL only: PGlite has one connection, so nothing else can hold a lock meanwhile.
  (engine === 'postgres' ? it : it.skip)(
    "a stop whose owner's account is busy in another transaction is left waiting, and the scheduler runs it",
    async () => {
      const { token, seller, buyer } = await market();
      const third = await trader(suite.backend, { token, tokens: 10 });
      const { data } = await place(seller.client, token, { side: 'sell', type: 'market', amount: 10, stop: 9.5 });
      const stop = (data as Placed).order_id;
      await placeOrder(buyer.client, token, 'buy', 'limit', 50, 9.4);
      // Another transaction holds the stop owner's cash row while a trade reaches the trigger.
      await db().transaction(async (tx) => {
        await tx.query('select 1 from cash_accounts where user_id = $1 for update', [seller.id]);
        expect((await placeOrder(third.client, token, 'sell', 'market', 1)).error).toBeNull();
        expect((await orderRow(stop)).status).toBe('pending'); // the trade went through; the stop waits
      });
      expect(await db().query('select private.run_due_stops() as n')).toEqual([{ n: 1 }]);
      expect(await orderRow(stop)).toMatchObject({ status: 'filled', filled: 10 });
      expect(await invariantViolations(suite.backend)).toEqual([]);
    },
  );
});
