import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { DEMO, signedIn } from './harness/clients';
import { trader } from './harness/market';

const HOUR = 3_600_000;

describe.each(ENGINES)('the RepX index on %s', (engine) => {
  let backend: Backend;
  /** The first day of the example: two days ago, 00:00 UTC. */
  const d0 = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000 - 2 * 86_400_000);
  const at = (hours: number) => new Date(d0.getTime() + hours * HOUR).toISOString();
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    backend = await backendFor(engine)();
    // Only this example's tokens are eligible: the seed's are halted.
    await backend.db.query(`update tokens set halt_reason = 'Left out of this test', halted_at = now()`);
    const buyer = await trader(backend);
    const seller = await trader(backend);
    // Five tokens of 1,000 listed eight days before d0, each traded once the day before it.
    for (const [name, price] of [
      ['A', 100],
      ['B', 50],
      ['C', 20],
      ['D', 20],
      ['E', 10],
    ] as const) {
      const [row] = await backend.db.query<{ id: string }>(
        `insert into tokens (name, username, category, reputation_score, total_supply, issue_price, created_at)
         values ($1, $2, 'Designer', 50, 1000, $3, $4) returning id`,
        [`Index ${name}`, `index_${name.toLowerCase()}`, price, at(-8 * 24)],
      );
      ids[name] = row!.id;
      await trade(ids[name], buyer.id, seller.id, price, at(-12));
    }
    // A rises to 120 at 02:30 on d0.
    await trade(ids.A!, buyer.id, seller.id, 120, at(2.5));
    await backend.db.exec('delete from index_levels; delete from index_members;');
  });
  afterAll(() => backend.close());

  const trade = (token: string, buyer: string, seller: string, price: number, when: string) =>
    backend.db.query(
      `insert into trades (token_id, buyer_id, seller_id, price, amount, taker_side, buyer_fee, seller_fee, created_at, fee_bps)
       values ($1, $2, $3, $4, 1, 'buy', 0, 0, $5, 200)`,
      [token, buyer, seller, price, when],
    );
  const level = async (period: 'hour' | 'day', hours: number) =>
    Number(
      (
        await backend.db.query<{ level: string }>('select level from index_levels where period = $1 and at = $2', [
          period,
          at(hours),
        ])
      )[0]?.level,
    );
  const basket = async (hours: number) =>
    Object.fromEntries(
      (
        await backend.db.query<{ token_id: string; weight: string; units: string }>(
          `select token_id, weight, units from index_members where day = ($1::timestamptz at time zone 'UTC')::date`,
          [at(hours)],
        )
      ).map((m) => [Object.keys(ids).find((k) => ids[k] === m.token_id), [Number(m.weight), Number(m.units)] as const]),
    );

  it('starts at 1,000 with capped market-cap weights, and moves with its members', async () => {
    const [{ hours }] = (await backend.db.query<{ hours: number }>(
      'select private.record_index_levels() as hours',
    )) as [{ hours: number }];
    // Every hour from d0 00:00 to now.
    expect(hours).toBe(Math.floor((Date.now() - d0.getTime()) / HOUR) + 1);

    // Caps 100k, 50k, 20k, 20k, 10k: A is 50% and B 25% of the rest's 75%, both capped at 25%;
    // C, D and E share the remaining 50% by cap. Units carry 1,000 at each price.
    expect(await basket(0)).toEqual({
      A: [0.25, 2.5],
      B: [0.25, 5],
      C: [0.2, 10],
      D: [0.2, 10],
      E: [0.1, 10],
    });
    expect(await level('hour', 0)).toBe(1000);
    expect(await level('day', 0)).toBe(1000);
    expect(await level('hour', 2)).toBe(1000);
    // 2.5 x 120 + 5 x 50 + 10 x 20 + 10 x 20 + 10 x 10
    expect(await level('hour', 3)).toBe(1050);

    // The next day's rebalance keeps the level (1,050 at its open) with new units at A's new price.
    expect(await level('day', 24)).toBe(1050);
    const next = await basket(24);
    expect(next.A![0]).toBe(0.25);
    expect(next.A![1]).toBeCloseTo((1050 * 0.25) / 120, 9);
    expect(next.E).toEqual([0.1, 10.5]);
  });

  it('writes each hour once, however often it runs, and shows the basket to signed-in users only', async () => {
    const count = async () => (await backend.db.query('select 1 from index_levels')).length;
    const before = await count();
    await backend.db.query('select private.record_index_levels()');
    expect(await count()).toBe(before);

    const c = await signedIn(backend.url, DEMO);
    const { data, error } = await c.from('index_basket').select('name, weight').order('name');
    expect(error).toBeNull();
    expect(data!.map((m) => m.name)).toEqual(['Index A', 'Index B', 'Index C', 'Index D', 'Index E']);
    const write = await c.from('index_levels').insert({ period: 'hour', at: new Date().toISOString(), level: 1 });
    expect(write.error).not.toBeNull();
  });
});
