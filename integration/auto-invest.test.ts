import type { SupabaseClient } from '@supabase/supabase-js';
import type { Backend } from '../server/index';
import { runDuePlans } from '../server/schedule';
import { ENGINES, backendFor } from './harness/backends';
import { ADMIN, signedIn } from './harness/clients';
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

  it('refuses a plan in words, and keeps nothing of it', async () => {
    const t = await trader(backend, { cash: 500 });
    const refusals: [Record<string, unknown>, string][] = [
      [{ p_amount: 5, p_frequency: 'daily', p_token: token }, 'A plan buys between $10.00 and $10,000.00 each time.'],
      [
        { p_amount: 20000, p_frequency: 'daily', p_token: token },
        'A plan buys between $10.00 and $10,000.00 each time.',
      ],
      [{ p_amount: 10.005, p_frequency: 'daily', p_token: token }, 'The amount has at most two decimals.'],
      [{ p_amount: 0, p_frequency: 'daily', p_token: token }, 'Enter an amount of at least $10.00.'],
      [{ p_amount: 50, p_frequency: 'hourly', p_token: token }, 'The schedule must be daily, weekly or monthly.'],
      [{ p_amount: 50, p_frequency: 'daily', p_day: 3, p_token: token }, 'A daily plan takes no day.'],
      [
        { p_amount: 50, p_frequency: 'weekly', p_token: token },
        'A weekly plan needs a weekday, 1 (Monday) to 7 (Sunday).',
      ],
      [
        { p_amount: 50, p_frequency: 'monthly', p_day: 32, p_token: token },
        'A monthly plan needs a date, 1 to 31 (a shorter month runs on its last day).',
      ],
      [
        { p_amount: 50, p_frequency: 'daily', p_token: '00000000-0000-4000-8000-000000000000' },
        'There is no such token.',
      ],
    ];
    for (const [args, message] of refusals) expect((await create(t.client, args)).error?.message).toBe(message);
    expect(await plansOf(t.id)).toBe(0);

    // The admin's limits: at most 2 plans here, and a minimum of $20.
    const admin = await signedIn(backend.url, ADMIN);
    const settings = await admin.rpc('admin_update_settings', {
      p_changes: { auto_invest_min: 20, auto_invest_max_plans: 2 },
      p_reason: 'test',
    });
    expect(settings.error).toBeNull();
    try {
      expect(
        (await create(t.client, { p_amount: 15, p_frequency: 'weekly', p_day: 1, p_token: token })).error?.message,
      ).toBe('A plan buys between $20.00 and $10,000.00 each time.');
      for (let i = 0; i < 2; i++)
        expect(
          (await create(t.client, { p_amount: 20, p_frequency: 'weekly', p_day: 1, p_token: token })).error,
        ).toBeNull();
      expect(
        (await create(t.client, { p_amount: 20, p_frequency: 'weekly', p_day: 1, p_token: token })).error?.message,
      ).toBe('You have 2 plans, the most allowed. Delete one before adding another.');
      expect(await plansOf(t.id)).toBe(2);
      expect(
        (await admin.rpc('admin_update_settings', { p_changes: { auto_invest_min: 50, auto_invest_max: 40 } })).error
          ?.message,
      ).toBe('Auto-Invest needs a minimum above $0.00 and a maximum at least as large.');
      expect(
        (await admin.rpc('admin_update_settings', { p_changes: { auto_invest_max_plans: 0 } })).error?.message,
      ).toBe('The Auto-Invest plan limit must be between 1 and 100.');
    } finally {
      await admin.rpc('admin_update_settings', { p_changes: { auto_invest_min: 10, auto_invest_max_plans: 10 } });
    }
  });

  it('buys on its date through the engine, once per period, and tells the person', async () => {
    const t = await trader(backend, { cash: 1000 });
    const { data: plan, error } = await create(t.client, { p_amount: 100, p_frequency: 'daily', p_token: token });
    expect(error).toBeNull();
    expect((plan as { next_run_on: string }).next_run_on).toBe(await today());

    await runDuePlans(backend.db);
    // $100 buys 9 tokens at $10 with the 2% fee ($91.80); the rest stays in cash.
    const [run] = await runsOf(plan.id);
    expect(run).toEqual({ period: await today(), status: 'bought', spent: '91.80', fees: '1.80', reason: null });
    const [buy] = await q(
      `select b.tokens::text, b.value, b.fee, b.average_price, o.type, o.side, o.status, o.user_id
         from invest_run_buys b join orders o on o.id = b.order_id join invest_runs r on r.id = b.run_id where r.plan_id = $1`,
      [plan.id],
    );
    expect(buy).toEqual({
      tokens: '9',
      value: '90.00',
      fee: '1.80',
      average_price: '10.00',
      type: 'market',
      side: 'buy',
      status: 'filled',
      user_id: t.id,
    });
    expect(await cash(backend, t.id)).toEqual({ available: 908.2, reserved: 0 });
    expect((await holding(backend, t.id, token)).amount).toBe(9);
    const [mail] = await q(
      'select subject, body from private.account_mail where user_id = $1 order by id desc limit 1',
      [t.id],
    );
    expect(mail!.subject).toMatch(/^Auto-Invest bought t/);
    expect(mail!.body).toContain('spent $91.80 on');

    // Its next date is tomorrow; running again today buys nothing more.
    const [next] = await q(
      `select next_run_on::text = (private.plan_today() + 1)::text as tomorrow from invest_plans where id = $1`,
      [plan.id],
    );
    expect(next!.tomorrow).toBe(true);
    await runDuePlans(backend.db);
    expect(await runsOf(plan.id)).toHaveLength(1);
    // Even a plan made due again by hand (an edit today) does not run a period twice.
    await q('update invest_plans set next_run_on = private.plan_today() where id = $1', [plan.id]);
    await runDuePlans(backend.db);
    expect(await runsOf(plan.id)).toHaveLength(1);
    expect((await holding(backend, t.id, token)).amount).toBe(9);

    // The person reads their plan and its run.
    const mine = await t.client.from('my_invest_plans').select('id, last_status, last_spent, token_id').single();
    expect(mine.data).toEqual({ id: plan.id, last_status: 'bought', last_spent: 91.8, token_id: token });
    const runs = await t.client.from('my_invest_runs').select('plan_id, status, tokens, average_price, fee');
    expect(runs.data).toEqual([{ plan_id: plan.id, status: 'bought', tokens: 9, average_price: 10, fee: 1.8 }]);
  });

  it('skips a run it cannot make, says why, and the next period runs as usual', async () => {
    const poor = await trader(backend, { cash: 20 });
    const { data: plan } = await create(poor.client, { p_amount: 50, p_frequency: 'daily', p_token: token });
    await runDuePlans(backend.db);
    expect(await runsOf(plan.id)).toEqual([
      {
        period: await today(),
        status: 'skipped',
        spent: '0.00',
        fees: '0.00',
        reason: 'Not enough cash: the plan buys $50.00 and $20.00 was available.',
      },
    ]);
    expect(await cash(backend, poor.id)).toEqual({ available: 20, reserved: 0 });
    const [mail] = await q(
      'select subject, body from private.account_mail where user_id = $1 order by id desc limit 1',
      [poor.id],
    );
    expect(mail!.subject).toMatch(/^Auto-Invest skipped: t/);
    expect(mail!.body).toContain('Not enough cash');

    // As if that was yesterday's run: today's period, with cash now, buys.
    await q(`update invest_runs set period = period - 1 where plan_id = $1`, [plan.id]);
    await q('update invest_plans set next_run_on = private.plan_today() where id = $1', [plan.id]);
    await q('select private.record_deposit($1, 100)', [poor.id]);
    await runDuePlans(backend.db);
    expect((await runsOf(plan.id)).map((r) => r.status)).toEqual(['skipped', 'bought']);
    expect((await holding(backend, poor.id, token)).amount).toBe(4); // $50 at $10.20 a token
  });

  it('records a run that failed for an unforeseen reason as skipped, and moves on to the next plan', async () => {
    const [a, b] = [await trader(backend, { cash: 100 }), await trader(backend, { cash: 100 })];
    const { data: broken } = await create(a.client, { p_amount: 50, p_frequency: 'daily', p_token: token });
    const { data: fine } = await create(b.client, { p_amount: 50, p_frequency: 'daily', p_token: token });
    // A fault nothing foresaw, in this one plan's run.
    await q(`create function public.test_fail_run() returns trigger language plpgsql as $$
             begin raise exception 'the disk said no'; end $$`);
    await q(`create trigger test_fail_run before insert on public.invest_runs for each row
             when (new.plan_id = ${Number(broken.id)} and new.status = 'running') execute function public.test_fail_run()`);
    try {
      await runDuePlans(backend.db);
    } finally {
      await q('drop trigger test_fail_run on public.invest_runs');
      await q('drop function public.test_fail_run()');
    }
    expect((await runsOf(broken.id)).map((r) => [r.period, r.status, r.reason])).toEqual([
      [await today(), 'skipped', 'The run failed: the disk said no'],
    ]);
    expect((await runsOf(fine.id)).map((r) => r.status)).toEqual(['bought']);
    const [next] = await q('select next_run_on > private.plan_today() as later from invest_plans where id = $1', [
      broken.id,
    ]);
    expect(next!.later).toBe(true);
    expect(await cash(backend, a.id)).toEqual({ available: 100, reserved: 0 });
  });
});
