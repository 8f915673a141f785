import { OrderBook, SelfTradePreventionMode, Side, type LimitOrderOptions } from 'nodejs-order-book';
import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { rng } from './harness/load';
import { book, freshToken, invariantViolations, placeOrder, trader, type Trader } from './harness/market';

jest.setTimeout(120_000);

/**
 * Our matching, order by order, against an in-memory reference (nodejs-order-book) with the same
 * accounts and the same self-trade policy (expire maker). Accounts have ample cash and tokens, so
 * the only difference left is stated policy: we refuse a market order that cannot fill at all
 * (the reference would expire the owner's own orders); the stream skips it in both.
 *
 * The second stream adds immediate-or-cancel, fill-or-kill, post-only and stops. Conventions that
 * differ, written down and applied to both sides:
 *  - a fill-or-kill counts only others' orders (one's own are expired, never filled); the reference
 *    counts the owner's too, so the stream sends none where the owner's own orders cross its price;
 *  - our stops trigger on the last trade price whichever side traded; the reference checks only
 *    the stops on the side of the order that traded. A stop ours triggered and the reference did
 *    not is taken from the reference's stop book and run there as its order, as ours ran it;
 *  - our stops run one at a time in a fixed order (docs/trading.md), the reference's by its trees:
 *    the stream keeps at most one waiting stop a side, so the orders never differ.
 */
describe.each(ENGINES)('matching compared with nodejs-order-book on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  it('fills every order by the same amount and leaves the same book', async () => {
    const token = await freshToken(backend, 100_000_000);
    const traders: Trader[] = [];
    for (let i = 0; i < 4; i++) traders.push(await trader(backend, { cash: 10_000_000, token, tokens: 100_000 }));
    const reference = new OrderBook();
    const random = rng(42);
    const ours: number[] = [];
    const theirs: number[] = [];

    for (let i = 0; i < 250; i++) {
      const account = i % traders.length;
      const side = random() < 0.5 ? 'buy' : 'sell';
      const type = i > 20 && random() < 0.25 ? 'market' : 'limit';
      const amount = 1 + Math.floor(random() * 20);
      const price = Math.round((9.5 + random()) * 100) / 100;
      const base = {
        side: side === 'buy' ? Side.BUY : Side.SELL,
        size: amount,
        accountId: String(account),
        stpMode: SelfTradePreventionMode.EXPIRE_MAKER,
      };

      if (type === 'market') {
        const snapshot = reference.snapshot();
        const opposite = side === 'buy' ? snapshot.asks : snapshot.bids;
        const othersRest = opposite.some((level) => level.orders.some((o) => o.accountId !== String(account)));
        const { data, error } = await traders[account]!.client.rpc('place_order', {
          p_token: token,
          p_side: side,
          p_type: 'market',
          p_amount: amount,
        });
        if (!othersRest) {
          expect(error?.message).toMatch(/There are no .* orders/); // refused, nothing changed
          continue;
        }
        expect(error).toBeNull();
        ours.push((data as { filled: number }).filled);
        theirs.push(amount - reference.market(base).quantityLeft);
      } else {
        const id = String(i);
        const { data, error } = await traders[account]!.client.rpc('place_order', {
          p_token: token,
          p_side: side,
          p_type: 'limit',
          p_amount: amount,
          p_price: price,
        });
        expect(error).toBeNull();
        ours.push((data as { filled: number }).filled);
        const result = reference.limit({ ...base, id, price });
        theirs.push(
          result.done.some((d) => d.id === id)
            ? amount
            : result.partial?.id === id
              ? result.partialQuantityProcessed
              : 0,
        );
      }
    }

    expect(ours).toEqual(theirs);
    expect(ours.reduce((a, b) => a + b, 0)).toBeGreaterThan(100); // the stream really traded

    const snapshot = reference.snapshot();
    const level = (side: 'buy' | 'sell') => (l: { price: number; orders: { size: number }[] }) => ({
      side,
      price: l.price,
      amount: l.orders.reduce((n, o) => n + o.size, 0),
    });
    const expected = [...snapshot.bids.map(level('buy')), ...snapshot.asks.map(level('sell'))].filter(
      (l) => l.amount > 0,
    );
    const byKey = (a: { side: string; price: number }, b: { side: string; price: number }) =>
      a.side.localeCompare(b.side) || a.price - b.price;
    expect((await book(backend, token)).sort(byKey)).toEqual(expected.sort(byKey));
    expect(await invariantViolations(backend)).toEqual([]);
  });
});

