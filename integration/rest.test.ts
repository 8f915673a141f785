import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { DEMO, signedIn } from './harness/clients';
import { httpFetch } from '../scripts/lib/httpFetch';

describe.each(ENGINES)('the REST subset on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  it('counts with HEAD, filters with quoted or-values, orders and pages', async () => {
    const c = await signedIn(backend.url, DEMO);
    const head = await c.from('tokens').select('id', { count: 'exact', head: true }).eq('category', 'Designer');
    expect({ count: head.count, data: head.data, error: head.error }).toEqual({ count: 1, data: null, error: null });
    const quoted = await c.from('tokens').select('username').or('name.ilike."*chen, (x)*",username.ilike."*priya*"');
    expect(quoted.data).toEqual([{ username: 'priyadesigns' }]);
    const paged = await c
      .from('market_tokens')
      .select('name', { count: 'exact' })
      .order('price', { ascending: false })
      .range(1, 2);
    expect(paged.count).toBe(6);
    expect(paged.data).toHaveLength(2);
    const ins = await c.from('tokens').select('username').in('username', ['sarahchen', 'marcusj']).order('username');
    expect(ins.data).toEqual([{ username: 'marcusj' }, { username: 'sarahchen' }]);
    const negated = await c.from('tokens').select('username').not('category', 'in', '("Designer","Tech Influencer")');
    expect(negated.data).toHaveLength(4);
  });

  it("filters, orders and pages a `returns table` function's rows, as PostgREST does", async () => {
    const c = await signedIn(backend.url, DEMO);
    const [{ id }] = (await backend.db.query<{ id: string }>(`select id from tokens where username = 'sarahchen'`))!;
    const all = (await c.rpc('price_history', { p_token: id, p_hours: 24 }, { get: true })).data as {
      bucket: string;
      price: number;
    }[];
    expect(all.length).toBeGreaterThan(4);
    const latest = await c
      .rpc('price_history', { p_token: id, p_hours: 24 }, { get: true })
      .order('bucket', { ascending: false })
      .range(1, 2);
    expect(latest.data).toEqual([all.at(-2), all.at(-3)]);
    const above = await c.rpc('price_history', { p_token: id, p_hours: 24 }).gt('price', all[0]!.price);
    expect(above.data).toEqual(all.filter((p) => p.price > all[0]!.price));
  });

  it("answers supabase-js over the bench's transport as over Node's fetch", async () => {
    const answers = async (c: Awaited<ReturnType<typeof signedIn>>) => {
      const head = await c.from('tokens').select('id', { count: 'exact', head: true });
      const { data, error } = await c.rpc('list_open_orders', { p_limit: 1 });
      const refused = await c.rpc('place_order', {
        p_token: 'not-a-token',
        p_side: 'buy',
        p_type: 'market',
        p_amount: 1,
      });
      const none = await c.from('tokens').select('username').eq('username', 'nobody').single();
      return [
        head.count,
        head.data,
        data,
        error,
        refused.error?.message,
        refused.status,
        none.status,
        none.error?.code,
      ];
    };
    const viaNode = await answers(await signedIn(backend.url, DEMO));
    const viaBench = await answers(await signedIn(backend.url, DEMO, httpFetch));
    expect(viaBench).toEqual(viaNode);
    expect(viaNode[0]).toBeGreaterThan(0);
    expect(viaNode[6]).toBe(406);
  });

  it('answers .single() with one object, or 406 when the rows are not exactly one', async () => {
    const c = await signedIn(backend.url, DEMO);
    const one = await c.from('tokens').select('username').eq('username', 'sarahchen').single();
    expect(one.data).toEqual({ username: 'sarahchen' });
    const none = await c.from('tokens').select('username').eq('username', 'nobody').single();
    expect(none.status).toBe(406);
    expect(none.error?.code).toBe('PGRST116');
    const maybe = await c.from('tokens').select('username').eq('username', 'nobody').maybeSingle();
    expect(maybe).toMatchObject({ data: null, error: null });
  });

  it('names unknown tables, columns and functions the way PostgREST does', async () => {
    const c = await signedIn(backend.url, DEMO);
    expect((await c.from('nope').select('*')).error).toMatchObject({ code: 'PGRST205' });
    expect((await c.from('tokens').select('nope')).error).toMatchObject({ code: '42703' });
    expect((await c.rpc('nope')).error).toMatchObject({ code: 'PGRST202' });
    expect((await c.from('watchlist').delete()).error).toMatchObject({
      code: '21000',
      message: 'DELETE requires a WHERE clause',
    });
  });
});

