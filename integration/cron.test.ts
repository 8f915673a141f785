import fs from 'node:fs';
import path from 'node:path';
import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { freshToken, invariantViolations, offeringToken, placeOrder, trader } from './harness/market';

jest.setTimeout(120_000);

const read = (file: string) => fs.readFileSync(path.resolve(__dirname, file), 'utf8');

/** The private functions the local server's scheduler calls (its job list and its drains). */
const locallyScheduled = [
  ...new Set(
    [read('../server/index.ts'), read('../server/schedule.ts')].flatMap((source) =>
      [...source.matchAll(/private\.(\w+)\(/g)].map((m) => m[1]!),
    ),
  ),
].sort();

/*
 * A hosted project's scheduled jobs (supabase/cron.sql) are the local server's: each function the
 * local scheduler runs is called by a pg_cron job, directly or by the procedure it calls, and every
 * command runs. pg_cron is not here: `cron.schedule` is stood in for by a table of jobs with its
 * signature, and each command is then run as pg_cron runs it, as one top-level statement.
 */
describe.each(ENGINES)("the hosted project's pg_cron jobs on %s", (engine) => {
  let backend: Backend;
  let jobs: { jobname: string; schedule: string; command: string }[];
  beforeAll(async () => {
    // The local scheduler idle for what is checked here, so that the runs are the jobs'.
    backend = await backendFor(engine, { autoInvestMs: 3_600_000, offeringsMs: 3_600_000 })();
    await backend.db.exec(`
      create schema cron;
      create table cron.job (jobname text primary key, schedule text not null, command text not null);
      create function cron.schedule(job_name text, schedule text, command text) returns bigint
      language sql as $$
        insert into cron.job values (job_name, schedule, command)
        on conflict (jobname) do update set schedule = excluded.schedule, command = excluded.command;
        select 1::bigint;
      $$;`);
    await backend.db.exec(read('../supabase/cron.sql'));
    jobs = await backend.db.query('select jobname, schedule, command from cron.job order by jobname');
  });
  afterAll(async () => {
    await backend.db.exec('drop schema cron cascade');
    await backend.close();
  });

  it('schedules every function the local server runs on a timer', async () => {
    expect(locallyScheduled.length).toBeGreaterThan(8);
    const reached = new Set<string>();
    for (const { command } of jobs) {
      // A drained step is named as a string: private.drain('private.run_next_plan', 1000).
      for (const m of command.matchAll(/private\.(\w+)\b/g)) reached.add(m[1]!);
      const called = /^call (private\.\w+)\(/.exec(command);
      if (called) {
        const [{ body }] = (await backend.db.query<{ body: string }>(
          `select pg_get_functiondef(p.oid) as body from pg_proc p
            where p.oid = to_regproc($1)`,
          [called[1]],
        )) as [{ body: string }];
        for (const m of body.matchAll(/private\.(\w+)\(/g)) reached.add(m[1]!);
      }
    }
    expect(locallyScheduled.filter((name) => !reached.has(name))).toEqual([]);
    // Running it again replaces the jobs rather than adding others.
    await backend.db.exec(read('../supabase/cron.sql'));
    const [{ n }] = (await backend.db.query<{ n: number }>('select count(*)::int as n from cron.job')) as [
      { n: number },
    ];
    expect(n).toBe(jobs.length);
  });

  it('runs every command', async () => {
    for (const { jobname, command } of jobs)
      await expect(backend.db.exec(command).then(() => jobname)).resolves.toBe(jobname);
  });

  it('runs due Auto-Invest plans and offerings, each in a transaction of its own', async () => {
    const token = await freshToken(backend, 10_000, 10);
    const seller = await trader(backend, { token, tokens: 1000 });
    expect((await placeOrder(seller.client, token, 'sell', 'limit', 1000, 10)).error).toBeNull();
    const planners = await Promise.all([1, 2, 3].map(() => trader(backend, { cash: 500 })));
    for (const t of planners)
      expect(
        (await t.client.rpc('create_invest_plan', { p_amount: 50, p_frequency: 'daily', p_token: token })).error,
      ).toBeNull();
    const offerings = [await offeringToken(backend), await offeringToken(backend)];
    await backend.db.query(
      `update offerings set opens_at = now() - interval '1 day', closes_at = now() - interval '1 second'
        where token_id = any($1)`,
      [offerings],
    );

    for (const name of ['auto-invest', 'offerings'])
      await backend.db.exec(jobs.find((j) => j.jobname === name)!.command);

    // One run per plan, each committed by its own transaction (rows a transaction wrote share its xmin).
    const [runs] = (await backend.db.query<{ n: number; transactions: number }>(
      `select count(*)::int as n, count(distinct r.xmin::text)::int as transactions
         from invest_runs r join invest_plans p on p.id = r.plan_id
        where p.user_id = any($1) and r.status = 'bought'`,
      [planners.map((t) => t.id)],
    )) as [{ n: number; transactions: number }];
    expect(runs).toEqual({ n: 3, transactions: 3 });
    const [closed] = (await backend.db.query<{ n: number; transactions: number }>(
      `select count(*)::int as n, count(distinct xmin::text)::int as transactions
         from offerings where token_id = any($1) and closed_at is not null`,
      [offerings],
    )) as [{ n: number; transactions: number }];
    expect(closed).toEqual({ n: 2, transactions: 2 });
    expect(await invariantViolations(backend)).toEqual([]);
  });
});
