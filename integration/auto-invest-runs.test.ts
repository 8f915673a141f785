import type { SupabaseClient } from '@supabase/supabase-js';
import type { Backend } from '../server/index';
import { runDuePlans } from '../server/schedule';
import { ENGINES, backendFor } from './harness/backends';
import { cash, freshToken, holding, invariantViolations, placeOrder, trader, type Trader } from './harness/market';

/*
 * Auto-Invest (supabase/schemas/auto_invest.sql). Here the scheduler's interval is an hour, and
 * each test runs due plans with the scheduler's own function (runDuePlans), so it decides when;
 * auto-invest-scheduler.test.ts leaves the scheduler to it, across kill -9 and two processes.
 */
describe.each(ENGINES)('Auto-Invest on %s', (engine) => {
  let backend: Backend;
  let token: string;
  let seller: Trader;
  beforeAll(async () => {
    backend = await backendFor(engine, { autoInvestMs: 3_600_000 })();
    token = await freshToken(backend, 100_000, 10);
    seller = await trader(backend, { token, tokens: 50_000 });
    expect((await placeOrder(seller.client, token, 'sell', 'limit', 20_000, 10)).error).toBeNull();
  });
  afterAll(async () => {
    expect(await invariantViolations(backend)).toEqual([]);
    await backend.close();
  });

  const q = <T = Record<string, string>>(sql: string, params: unknown[] = []) =>
    backend.db.query<T & Record<string, unknown>>(sql, params);
  const create = (c: SupabaseClient, args: Record<string, unknown>) => c.rpc('create_invest_plan', args);
  const runsOf = (plan: number) =>
    q<{ period: string; status: string; spent: string; fees: string; reason: string | null }>(
      `select period::text, status, spent, fees, reason from invest_runs where plan_id = $1 order by id`,
      [plan],
    );
  const today = async () => (await q<{ d: string }>('select private.plan_today()::text as d'))[0]!.d;
  const plansOf = async (id: string) =>
    Number((await q('select count(*) as n from invest_plans where user_id = $1', [id]))[0]!.n);

  it('skips a halted token and an empty book in the engine’s words, buying nothing', async () => {
    const empty = await freshToken(backend, 1000, 10);
    const halted = await freshToken(backend, 1000, 10);
    await q(`update tokens set halt_reason = 'Under review', halted_at = now() where id = $1`, [halted]);
    const t = await trader(backend, { cash: 500 });
    const a = (await create(t.client, { p_amount: 50, p_frequency: 'daily', p_token: empty })).data;
    const b = (await create(t.client, { p_amount: 50, p_frequency: 'daily', p_token: halted })).data;
    await runDuePlans(backend.db);
    const [names] = await q<{ e: string; h: string }>(
      'select (select name from tokens where id = $1) as e, (select name from tokens where id = $2) as h',
      [empty, halted],
    );
    expect((await runsOf(a.id))[0]).toMatchObject({
      status: 'skipped',
      reason: `There are no sell orders for ${names!.e} right now.`,
    });
    expect((await runsOf(b.id))[0]).toMatchObject({
      status: 'skipped',
      reason: `Trading in ${names!.h} is halted: Under review. Cancelling open orders still works.`,
    });
    expect(await cash(backend, t.id)).toEqual({ available: 500, reserved: 0 });
    expect(Number((await q('select count(*) as n from orders where user_id = $1', [t.id]))[0]!.n)).toBe(0);
  });

  it('pauses, resumes, edits and deletes a plan, only its owner', async () => {
    const t = await trader(backend, { cash: 500 });
    const other = await trader(backend);
    // Weekly on the day after today: not due now.
    const tomorrowIso = Number((await q('select extract(isodow from private.plan_today() + 1)::int as d'))[0]!.d);
    const { data: plan } = await create(t.client, {
      p_amount: 30,
      p_frequency: 'weekly',
      p_day: tomorrowIso,
      p_token: token,
    });
    const [{ d: due }] = (await q('select (private.plan_today() + 1)::text as d')) as [{ d: string }];
    expect(plan.next_run_on).toBe(due);

    expect((await other.client.rpc('set_invest_plan_paused', { p_plan: plan.id, p_paused: true })).error?.message).toBe(
      `You have no plan #${plan.id}.`,
    );
    expect((await other.client.rpc('delete_invest_plan', { p_plan: plan.id })).error?.message).toBe(
      `You have no plan #${plan.id}.`,
    );
    expect((await other.client.from('invest_plans').select('id').eq('id', plan.id)).data).toEqual([]);

    // Paused, a plan does not run even on its date.
    expect((await t.client.rpc('set_invest_plan_paused', { p_plan: plan.id, p_paused: true })).data.paused).toBe(true);
    await q('update invest_plans set next_run_on = private.plan_today() where id = $1', [plan.id]);
    await runDuePlans(backend.db);
    expect(await runsOf(plan.id)).toEqual([]);

    // Edited to daily, and resumed: today's period runs.
    const edited = await t.client.rpc('update_invest_plan', {
      p_plan: plan.id,
      p_amount: 25,
      p_frequency: 'daily',
      p_token: token,
    });
    expect(edited.error).toBeNull();
    expect(edited.data).toMatchObject({ amount: 25, frequency: 'daily', run_day: null, paused: true });
    expect((await t.client.rpc('set_invest_plan_paused', { p_plan: plan.id, p_paused: false })).data.next_run_on).toBe(
      await today(),
    );
    await runDuePlans(backend.db);
    expect((await runsOf(plan.id)).map((r) => [r.status, r.spent])).toEqual([['bought', '20.40']]);

    expect((await t.client.rpc('delete_invest_plan', { p_plan: plan.id })).error).toBeNull();
    expect(await plansOf(t.id)).toBe(0);
    expect(await runsOf(plan.id)).toEqual([]);
    // The buys stay in the person's records.
    expect((await holding(backend, t.id, token)).amount).toBe(2);
  });

  it('buys the RepX index basket in whole tokens by its weights, spending what whole tokens allow', async () => {
    const basket = await q<{ token_id: string; weight: string; cost: string }>(
      `select b.token_id, b.weight,
              ceil((select min(o.price) from orders o where o.token_id = b.token_id and o.side = 'sell' and o.status = 'open') * 1.02 * 100) / 100 as cost
         from index_basket b order by b.token_id`,
    );
    expect(basket.length).toBeGreaterThanOrEqual(4); // the seed's history gives the index its members
    const cheapest = Math.min(...basket.map((m) => Number(m.cost)));
    const t = await trader(backend, { cash: 5000 });
    // The form's preview: what a run buys now, the engine's walk, before anything is saved.
    const { data: preview, error: previewError } = await t.client.rpc('preview_invest_plan', { p_amount: 2000 });
    expect(previewError).toBeNull();
    const { data: plan, error } = await create(t.client, { p_amount: 2000, p_frequency: 'monthly', p_day: 31 });
    expect(error).toBeNull();
    await q('update invest_plans set next_run_on = private.plan_today() where id = $1', [plan.id]);
    await runDuePlans(backend.db);
    const buys = await q<{ token_id: string; budget: string; tokens: string }>(
      `select b.token_id, b.budget, b.tokens::text from invest_run_buys b join invest_runs r on r.id = b.run_id
        where r.plan_id = $1 order by b.token_id`,
      [plan.id],
    );
    const previewed = (preview as { items: { token_id: string; tokens: number }[] }).items;
    expect(Object.fromEntries(previewed.map((i) => [i.token_id, i.tokens]))).toEqual(
      Object.fromEntries(buys.filter((b) => Number(b.tokens) > 0).map((b) => [b.token_id, Number(b.tokens)])),
    );
    expect((preview as { members: number; bought: number }).members).toBe(basket.length);
    // Each member gets at least its share in whole tokens; the leftover is less than the cheapest token.
    for (const m of basket) {
      const bought = Number(buys.find((b) => b.token_id === m.token_id)?.tokens ?? 0);
      expect(bought).toBeGreaterThanOrEqual(Math.floor((2000 * Number(m.weight)) / Number(m.cost)));
    }
    const [run] = await runsOf(plan.id);
    expect(run!.status).toBe('bought');
    expect(Number(run!.spent)).toBeLessThanOrEqual(2000);
    expect(2000 - Number(run!.spent)).toBeLessThan(cheapest);

    // A plan too small for a whole token of each member still buys one, of the member furthest below its
    // share; the preview says so before it is saved, and the amount that buys one of each.
    const { data: tooSmall } = await t.client.rpc('preview_invest_plan', { p_amount: 50 });
    const little = tooSmall as { bought: number; members: number; basket_min: number; left: number };
    expect(little.bought).toBeLessThan(little.members);
    expect(little.basket_min).toBeGreaterThan(50);
    expect(
      (await t.client.rpc('preview_invest_plan', { p_amount: little.basket_min })).data as { bought: number },
    ).toMatchObject({ bought: little.members });
    expect((await t.client.rpc('preview_invest_plan', { p_amount: 0 })).error?.message).toBe(
      'Enter the amount each run buys, in dollars and cents.',
    );
    const small = await create(t.client, { p_amount: 50, p_frequency: 'daily' });
    await runDuePlans(backend.db);
    const smallBuys = await q<{ tokens: string }>(
      `select b.tokens::text from invest_run_buys b join invest_runs r on r.id = b.run_id where r.plan_id = $1`,
      [small.data.id],
    );
    expect(cheapest).toBeLessThanOrEqual(50);
    expect(smallBuys.reduce((n, b) => n + Number(b.tokens), 0)).toBeGreaterThanOrEqual(1);
    expect((await runsOf(small.data.id))[0]!.status).toBe('bought');
  });

  it('schedules weekly and monthly dates, a short month on its last day', async () => {
    const [row] = await q(`select
      private.plan_date_on_or_after('monthly', 31, '2027-02-01')::text as feb,
      private.plan_date_on_or_before('monthly', 31, '2027-03-15')::text as before_march,
      private.plan_date_on_or_after('monthly', 15, '2027-03-16')::text as april,
      private.plan_date_on_or_after('weekly', 1, '2026-11-26')::text as next_monday,
      private.plan_date_on_or_before('weekly', 1, '2026-11-26')::text as last_monday,
      private.plan_date_on_or_after('weekly', 4, '2026-11-26')::text as same_thursday,
      private.plan_date_on_or_after('daily', null, '2026-11-26')::text as daily`);
    expect(row).toEqual({
      feb: '2027-02-28',
      before_march: '2027-02-28',
      april: '2027-04-15',
      next_monday: '2026-11-30',
      last_monday: '2026-11-23',
      same_thursday: '2026-11-26',
      daily: '2026-11-26',
    });
  });
});
