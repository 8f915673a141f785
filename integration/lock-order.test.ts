import type { SupabaseClient } from '@supabase/supabase-js';
import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { freshToken, invariantViolations, offeringToken, placeOrder, trader, type Trader } from './harness/market';

jest.setTimeout(240_000);

/*
 * The lock order (docs/database.md): a person's row, then books in token order, then cash in user
 * order. Limits counted per person hold under concurrency, and a mix of every kind of write at once
 * meets no deadlock a client would see.
 */
describe.each(ENGINES)('per-person limits at once on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  it('keeps 20 price alerts when 40 are set at once', async () => {
    const token = await freshToken(backend);
    const me = await trader(backend);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        me.client.rpc('set_price_alert', { p_token: token, p_kind: 'above', p_value: 20 + i / 100 }),
      ),
    );
    const [{ n }] = (await backend.db.query('select count(*)::int as n from price_alerts where user_id = $1', [
      me.id,
    ])) as [{ n: number }];
    expect(n).toBe(20);
    expect(answers.filter((a) => a.error).map((a) => [a.status, a.error!.message])).toEqual(
      Array(20).fill([400, 'You have 20 price alerts, the most allowed. Remove one to set another.']),
    );
  });

  it('leaves 5 open orders when 24 limit orders over 4 tokens are placed at once with a limit of 5', async () => {
    const tokens = [
      await freshToken(backend),
      await freshToken(backend),
      await freshToken(backend),
      await freshToken(backend),
    ];
    const me = await trader(backend, { cash: 10_000 });
    await backend.db.query('update exchange_settings set max_open_orders = 5');
    try {
      const answers = await Promise.all(
        Array.from({ length: 24 }, (_, i) => placeOrder(me.client, tokens[i % 4]!, 'buy', 'limit', 1, 5 + i / 100)),
      );
      const [{ n }] = (await backend.db.query(
        `select count(*)::int as n from orders where user_id = $1 and status = 'open'`,
        [me.id],
      )) as [{ n: number }];
      expect(n).toBe(5);
      expect(new Set(answers.filter((a) => a.error).map((a) => a.error!.message))).toEqual(
        new Set(['You have 5 open orders, the most allowed. Cancel one before placing another limit or stop order.']),
      );
    } finally {
      await backend.db.query('update exchange_settings set max_open_orders = 100');
    }
  });
});

(ENGINES.includes('postgres') ? describe : describe.skip)('every kind of write at once on postgres', () => {
  let backend: Backend;
  beforeAll(async () => {
    // The scheduler runs due plans and stops every 20 ms, among the requests.
    backend = await backendFor('postgres', { autoInvestMs: 20 })();
  });
  afterAll(() => backend.close());

  it('plans, orders, offering bids and cancels from 12 people for 8 s: no 5xx, the books balance', async () => {
    const tokens = [
      await freshToken(backend, 100_000),
      await freshToken(backend, 100_000),
      await freshToken(backend, 100_000),
    ];
    const offering = await offeringToken(backend, { supply: 5000, price: 10 });
    const people: Trader[] = [];
    for (let i = 0; i < 12; i++) {
      const t = await trader(backend, { cash: 50_000 });
      for (const token of tokens) await backend.db.query('select private.issue_tokens($1, $2, 2000)', [token, t.id]);
      people.push(t);
    }
    const statuses = new Map<number, number>();
    const refusals = new Set<string>();
    const record = (a: { status: number; error: { message: string } | null }) => {
      statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
      if (a.status >= 500 || a.status === 409) refusals.add(`${a.status} ${a.error?.message}`);
    };
    const deadlocks = async () =>
      (
        (await backend.db.query(
          'select deadlocks::int as n from pg_stat_database where datname = current_database()',
        )) as [{ n: number }]
      )[0].n;
    const deadlocksBefore = await deadlocks();
    const until = Date.now() + 8000;
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;

    async function act(c: SupabaseClient, i: number) {
      const token = tokens[Math.floor(random() * tokens.length)]!;
      const price = Math.round((9 + random() * 2) * 100) / 100;
      switch (i % 7) {
        case 0: {
          const plan = await c.rpc('create_invest_plan', {
            p_amount: 50,
            p_frequency: 'daily',
            p_token: random() < 0.5 ? token : null,
          });
          record(plan);
          if (plan.data && random() < 0.5) record(await c.rpc('delete_invest_plan', { p_plan: plan.data.id }));
          return;
        }
        case 1:
        case 2:
          return record(
            await placeOrder(c, token, random() < 0.5 ? 'buy' : 'sell', 'limit', 1 + Math.floor(random() * 5), price),
          );
        case 3:
          return record(
            await placeOrder(c, token, random() < 0.5 ? 'buy' : 'sell', 'market', 1 + Math.floor(random() * 5)),
          );
        case 4:
          return record(
            await c.rpc('place_offering_bid', {
              p_token: offering,
              p_price: price,
              p_amount: 10 + Math.floor(random() * 50),
            }),
          );
        case 5:
          return record(await c.rpc('cancel_all_orders', { p_token: random() < 0.5 ? token : null }));
        default:
          return record(await c.rpc('set_price_alert', { p_token: token, p_kind: 'above', p_value: 50 }));
      }
    }
    await Promise.all(
      people.map(async (p, w) => {
        for (let i = w; Date.now() < until; i++) await act(p.client, i);
      }),
    );
    // Each plan is due at once: the scheduler's runs meet the orders on the same books and cash.
    const counts = Object.fromEntries([...statuses].sort());
    console.log(
      `statuses over 8 s: ${JSON.stringify(counts)}; runs: ${
        ((await backend.db.query('select count(*)::int as n from invest_runs')) as [{ n: number }])[0].n
      }`,
    );
    await new Promise((resolve) => setTimeout(resolve, 1500)); // the statistics are flushed within a second
    const cycles = (await deadlocks()) - deadlocksBefore;
    const requests = [...statuses.values()].reduce((a, b) => a + b, 0);
    console.log(`deadlocks the database broke: ${cycles} in ${requests} requests`);
    expect([...refusals].filter((r) => r.startsWith('5'))).toEqual([]);
    // Before the one lock order, about one request in a hundred met a deadlock here.
    expect(cycles / requests).toBeLessThan(0.002);
    expect([...refusals].filter((r) => r.startsWith('409')).every((r) => /Please try again\.$/.test(r))).toBe(true);
    expect(await invariantViolations(backend)).toEqual([]);
  });
});
