import { startBackend } from '../server/index';
import { ENGINES, throwAwayStorage } from './harness/backends';
import { JWT_SECRET } from './harness/clients';

jest.setTimeout(120_000);

describe.each(ENGINES)('the migration history on %s', (engine) => {
  it('refuses a database migrated by a history it does not hold, saying how to start afresh', async () => {
    const store = await throwAwayStorage(engine, 'repex_history');
    const start = () => startBackend({ port: 0, jwtSecret: JWT_SECRET, seed: false, ...store.options });
    try {
      const first = await start();
      const [{ n }] = (await first.db.query<{ n: number }>(
        'select count(*)::int as n from supabase_migrations.schema_migrations',
      )) as [{ n: number }];
      expect(n).toBeGreaterThan(0);
      // A version this checkout does not have, as a database migrated before the consolidation has.
      await first.db.query(
        `insert into supabase_migrations.schema_migrations (version, name) values ('20261122000500', 'screens')`,
      );
      await first.close();
      await expect(start()).rejects.toThrow(
        /migrated by a history that supabase\/migrations does not hold \(version 20261122000500\).*Start it afresh/,
      );
    } finally {
      await store.cleanup();
    }
  });
});
