import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { DEMO, signedIn } from './harness/clients';

/** The seed's six tokens, counted by a server whose estimated counts stop counting at three. */
const MAX_ROWS = 3;

describe.each(ENGINES)("the REST API's three counts on %s", (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine, { maxRows: MAX_ROWS })();
  });
  afterAll(() => backend.close());

  const count = async (method: 'exact' | 'planned' | 'estimated', categories?: string[]) => {
    const c = await signedIn(backend.url, DEMO);
    let q = c.from('market_tokens').select('username', { count: method }).order('username').range(0, 1);
    if (categories) q = q.in('category', categories);
    const { data, count, error } = await q;
    expect(error).toBeNull();
    expect(data).toHaveLength(2);
    return count!;
  };
  /** What the planner expects the read to match, as PostgreSQL's own EXPLAIN says. */
  const planner = async () => {
    const [row] = await backend.db.query<{ 'QUERY PLAN': unknown }>(
      'explain (format json) select from public.market_tokens',
    );
    const plan = row!['QUERY PLAN'];
    const parsed = (typeof plan === 'string' ? JSON.parse(plan) : plan) as { Plan: { 'Plan Rows': number } }[];
    return Math.round(parsed[0]!.Plan['Plan Rows']);
  };

  it('counts every match when asked for an exact count, and the planner guesses a planned one', async () => {
    expect(await count('exact')).toBe(6);
    expect(await count('planned')).toBe(await planner());
  });

  it('counts exactly up to max_rows, and past it answers no fewer than it counted', async () => {
    expect(await count('estimated', ['Designer', 'Tech Influencer'])).toBe(2);
    expect(await count('estimated', ['Designer', 'Tech Influencer', 'Fitness Coach'])).toBe(3);
    const wide = await count('estimated');
    expect(wide).toBeGreaterThan(MAX_ROWS);
    expect(wide).toBe(Math.max(await planner(), MAX_ROWS + 1));
  });

  it('answers no more than max_rows rows, from a table or a function, whatever the request asks', async () => {
    const c = await signedIn(backend.url, DEMO);
    const all = await c.from('market_tokens').select('username').order('username');
    expect(all.data).toHaveLength(MAX_ROWS);
    const asked = await c.from('market_tokens').select('username').order('username').limit(5);
    expect(asked.data).toEqual(all.data);
    const fewer = await c.from('market_tokens').select('username').order('username').range(4, 5);
    expect(fewer.data).toHaveLength(2);
    const [{ id }] = (await backend.db.query<{ id: string }>(`select id from tokens where username = 'sarahchen'`))!;
    const points = await c.rpc('price_history', { p_token: id, p_hours: 24 });
    expect(points.error).toBeNull();
    expect(points.data).toHaveLength(MAX_ROWS);
  });
});
