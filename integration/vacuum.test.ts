import type { Backend } from '../server/index';
import { backendFor, ENGINES, eventually } from './harness/backends';

/**
 * Where PostgreSQL's autovacuum does not run (PGlite has none; a PostgreSQL server can have it off,
 * for the server or for a table), the server runs it (same thresholds), so updated rows do not pile
 * up as dead versions and the planner's statistics follow the tables as they grow (cached plans are
 * made again when a table is analyzed). On PostgreSQL the probe table turns autovacuum off for
 * itself, so the test holds whatever the server's setting.
 */
describe.each(ENGINES)('vacuum and analyze where autovacuum does not run, on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine, { vacuumMs: 200 })();
  });
  afterAll(() => backend.close());

  const stats = async () =>
    (
      await backend.db.query<{ dead: number; vacuumed: boolean; analyzed_rows: number }>(
        `select s.n_dead_tup::int as dead, s.last_vacuum is not null as vacuumed, c.reltuples::int as analyzed_rows
           from pg_stat_all_tables s join pg_class c on c.oid = s.relid
          where s.schemaname = 'public' and s.relname = 'vacuum_probe'`,
      )
    )[0]!;

  it('vacuums a table whose rows were updated, and analyzes one that grew', async () => {
    await backend.db.exec(`
      create table public.vacuum_probe (id int primary key, n int) with (autovacuum_enabled = off);
      insert into public.vacuum_probe values (1, 0);`);
    // A backend sends its counts at most once a second, or up to 10 s later when idle: counts that
    // arrived after the vacuum would show its dead versions again, below the threshold for another.
    // Sent at once, so what the test reads is what the job saw.
    const flushed = 'select pg_stat_force_next_flush()';
    await backend.db.exec(
      `do $$ begin for i in 1..120 loop update public.vacuum_probe set n = n + 1 where id = 1; end loop; end $$; ${flushed}`,
    );
    await backend.db.exec(`insert into public.vacuum_probe select g, 0 from generate_series(2, 3000) g; ${flushed}`);
    const after = await eventually(async () => {
      const s = await stats();
      return s.vacuumed && s.dead === 0 ? s : undefined;
    });
    expect(after.analyzed_rows).toBe(3000);
    await backend.db.exec('drop table public.vacuum_probe');
  });
});
