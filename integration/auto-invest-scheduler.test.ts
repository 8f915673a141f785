import { SignJWT } from 'jose';
import type { Backend } from '../server/index';
import { DEMO_JWT_SECRET } from '../server/demo';
import { startBackend } from '../server/index';
import { NO_RATE_LIMITS } from '../server/http/rateLimit';
import { ENGINES, createDatabase, dropDatabase, eventually } from './harness/backends';
import { ANON_KEY, JWT_SECRET } from './harness/clients';
import { crashableServer, spawnServer, stopServer } from './harness/process';
import { freshToken, invariantViolations, placeOrder, trader } from './harness/market';

jest.setTimeout(240_000);

const PLANS_PER_TRADER = 5;

/**
 * Traders with $1,000 each and five daily $50 plans due today on one token, and a seller with
 * enough on the book for all of them at $10. Returns the traders' ids.
 */
async function prepare(backend: Backend, traders: number): Promise<string[]> {
  const token = await freshToken(backend, 100_000, 10);
  const seller = await trader(backend, { token, tokens: 50_000 });
  expect((await placeOrder(seller.client, token, 'sell', 'limit', 50_000, 10)).error).toBeNull();
  const ids: string[] = [];
  for (let i = 0; i < traders; i++) {
    const t = await trader(backend, { cash: 1000 });
    for (let p = 0; p < PLANS_PER_TRADER; p++)
      expect(
        (await t.client.rpc('create_invest_plan', { p_amount: 50, p_frequency: 'daily', p_token: token })).error,
      ).toBeNull();
    ids.push(t.id);
  }
  return ids;
}

/** Each plan ran today exactly once and bought once: 4 tokens for $40.80; the books balance. */
async function expectEachPeriodOnce(backend: Backend, ids: string[]) {
  const runs = await backend.db.query<{ plan_id: string; n: string; bought: string }>(
    `select p.id as plan_id, count(r.id) as n, count(*) filter (where r.status = 'bought') as bought
       from invest_plans p left join invest_runs r on r.plan_id = p.id and r.period = private.plan_today()
      where p.user_id = any($1) group by p.id`,
    [ids],
  );
  expect(runs).toHaveLength(ids.length * PLANS_PER_TRADER);
  expect(runs.filter((r) => Number(r.n) !== 1 || Number(r.bought) !== 1)).toEqual([]);
  const accounts = await backend.db.query<{ orders: string; held: string; available: string }>(
    `select (select count(*) from orders o where o.user_id = c.user_id) as orders,
            (select coalesce(sum(amount), 0) from holdings h where h.user_id = c.user_id) as held, c.available
       from cash_accounts c where c.user_id = any($1)`,
    [ids],
  );
  for (const a of accounts)
    expect([Number(a.orders), Number(a.held), Number(a.available)]).toEqual([
      PLANS_PER_TRADER,
      4 * PLANS_PER_TRADER,
      1000 - 40.8 * PLANS_PER_TRADER,
    ]);
  expect(await invariantViolations(backend)).toEqual([]);
}

/** Runs recorded, counted through the running server as the service role. */
async function runsRecorded(url: string): Promise<number> {
  const key = await new SignJWT({ role: 'service_role' })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(JWT_SECRET));
  const res = await fetch(`${url}/rest/v1/invest_runs?select=id`, {
    method: 'HEAD',
    headers: { apikey: ANON_KEY, Authorization: `Bearer ${key}`, Prefer: 'count=exact' },
  });
  return Number(res.headers.get('content-range')?.split('/')[1]);
}

describe.each(ENGINES)("Auto-Invest's scheduler on %s", (engine) => {
  it('runs each plan once per period across a kill -9 mid-run and a restart', async () => {
    const { url, env, open, cleanup } = await crashableServer(engine, 'repex_invest_crash', { AUTO_INVEST_MS: '50' });
    // Prepared in-process with its scheduler idle, so that the server's runs are the ones killed.
    const prepared = await open({ autoInvestMs: 3_600_000 });
    const ids = await prepare(prepared, 8);
    // Each buy made slower (a test's trigger, not the schema's), so that the kill lands among the runs.
    await prepared.db.exec(`create function public.zz_slow_buy() returns trigger language plpgsql as
        $$ begin perform pg_sleep(0.05); return null; end $$;
      create trigger zz_slow_buy after insert on public.invest_run_buys for each row execute function public.zz_slow_buy();`);
    await prepared.close();

    let server = await spawnServer(env);
    // Killed as soon as a first run is seen, while the rest are being run.
    let before = 0;
    for (const started = Date.now(); before === 0 && Date.now() - started < 30_000;) before = await runsRecorded(url);
    await stopServer(server, 'SIGKILL');
    console.log(`${engine}: ${before} of ${ids.length * PLANS_PER_TRADER} runs recorded when the server was killed`);

    server = await spawnServer(env);
    await eventually(
      async () => ((await runsRecorded(url)) >= ids.length * PLANS_PER_TRADER ? true : undefined),
      60_000,
    );
    await new Promise((r) => setTimeout(r, 500)); // further ticks find nothing due
    await stopServer(server);

    const backend = await open({ autoInvestMs: 3_600_000 });
    try {
      await expectEachPeriodOnce(backend, ids);
    } finally {
      await backend.close();
      await cleanup();
    }
  });
});

// Two processes over one database are a PostgreSQL deployment: PGlite is one process's database.
(ENGINES.includes('postgres') ? describe : describe.skip)("Auto-Invest's scheduler in two server processes", () => {
  it('runs each plan once per period when both processes run due plans at once', async () => {
    const databaseUrl = await createDatabase('repex_invest_two');
    const options = { port: 0, databaseUrl, jwtSecret: DEMO_JWT_SECRET, rateLimits: NO_RATE_LIMITS };
    const setup = await startBackend({ ...options, autoInvestMs: 3_600_000 });
    const ids = await prepare(setup, 12);
    await setup.close();

    const a = await startBackend({ ...options, autoInvestMs: 20, migrate: false });
    const b = await startBackend({ ...options, autoInvestMs: 20, migrate: false });
    try {
      await eventually(async () => {
        const [row] = await a.db.query<{ n: string }>('select count(*) as n from invest_runs');
        return Number(row!.n) >= ids.length * PLANS_PER_TRADER ? true : undefined;
      }, 60_000);
      await new Promise((r) => setTimeout(r, 300));
      await expectEachPeriodOnce(a, ids);
    } finally {
      await a.close();
      await b.close();
      await dropDatabase(databaseUrl);
    }
  });
});
