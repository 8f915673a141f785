import pg from 'pg';
import type { Backend } from '../server/index';
import { ENGINES, backendFor, createDatabase, dropDatabase } from './harness/backends';
import { spawnServer, stopServer } from './harness/process';
import { freePort } from './harness/ports';
import { JWT_SECRET } from './harness/clients';

const claim = (db: Backend['db'], name: string, everyMs: number, by = 'test') =>
  db
    .query<{ claimed: boolean }>('select local_server.claim_job($1, $2, $3) as claimed', [name, everyMs, by])
    .then(([row]) => row!.claimed);

describe.each(ENGINES)('a scheduled job claims its period (%s)', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  it('is run by the first claimant of a period, and by no one else until the period has passed', async () => {
    expect(await claim(backend.db, 'test job', 400, 'a')).toBe(true);
    expect(await claim(backend.db, 'test job', 400, 'b')).toBe(false);
    expect(await claim(backend.db, 'test job', 400, 'a')).toBe(false);
    await new Promise((r) => setTimeout(r, 400));
    expect(await claim(backend.db, 'test job', 400, 'b')).toBe(true);
    const [row] = await backend.db.query<{ claimed_by: string; runs: string }>(
      `select claimed_by, runs::int as runs from local_server.job_runs where name = 'test job'`,
    );
    expect(row).toEqual({ claimed_by: 'b', runs: 2 });
  });
});

const onPostgres = ENGINES.includes('postgres') ? describe : describe.skip;

onPostgres('scheduled jobs over PostgreSQL', () => {
  let url: string;
  beforeAll(async () => {
    url = await createDatabase('repex_jobs');
  });
  afterAll(() => dropDatabase(url));

  it('lets one of many concurrent claimants run a period, without waiting on the others', async () => {
    const pool = new pg.Pool({ connectionString: url, max: 8 });
    try {
      const server = await spawnServer({ SUPABASE_PORT: String(await freePort()), DATABASE_URL: url, JWT_SECRET });
      await stopServer(server); // the database migrated, the scheduler's table with it
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          pool
            .query<{ claimed: boolean }>(`select local_server.claim_job('race', 60000, $1) as claimed`, [`p${i}`])
            .then((r) => r.rows[0]!.claimed),
        ),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
    } finally {
      await pool.end();
    }
  });

  it('runs each job once per deployment, not once per process: two processes share one period', async () => {
    const everyMs = 300;
    const server = await spawnServer({
      SUPABASE_PORT: String(await freePort()),
      DATABASE_URL: url,
      JWT_SECRET,
      SERVER_PROCESSES: '2',
      AUTO_INVEST_MS: String(everyMs),
    });
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    const read = async () =>
      (
        await pool.query<{ runs: string; at: Date; by: string[] }>(
          `select coalesce(max(runs), 0) as runs, clock_timestamp() as at,
                  array(select distinct claimed_by from local_server.job_runs) as by
             from local_server.job_runs where name = 'auto-invest'`,
        )
      ).rows[0]!;
    try {
      const first = await read();
      await new Promise((r) => setTimeout(r, 4_000));
      const last = await read();
      const runs = Number(last.runs) - Number(first.runs);
      const periods = (last.at.getTime() - first.at.getTime()) / (0.9 * everyMs);
      // Each process's timer fires every 300 ms: unclaimed, two processes would run it twice a period.
      console.log(
        `auto-invest ran ${runs} times in ${(last.at.getTime() - first.at.getTime()) / 1000} s, over two processes`,
      );
      expect(runs).toBeGreaterThan(0);
      expect(runs).toBeLessThanOrEqual(Math.floor(periods) + 1);
    } finally {
      await pool.end();
      await stopServer(server);
    }
  });
});
