import type { ReputationComponents as Components } from '@repex/shared-ui/contracts';
import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { ADMIN, signedIn } from './harness/clients';
import { freshToken, placeOrder, trader, type Trader } from './harness/market';

describe.each(ENGINES)('the reputation score on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  it('is the documented sum of its parts, recomputed with history, and a new token starts with it', async () => {
    const admin = await signedIn(backend.url, ADMIN);
    const [sarah] = await backend.db.query<{ id: string }>(`select id from tokens where username = 'sarahchen'`);
    // The hourly rescoring computes each account's trust first.
    await backend.db.query('select private.refresh_reputation()');
    const { data } = await admin.rpc('reputation_components', { p_token: sarah!.id });
    const c = data as Components;
    // Sarah Chen: verified, 400 days on RepX, no alert, no connected account: 10 + 10 + 10 + 0, plus
    // holders, volume and stability; the parts' maxima total 100.
    expect([c.verified, c.age, c.alerts, c.social]).toEqual([10, 10, 10, 0]);
    expect(Object.values(c.max).reduce((a, b) => a + b, 0)).toBe(100);
    // Holders and volume count by trust: the seed's accounts are its verified, long-standing people.
    const h = c.facts.holders_weighted;
    expect(h).toBeLessThanOrEqual(c.facts.holders);
    expect(h).toBeGreaterThan(0);
    expect(c.holders).toBeCloseTo(Math.min(20, (20 * Math.log(1 + h)) / Math.log(1001)), 2);
    expect(c.volume).toBeCloseTo(
      Math.min(15, (15 * Math.log(1 + c.facts.volume_30d_weighted)) / Math.log(1_000_001)),
      2,
    );
    expect(c.score).toBeCloseTo(c.verified + c.holders + c.volume + c.stability + c.age + c.alerts + c.social, 1);

    const [row] = await backend.db.query<{ reputation_score: string; score: string }>(
      `select k.reputation_score, h.score from tokens k join reputation_history h on h.token_id = k.id and h.month = date_trunc('month', now())::date
        where k.id = $1`,
      [sarah!.id],
    );
    expect(Number(row!.reputation_score)).toBe(c.score);
    expect(Number(row!.score)).toBe(c.score);

    // An open fraud alert on the person costs 5 points.
    await backend.db.query(
      `insert into fraud_alerts (rule, severity, accounts, summary) select 'new_account', 'low', array[owner_id], 'test' from tokens where id = $1`,
      [sarah!.id],
    );
    expect(((await admin.rpc('reputation_components', { p_token: sarah!.id })).data as Components).alerts).toBe(5);

    // A new token's first score is the formula's: new, unverified, no trades yet.
    const person = await trader(backend);
    const { data: app } = await person.client.rpc('apply_for_token', {
      p_display_name: 'Fresh Face',
      p_category: 'Designer',
    });
    const { data: issued } = await admin.rpc('admin_approve_application', { p_id: (app as { id: number }).id });
    const token = (issued as { token_id: string }).token_id;
    const fresh = (await admin.rpc('reputation_components', { p_token: token })).data as Components;
    expect(fresh).toMatchObject({ verified: 0, volume: 0, stability: 7.5, alerts: 10, social: 0 });
    const { data: listed } = await person.client.from('tokens').select('reputation_score').eq('id', token).single();
    expect(listed).toEqual({ reputation_score: fresh.score });
  });

  it('one score everywhere: what the screens explain adds up to the score they show, from the seed on', async () => {
    const shown = async () =>
      backend.db.query<{ id: string; score: string; explained: string | null; parts: string | null }>(
        `select k.id, k.reputation_score as score, (b ->> 'score') as explained,
                (select sum((b ->> p)::numeric) from unnest(array['verified','holders','volume','stability','age','alerts','social']) p) as parts
           from tokens k, public.reputation_breakdown(k.id) b order by k.id`,
      );
    const check = async () => {
      const rows = await shown();
      expect(rows.length).toBeGreaterThanOrEqual(6);
      for (const r of rows) {
        expect({ id: r.id, explained: Number(r.explained) }).toEqual({ id: r.id, explained: Number(r.score) });
        expect(Math.abs(Number(r.parts) - Number(r.score))).toBeLessThanOrEqual(0.05); // each part is rounded
      }
    };
    // A fresh installation: the seed's people are scored before anyone looks.
    await check();
    // A trade moves the formula's inputs; the score and its explanation move together at the rescoring.
    const token = await freshToken(backend);
    const seller = await trader(backend, { token, tokens: 50 });
    const buyer = await trader(backend, { cash: 1000 });
    await placeOrder(seller.client, token, 'sell', 'limit', 10, 10);
    await placeOrder(buyer.client, token, 'buy', 'market', 10);
    await backend.db.query('select private.refresh_reputation()');
    await check();
    // Any signed-in user reads it; it says when it was computed.
    const { data } = await buyer.client.rpc('reputation_breakdown', { p_token: token });
    expect((data as { scored_at: string }).scored_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  it('moves little when 50 fresh accounts funded by one person trade a token in a ring (the sybil test)', async () => {
    const token = await freshToken(backend, 100_000, 10);
    const person = await trader(backend);
    await backend.db.query('update tokens set owner_id = $1 where id = $2', [person.id, token]);
    await backend.db.query('select private.refresh_reputation()');
    const components = async () =>
      (await backend.db.query<{ c: Components }>('select public.reputation_components($1) as c', [token]))[0]!.c;
    const before = await components();

    // One person's money, spread over 50 fresh accounts that hold the token and trade it round a ring.
    const ring: Trader[] = [];
    for (let i = 0; i < 50; i++) ring.push(await trader(backend, { cash: 2000, token, tokens: 100 }));
    for (let round = 0; round < 2; round++)
      for (let i = 0; i < ring.length; i++) {
        const [seller, buyer] = [ring[i]!, ring[(i + 1) % ring.length]!];
        await placeOrder(seller.client, token, 'sell', 'limit', 10, 10);
        await placeOrder(buyer.client, token, 'buy', 'market', 10);
      }
    await backend.db.query('select private.refresh_reputation()');
    const after = await components();

    // The formula before trust counted the raw figures: what the ring would buy under it, at today's weights.
    const raw = (c: Components) =>
      Math.min(c.max.holders, (c.max.holders * Math.log(1 + c.facts.holders)) / Math.log(1001)) +
      Math.min(c.max.volume, (c.max.volume * Math.log(1 + c.facts.volume_30d)) / Math.log(1_000_001));
    const weighted = (c: Components) => c.holders + c.volume;
    const oldMove = raw(after) - raw(before);
    const newMove = weighted(after) - weighted(before);
    console.log(
      `${engine}: the ring moved holders + volume by ${oldMove.toFixed(2)} points under the raw formula, ${newMove.toFixed(2)} trust-weighted`,
    );
    expect(after.facts.volume_30d).toBeGreaterThan(9000); // the ring really traded
    expect(oldMove).toBeGreaterThan(15);
    expect(newMove).toBeLessThanOrEqual(1); // the documented bound: a point at most
  });
});