/** The reference's time-in-force values (its enum is not exported, only its strings). */
const TimeInForce = { IOC: 'IOC', FOK: 'FOK' } as unknown as Record<
  'IOC' | 'FOK',
  NonNullable<LimitOrderOptions['timeInForce']>
>;

/** The reference's stop book, which its API does not expose: to apply our trigger rule to it. */
interface ReferenceStops {
  stopBook: {
    remove: (side: Side, id: string, stopPrice: number) => unknown;
    snapshot: () => Record<
      'bids' | 'asks',
      { price: number; orders: { id: string; accountId?: string; size: number; price?: number; type: string }[] }[]
    >;
  };
}

describe.each(ENGINES)('time in force, post-only and stops compared with nodejs-order-book on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  it('every step leaves the same book and the same waiting stops', async () => {
    const token = await freshToken(backend, 100_000_000);
    const traders: Trader[] = [];
    for (let i = 0; i < 4; i++) traders.push(await trader(backend, { cash: 10_000_000, token, tokens: 100_000 }));
    const reference = new OrderBook();
    const stops = (reference as unknown as ReferenceStops).stopBook;
    const random = rng(7);
    const counts: Record<string, number> = {};
    const levels = (side: 'buy' | 'sell') => (l: { price: number; orders: { size: number }[] }) => ({
      side,
      price: l.price,
      amount: l.orders.reduce((n, o) => n + o.size, 0),
    });
    const byKey = (a: { side: string; price: number }, b: { side: string; price: number }) =>
      a.side.localeCompare(b.side) || a.price - b.price;
    const ourStops = async () =>
      (
        await backend.db.query<{ id: string; side: 'buy' | 'sell'; stop_price: string }>(
          `select id, side, stop_price from orders where token_id = $1 and status = 'pending'`,
          [token],
        )
      ).map((o) => ({ id: String(o.id), side: o.side, stop: Number(o.stop_price) }));

    for (let i = 0; i < 250; i++) {
      const account = i % traders.length;
      const client = traders[account]!.client;
      const side = random() < 0.5 ? 'buy' : 'sell';
      const amount = 1 + Math.floor(random() * 20);
      const price = Math.round((9.5 + random()) * 100) / 100;
      const roll = random();
      const kind =
        i < 20
          ? 'limit'
          : roll < 0.35
            ? 'limit'
            : roll < 0.5
              ? 'ioc'
              : roll < 0.62
                ? 'fok'
                : roll < 0.74
                  ? 'post'
                  : roll < 0.9
                    ? 'stop'
                    : 'market';
      const base = {
        side: side === 'buy' ? Side.BUY : Side.SELL,
        size: amount,
        accountId: String(account),
        stpMode: SelfTradePreventionMode.EXPIRE_MAKER,
      };
      const snapshot = reference.snapshot();
      const opposite = side === 'buy' ? snapshot.asks : snapshot.bids;
      const crosses = (p: number) => (side === 'buy' ? p <= price : p >= price);

      if (kind === 'market') {
        if (!opposite.some((l) => l.orders.some((o) => o.accountId !== String(account)))) continue;
        expect((await placeOrder(client, token, side, 'market', amount)).error).toBeNull();
        reference.market(base);
      } else if (kind === 'stop') {
        const waiting = await ourStops();
        if (waiting.some((s) => s.side === side)) continue; // one waiting stop a side
        const last = reference.marketPrice;
        const offset = Math.round((0.05 + random() * 0.4) * 100) / 100;
        const stop = Math.round((side === 'buy' ? last + offset : last - offset) * 100) / 100;
        const limit =
          random() < 0.5
            ? null
            : Math.round((side === 'buy' ? stop + random() * 0.3 : stop - random() * 0.3) * 100) / 100;
        const { data, error } = await client.rpc('place_order', {
          p_token: token,
          p_side: side,
          p_type: limit === null ? 'market' : 'limit',
          p_amount: amount,
          p_price: limit,
          p_stop_price: stop,
        });
        expect(error).toBeNull();
        const id = String((data as { order_id: number }).order_id);
        const result =
          limit === null
            ? reference.stopMarket({ ...base, id, stopPrice: stop })
            : reference.stopLimit({ ...base, id, price: limit, stopPrice: stop });
        expect(result.err).toBeNull();
      } else {
        const id = `r${i}`;
        if (
          kind === 'fok' &&
          opposite.some((l) => crosses(l.price) && l.orders.some((o) => o.accountId === String(account)))
        )
          continue; // the reference would count the owner's own orders
        const { error } = await client.rpc('place_order', {
          p_token: token,
          p_side: side,
          p_type: 'limit',
          p_amount: amount,
          p_price: price,
          p_time_in_force: kind === 'ioc' ? 'ioc' : kind === 'fok' ? 'fok' : 'gtc',
          p_post_only: kind === 'post',
        });
        const result = reference.limit({
          ...base,
          id,
          price,
          ...(kind === 'ioc'
            ? { timeInForce: TimeInForce.IOC }
            : kind === 'fok'
              ? { timeInForce: TimeInForce.FOK }
              : {}),
          ...(kind === 'post' ? { postOnly: true } : {}),
        });
        // Refused on both sides, or on neither.
        expect(error?.message.match(/^(Fill or kill|Post-only)/)?.[1] ?? null).toBe(
          result.err === null ? null : kind === 'fok' ? 'Fill or kill' : 'Post-only',
        );
      }
      counts[kind] = (counts[kind] ?? 0) + 1;

      // Our trigger rule, applied to the reference: a stop ours ran runs there too, as its order.
      const waiting = await ourStops();
      const stopBook = stops.snapshot();
      for (const [stopSide, book] of [
        [Side.BUY, stopBook.bids],
        [Side.SELL, stopBook.asks],
      ] as const) {
        for (const level of book) {
          for (const o of level.orders) {
            if (waiting.some((w) => w.id === o.id)) continue;
            stops.remove(stopSide, o.id, level.price);
            const as = {
              side: stopSide,
              size: o.size,
              accountId: o.accountId,
              stpMode: SelfTradePreventionMode.EXPIRE_MAKER,
            };
            if (o.type === 'stop_market') reference.market(as);
            else reference.limit({ ...as, id: o.id, price: o.price! });
          }
        }
      }
      const theirStops = [...stops.snapshot().bids, ...stops.snapshot().asks].flatMap((l) => l.orders.map((o) => o.id));
      expect(theirStops.sort()).toEqual(waiting.map((w) => w.id).sort());
      const after = reference.snapshot();
      const expected = [...after.bids.map(levels('buy')), ...after.asks.map(levels('sell'))].filter(
        (l) => l.amount > 0,
      );
      expect((await book(backend, token)).sort(byKey)).toEqual(expected.sort(byKey));
    }

    // The stream really used each kind, and some stops ran.
    for (const kind of ['limit', 'ioc', 'fok', 'post', 'stop', 'market']) expect(counts[kind]).toBeGreaterThan(5);
    const [ran] = await backend.db.query<{ n: string }>(
      `select count(*) as n from orders where token_id = $1 and triggered_at is not null`,
      [token],
    );
    expect(Number(ran!.n)).toBeGreaterThan(3);
    expect(await invariantViolations(backend)).toEqual([]);
  });
});