describe.each(ENGINES)('bad requests get a 4xx and no SQL text on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  it('refuses deep logic trees, huge selects, empty updates and writes to views with PostgREST-style 4xx', async () => {
    const c = await signedIn(backend.url, DEMO);
    const deep = `${'or('.repeat(500)}name.eq.x${')'.repeat(500)}`;
    const tree = await c.from('tokens').select('id').or(deep.slice(3, -1));
    expect(tree.status).toBe(400);
    expect(tree.error?.message).toBe('Logic trees (and, or) may nest at most 10 levels.');
    const stars = await c.from('tokens').select(Array(2000).fill('*').join(','));
    expect(stars.status).toBe(400);
    expect(stars.error?.message).toBe('A select may name at most 100 items.');
    const { data: me } = await c.auth.getUser();
    const empty = await c.from('profiles').update({}).eq('id', me.user!.id);
    expect(empty.status).toBe(400);
    expect(empty.error?.message).toBe('An update needs at least one column to change.');
    const view = await c.from('market_tokens').update({ name: 'x' }).eq('username', 'sarahchen');
    expect(view.status).toBe(405);
    expect(view.error?.message).toBe('This resource is a read-only view: it cannot be changed.');
    for (const r of [tree, stars, empty, view])
      expect(JSON.stringify(r.error)).not.toMatch(/syntax error|select .* from |relation "/i);
  });

  it("casts a selected column to SQL's own types, in any case", async () => {
    const c = await signedIn(backend.url, DEMO);
    const casts = ['int', 'INTEGER', 'bigint', 'SmallInt', 'decimal', 'real', 'text', 'char'];
    const answers = await Promise.all(
      casts.map((t) => c.from('market_tokens').select(`price::${t}`).eq('username', 'sarahchen').single()),
    );
    expect(answers.map((a) => [a.status, a.data])).toEqual([
      [200, { price: 45 }],
      [200, { price: 45 }],
      [200, { price: 45 }],
      [200, { price: 45 }],
      [200, { price: 45.2 }],
      [200, { price: 45.2 }],
      [200, { price: '45.20' }],
      [200, { price: '4' }], // SQL's char is char(1), as PostgreSQL reads ::char
    ]);
    const bad = await c.from('market_tokens').select('price::regclass').limit(1);
    expect([bad.status, bad.error?.message]).toEqual([400, 'A column cannot be cast to regclass.']);
    const boolean = await c.from('market_tokens').select('verified::BOOLEAN').limit(1);
    expect(boolean.status).toBe(200);
  });

  it("picks a GET function's arguments by its parameters' names, whatever their values hold", async () => {
    const c = await signedIn(backend.url, DEMO);
    const get = await c.rpc('my_portfolio_history', { p_period: 'a.b' }, { get: true });
    const post = await c.rpc('my_portfolio_history', { p_period: 'a.b' });
    expect(get.status).toBe(post.status);
    expect(get.status).toBeGreaterThanOrEqual(400);
    expect(get.error?.message).toBe(post.error?.message);
    const fine = await c.rpc('my_portfolio_history', { p_period: '7d' }, { get: true });
    expect([fine.error, Array.isArray(fine.data)]).toEqual([null, true]);
  });
});
