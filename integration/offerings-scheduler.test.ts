import { SignJWT } from 'jose';
import type { Backend } from '../server/index';
import { DEMO_JWT_SECRET } from '../server/demo';
import { startBackend } from '../server/index';
import { NO_RATE_LIMITS } from '../server/http/rateLimit';
import { ENGINES, createDatabase, dropDatabase, eventually } from './harness/backends';
import { ANON_KEY, JWT_SECRET } from './harness/clients';
import { crashableServer, spawnServer, stopServer } from './harness/process';
import { invariantViolations, offeringToken, trader } from './harness/market';

jest.setTimeout(240_000);

const BIDDERS = 3;
/** Each bidder's bid in every offering: 100 offered, 180 bid, $11 clears, the margin shared. */
const BIDS = [
  { price: 12, amount: 50 },
  { price: 11, amount: 60 },
  { price: 11, amount: 70 },
];
/** What each bid receives at $11: 50 in full; 50 left for 130 at the margin, 23 and 26, the one left to the earlier. */
const ALLOCATED = [50, 24, 26];

/** `offerings` offerings of 100 tokens, each with the three bids, all due. Returns the bidders' ids. */
async function prepare(backend: Backend, offerings: number): Promise<string[]> {
  const bidders = [];
  for (let i = 0; i < BIDDERS; i++) bidders.push(await trader(backend, { cash: 100_000 }));
  for (let n = 0; n < offerings; n++) {
    const token = await offeringToken(backend, { supply: 100, price: 10, cap: 100 });
    for (const [i, b] of bidders.entries()) {
      const { error } = await b.client.rpc('place_offering_bid', {
        p_token: token,
        p_price: BIDS[i]!.price,
        p_amount: BIDS[i]!.amount,
      });
      expect(error).toBeNull();
    }
  }
  await backend.db.query(
    `update offerings set opens_at = now() - interval '1 day', closes_at = now() - interval '1 second' where closed_at is null`,
  );
  return bidders.map((b) => b.id);
}

/** Every offering closed once: each bid allocated as computed, one trade each, the holdings and the books whole. */
async function expectEachClosedOnce(backend: Backend, ids: string[], offerings: number) {
  const rows = await backend.db.query<{ user_id: string; allocated: string; trades: string; held: string }>(
    `select b.user_id, b.allocated,
            (select count(*) from trades t where t.token_id = f.token_id and t.buyer_id = b.user_id) as trades,
            (select coalesce(sum(h.amount), 0) from holdings h where h.token_id = f.token_id and h.user_id = b.user_id) as held
       from offering_bids b join offerings f on f.id = b.offering_id
      where f.closed_at is not null and b.user_id = any($1)`,
    [ids],
  );
  expect(rows).toHaveLength(offerings * BIDDERS);
  const wrong = rows.filter((r) => {
    const expected = ALLOCATED[ids.indexOf(r.user_id)]!;
    return Number(r.allocated) !== expected || Number(r.trades) !== 1 || Number(r.held) !== expected;
  });
  expect(wrong).toEqual([]);
  expect(await invariantViolations(backend)).toEqual([]);
}

/** Offerings closed, counted through the running server as the service role. */
async function closedCount(url: string): Promise<number> {
  const key = await new SignJWT({ role: 'service_role' })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(JWT_SECRET));
  const res = await fetch(`${url}/rest/v1/offerings?select=id&closed_at=not.is.null`, {
    method: 'HEAD',
    headers: { apikey: ANON_KEY, Authorization: `Bearer ${key}`, Prefer: 'count=exact' },
  });
  return Number(res.headers.get('content-range')?.split('/')[1]);
}

describe.each(ENGINES)("the offerings' close on %s", (engine) => {
  it('closes each offering exactly once across a kill -9 mid-run and a restart', async () => {
    const OFFERINGS = 20;
    const { url, env, open, cleanup } = await crashableServer(engine, 'repex_offering_crash', { OFFERINGS_MS: '50' });
    // Prepared in-process with its scheduler idle, so that the server's closes are the ones killed.
    const prepared = await open({ offeringsMs: 3_600_000 });
    const ids = await prepare(prepared, OFFERINGS);
    // Each close made slower (a test's trigger, not the schema's), so that the kill lands among them.
    await prepared.db.exec(`create function public.zz_slow_close() returns trigger language plpgsql as
        $$ begin perform pg_sleep(0.1); return null; end $$;
      create trigger zz_slow_close after update of closed_at on public.offerings for each row execute function public.zz_slow_close();`);
    await prepared.close();

    let server = await spawnServer(env);
    let before = 0;
    for (const started = Date.now(); before === 0 && Date.now() - started < 30_000;) before = await closedCount(url);
    await stopServer(server, 'SIGKILL');
    console.log(`${engine}: ${before} of ${OFFERINGS} offerings closed when the server was killed`);
    expect(before).toBeLessThan(OFFERINGS);

    server = await spawnServer(env);
    await eventually(async () => ((await closedCount(url)) >= OFFERINGS ? true : undefined), 60_000);
    await new Promise((r) => setTimeout(r, 500)); // further ticks find nothing due
    await stopServer(server);

    const backend = await open({ offeringsMs: 3_600_000 });
    try {
      await expectEachClosedOnce(backend, ids, OFFERINGS);
    } finally {
      await backend.close();
      await cleanup();
    }
  });
});

// Two processes over one database are a PostgreSQL deployment: PGlite is one process's database.
(ENGINES.includes('postgres') ? describe : describe.skip)("the offerings' close in two server processes", () => {
  it('closes each offering exactly once when both processes close due offerings at once', async () => {
    const OFFERINGS = 30;
    const databaseUrl = await createDatabase('repex_offering_two');
    const options = { port: 0, databaseUrl, jwtSecret: DEMO_JWT_SECRET, rateLimits: NO_RATE_LIMITS };
    const setup = await startBackend({ ...options, offeringsMs: 3_600_000 });
    const ids = await prepare(setup, OFFERINGS);
    await setup.close();

    const a = await startBackend({ ...options, offeringsMs: 20, migrate: false });
    const b = await startBackend({ ...options, offeringsMs: 20, migrate: false });
    try {
      await eventually(async () => {
        const [row] = await a.db.query<{ n: string }>('select count(*) as n from offerings where closed_at is null');
        return Number(row!.n) === 0 ? true : undefined;
      }, 60_000);
      await new Promise((r) => setTimeout(r, 300));
      await expectEachClosedOnce(a, ids, OFFERINGS);
    } finally {
      await a.close();
      await b.close();
      await dropDatabase(databaseUrl);
    }
  });
});
