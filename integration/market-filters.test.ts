import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { DEMO, signedIn } from './harness/clients';
import { NO_FILTERS, conditions, readQuery, where, type Filterable, type Filters } from '../mf-market/src/market/query';

/** A query builder as the market's `where` sees it (the typed builder is too deep for a generic). */
type Builder<T> = PromiseLike<T> & Filterable<Builder<T>>;
type Rows = { data: { username: string }[] | null; count: number | null; error: unknown };

describe.each(ENGINES)("the market's Advanced Filters on %s", (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  /** What the market screen asks with these filters: a page of usernames with the exact count, in one request. */
  const market = async (filters: Partial<Filters>) => {
    const c = await signedIn(backend.url, DEMO);
    const all = conditions({ ...readQuery(new URLSearchParams()), filters: { ...NO_FILTERS, ...filters } });
    const { data, count, error } = await where(
      c.from('market_tokens').select('username', { count: 'exact' }).order('username') as unknown as Builder<Rows>,
      all,
    );
    expect(error).toBeNull();
    expect(count).toBe(data!.length);
    return data!.map((r) => r.username);
  };
  /** The database's own answer, from the tokens' rows and their trades' figures. */
  const expected = async (condition: string) =>
    (
      await backend.db.query<{ username: string }>(
        `select t.username from tokens t join private.token_stats s on s.token_id = t.id where ${condition} order by t.username`,
      )
    ).map((r) => r.username);

  it('narrows by every range, verified only, hidden halts and several categories, as the rows say', async () => {
    expect(await market({ ranges: { price: { min: 30, max: 70 } } })).toEqual(
      await expected('s.price between 30 and 70'),
    );
    expect(await market({ ranges: { score: { min: 85 } }, verifiedOnly: true })).toEqual(
      await expected('t.reputation_score >= 85 and t.verified'),
    );
    expect(await market({ ranges: { change: { max: 0 }, cap: { min: 1 } } })).toEqual(
      await expected('s.change_24h <= 0 and s.market_cap >= 1'),
    );
    const two = await market({ categories: ['Designer', 'Fitness Coach'] });
    expect(two).toEqual(await expected(`t.category in ('Designer', 'Fitness Coach')`));
    expect(two.length).toBeGreaterThan(1);
  });

  it('follows a token halted, unverified, rescored or moved to another category', async () => {
    const all = await market({});
    await backend.db.query(
      `update tokens set halt_reason = 'An inquiry', halted_at = now() where username = 'sarahchen'`,
    );
    await backend.db.query(`update tokens set verified = false, reputation_score = 12 where username = 'marcusj'`);
    await backend.db.query(`update tokens set category = 'Writer' where username = 'emmafitness'`);

    expect(await market({ hideHalted: true })).toEqual(all.filter((u) => u !== 'sarahchen'));
    expect(await market({ verifiedOnly: true })).not.toContain('marcusj');
    expect(await market({ ranges: { score: { max: 20 } } })).toEqual(['marcusj']);
    expect(await market({ categories: ['Writer'] })).toEqual(['emmafitness']);

    await backend.db.query(`update tokens set halt_reason = null, halted_at = null where username = 'sarahchen'`);
    expect(await market({ hideHalted: true })).toEqual(all);
  });

  it("counts a filtered market from the figures' table alone, over indexes", async () => {
    // The count the screen asks for, as the REST layer writes it: tokens is left out of the plan.
    const plan = (
      await backend.db.query<{ 'QUERY PLAN': string }>(
        `explain select count(*) from public.market_tokens where price >= 1 and reputation_score >= 50
           and halted = false and category in ('Designer', 'Tech Influencer')`,
      )
    )
      .map((r) => r['QUERY PLAN'])
      .join('\n');
    expect(plan).toMatch(/token_stats/);
    expect(plan).not.toMatch(/\btokens\b/);
  });
});
