import type { Backend } from '../server/index';
import { callerStatement } from '../server/db/caller';
import { ENGINES, backendFor, eventually } from './harness/backends';
import { identityOf } from './harness/clients';
import { randomOrders } from './harness/load';
import { freshToken, invariantViolations, placeOrder, trader } from './harness/market';

jest.setTimeout(180_000);

describe.each(ENGINES)('concurrent trading on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  it('16 clients placing random orders at once keep every invariant', async () => {
    const tokens = [await freshToken(backend), await freshToken(backend)];
    const traders = [];
    for (let i = 0; i < 16; i++) {
      const t = await trader(backend, { cash: 5000 });
      for (const token of tokens) await backend.db.query('select private.issue_tokens($1, $2, 200)', [token, t.id]);
      traders.push(t);
    }
    // The first token is the first trader's own, halfway through its vesting: its trades pay them a
    // share of the fees, and they may sell only what has vested.
    await backend.db.query('update tokens set owner_id = $1 where id = $2', [traders[0]!.id, tokens[0]]);
    await backend.db.query(
      `insert into vesting_grants (token_id, user_id, total, starts_at, cliff_months, months)
       values ($1, $2, 200, now() - interval '12 months', 3, 24)`,
      [tokens[0], traders[0]!.id],
    );
    await backend.db.query(
      `update holdings h set locked = g.total - private.vested(g, now()) from vesting_grants g
        where g.token_id = $1 and h.token_id = g.token_id and h.user_id = g.user_id`,
      [tokens[0]],
    );
    const held = async () =>
      backend.db.query<{ token_id: string; n: string }>(
        'select token_id, sum(amount)::text as n from holdings where token_id = any($1) group by token_id order by token_id',
        [tokens],
      );
    const before = await held();

    const results = await Promise.all(
      traders.map((t, i) => randomOrders(t.client, tokens, { count: 40, seed: i + 1 })),
    );
    expect(results.flatMap((r) => r.failures)).toEqual([]);
    const trades = await backend.db.query<{ n: string }>(
      'select count(*)::text as n from trades where token_id = any($1)',
      [tokens],
    );
    expect(Number(trades[0]!.n)).toBeGreaterThan(20); // the load really traded

    expect(await invariantViolations(backend)).toEqual([]);
    expect(await held()).toEqual(before); // trades move tokens, never create or destroy them
    // The person was paid their share, and never sold what had not vested.
    const [paid] = await backend.db.query<{ n: string; share: string }>(
      `select count(*)::text as n, coalesce(sum(creator_share), 0)::text as share from trades where token_id = $1`,
      [tokens[0]],
    );
    expect(Number(paid!.share)).toBeGreaterThan(0);
    const [founder] = await backend.db.query<{ amount: string; locked: string }>(
      'select amount::text, locked::text from holdings where user_id = $1 and token_id = $2',
      [traders[0]!.id, tokens[0]],
    );
    expect(Number(founder!.amount)).toBeGreaterThanOrEqual(Number(founder!.locked));
    expect(Number(founder!.locked)).toBeGreaterThan(80); // about half of 200 still vesting
  });
});

/**
 * Price-time priority by arrival at the book. Requests queue for a book's lock; one whose
 * transaction began first may reach the book second, and must then rank second (PostgreSQL only:
 * PGlite runs one transaction at a time, so no request waits inside one).
 */
(ENGINES.includes('postgres') ? describe : describe.skip)('book time on postgres', () => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor('postgres')();
  });
  afterAll(() => backend.close());

  it('an order that reached the book later ranks later, whenever its transaction began', async () => {
    const token = await freshToken(backend);
    const early = await trader(backend, { token, tokens: 10 });
    const late = await trader(backend, { token, tokens: 10 });
    const buyer = await trader(backend, { cash: 1000 });
    const request = { method: 'POST', path: '/rest/v1/rpc/place_order', headers: {}, cookies: {} };
    const sell = 'select public.place_order($1, $2, $3, $4, $5) as r';
    const sellArgs = [token, 'sell', 'limit', '1', '10'];

    let began!: () => void;
    const earlyBegan = new Promise<void>((resolve) => (began = resolve));
    let locked!: () => void;
    const bookLocked = new Promise<void>((resolve) => (locked = resolve));
    // `early` begins its transaction, then waits for the book while `late` holds it.
    const earlyOrder = backend.db.transaction(async (tx) => {
      const caller = callerStatement(await identityOf(early.client), request);
      await tx.query(caller.text, caller.values);
      began();
      await bookLocked;
      return (await tx.query<{ r: { order_id: number } }>(sell, sellArgs))[0]!.r.order_id;
    });
    const lateOrder = await backend.db.transaction(async (tx) => {
      await earlyBegan;
      await tx.query('select 1 from public.tokens where id = $1 for update', [token]); // the book's lock
      locked();
      await eventually(async () => {
        const [w] = await backend.db.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%place_order%'`,
        );
        return w!.n > 0 ? true : undefined;
      });
      const caller = callerStatement(await identityOf(late.client), request);
      await tx.query(caller.text, caller.values);
      return (await tx.query<{ r: { order_id: number } }>(sell, sellArgs))[0]!.r.order_id;
    });
    const earlyId = await earlyOrder;

    const byTime = await backend.db.query<{ id: number }>(
      'select id from orders where id = any($1) order by created_at, id',
      [[earlyId, lateOrder]],
    );
    expect(byTime.map((o) => Number(o.id))).toEqual([Number(lateOrder), Number(earlyId)]);

    // A buyer of one token meets the order that joined the book first.
    const { data, error } = await placeOrder(buyer.client, token, 'buy', 'limit', 1, 10);
    expect(error).toBeNull();
    expect(data).toMatchObject({ status: 'filled' });
    const [trade] = await backend.db.query<{ sell_order_id: number }>(
      'select sell_order_id from trades where token_id = $1',
      [token],
    );
    expect(Number(trade!.sell_order_id)).toBe(Number(lateOrder));
  });
});
