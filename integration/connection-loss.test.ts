import pg from 'pg';
import type { Backend } from '../server/index';
import { ADMIN_URL, ENGINES, backendFor, eventually } from './harness/backends';
import { signedIn } from './harness/clients';
import { randomOrders } from './harness/load';
import { freshToken, invariantViolations, placeOrder, trader } from './harness/market';

const onPostgres = ENGINES.includes('postgres') ? describe : describe.skip;

jest.setTimeout(120_000);

/** Ends every connection of the server to its database, as a failover or a restart of PostgreSQL does. */
async function terminateConnections(database: string): Promise<number> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    const rows = await admin.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [database],
    );
    return rows.rowCount ?? 0;
  } finally {
    await admin.end();
  }
}

onPostgres("when PostgreSQL cuts the server's connections in the middle of a load", () => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor('postgres')();
  });
  afterAll(() => backend.close());

  it('requests in flight fail with a retryable 503, the server keeps serving, nothing acknowledged is lost', async () => {
    const token = await freshToken(backend);
    const traders = [];
    for (let i = 0; i < 6; i++) traders.push(await trader(backend, { cash: 5000, token, tokens: 300 }));
    const [{ datname }] = (await backend.db.query<{ datname: string }>('select current_database() as datname')) as [
      { datname: string },
    ];

    let stop = false;
    const load = Promise.all(
      traders.map((t, i) => randomOrders(t.client, [token], { count: 100_000, seed: 300 + i, until: () => stop })),
    );
    // The load is measured in orders, not in time, so that a busy machine cannot leave it too thin
    // to show anything: cuts begin once orders flow, and the load stops once more have come through.
    const orders = async () =>
      Number(
        (await backend.db.query<{ n: string }>('select count(*) as n from orders where token_id = $1', [token]))[0]!.n,
      );
    const atLeast = (n: number) => eventually(async () => ((await orders()) >= n ? true : undefined), 60_000);
    await atLeast(10);
    let terminated = 0;
    for (let round = 0; round < 4; round++) {
      await new Promise((r) => setTimeout(r, 400));
      terminated += await terminateConnections(datname);
    }
    await atLeast((await orders()) + 10);
    stop = true;
    const results = await load;

    expect(terminated).toBeGreaterThan(0);
    // Only the requests that lost their connection failed, and they said to retry.
    const failures = results.flatMap((r) => r.failures);
    console.log(`${terminated} connections ended under load; ${failures.length} requests answered 503`);
    expect(failures.filter((f) => !/^(place|cancel): 503 The database connection was lost/.test(f))).toEqual([]);

    // The same server answers the next requests: a fresh sign-in and an order.
    const again = await signedIn(backend.url, {
      email: (await traders[0]!.client.auth.getUser()).data.user!.email!,
      password: 'password-123',
    });
    const placed = await placeOrder(again, token, 'sell', 'limit', 1, 50);
    expect(placed.error).toBeNull();

    // Every acknowledged order is in the database, and the books balance.
    const acknowledged = results.flatMap((r) => r.acknowledged);
    expect(acknowledged.length).toBeGreaterThanOrEqual(10);
    const [{ n }] = (await backend.db.query<{ n: string }>(
      'select count(*) as n from orders where id = any($1::bigint[])',
      [acknowledged],
    )) as [{ n: string }];
    expect(Number(n)).toBe(acknowledged.length);
    expect(await invariantViolations(backend)).toEqual([]);
  });
});
