import type { Database } from '../server/db/database';
import { openPglite } from '../server/db/pglite';
import { openPostgres } from '../server/db/postgres';
import { compareCatalogs, readCatalog } from '../tools/catalog';
import { schemaDrift } from '../tools/drift';
import { planMigration } from '../tools/plan';
import { schemaScript } from '../tools/schemas';
import { createDatabase, dropDatabase, ENGINES, type Engine } from './harness/backends';
import { pgliteImage } from './harness/pgliteImage';

jest.setTimeout(180_000);

/** A fresh, empty database on `engine`, and how to throw it away. */
async function scratch(engine: Engine): Promise<{ db: Database; drop: () => Promise<void> }> {
  if (engine === 'pglite') {
    const db = await openPglite(undefined, await pgliteImage());
    return { db, drop: () => db.close() };
  }
  const url = await createDatabase('repex_drift');
  const db = await openPostgres(url);
  return {
    db,
    drop: async () => {
      await db.close();
      await dropDatabase(url);
    },
  };
}

/** Two fresh databases: one for the migrations, one for the schema files. */
async function pair(engine: Engine): Promise<{ migrated: Database; declared: Database; drop: () => Promise<void> }> {
  const [a, b] = await Promise.all([scratch(engine), scratch(engine)]);
  return { migrated: a.db, declared: b.db, drop: async () => void (await Promise.all([a.drop(), b.drop()])) };
}

/** The schema files with one piece replaced, as someone editing them would leave them. */
function edited(from: string, to: string): string {
  const script = schemaScript();
  expect(script).toContain(from);
  return script.replace(from, () => to);
}

describe.each(ENGINES)('the declarative schema on %s', (engine) => {
  it('is exactly what the migrations make: every table, column, constraint, index, function, view, trigger, policy and grant', async () => {
    const { migrated, declared, drop } = await pair(engine);
    try {
      expect(await schemaDrift(migrated, declared)).toEqual([]);
    } finally {
      await drop();
    }
  });

  it('names a function whose schema file was edited without a migration', async () => {
    const { migrated, declared, drop } = await pair(engine);
    try {
      const script = edited(
        `raise exception 'There is no such token.' using errcode = 'P0001';`,
        `raise exception 'No such token.' using errcode = 'P0001';`,
      );
      const diffs = await schemaDrift(migrated, declared, { schemaScript: script });
      expect(diffs.map((d) => `${d.key}: ${d.change}`)).toEqual(['function private.lock_book(uuid,numeric): differs']);
    } finally {
      await drop();
    }
  });

  it('names a column a migration added without the schema files', async () => {
    const { migrated, declared, drop } = await pair(engine);
    try {
      const diffs = await schemaDrift(migrated, declared, {
        afterMigrations: (db) => db.exec('alter table public.orders add column note text'),
      });
      expect(diffs.map((d) => d.key)).toContain('column public.orders.note');
      expect(diffs.find((d) => d.key === 'column public.orders.note')?.change).toBe('only in migrations');
    } finally {
      await drop();
    }
  });

  it('derives the migration for a change to the schema files, which then make the same database', async () => {
    const { migrated, declared, drop } = await pair(engine);
    try {
      // A change touching each kind of object: a new table with keys, a check, an index, row-level
      // security, a policy and grants; a new column; a changed function; a new function and view; a
      // removed index; a changed policy; a new trigger; a comment.
      let script = edited(
        `  constraint tokens_halt_whole check ((halt_reason is null) = (halted_at is null))\n);`,
        `  constraint tokens_halt_whole check ((halt_reason is null) = (halted_at is null)),\n  ticker text check (ticker ~ '^[A-Z]{2,6}$')\n);`,
      );
      script = script.replace(`create index tokens_category_idx on public.tokens (category);\n`, () => '');
      script = script.replace(
        `create policy "vesting schedules are visible to signed-in users" on public.vesting_grants\n  for select to authenticated using (true);`,
        () =>
          `create policy "vesting schedules are visible to signed-in users" on public.vesting_grants\n  for select to authenticated using (total > 0);`,
      );
      script = script.replace(`'Sign in to trade.'`, () => `'Sign in first to trade.'`);
      script += `
create table public.watch_levels (
  id bigint generated always as identity primary key,
  user_id uuid not null references public.profiles (id) on delete cascade,
  token_id uuid not null references public.tokens (id) on delete cascade,
  above numeric(12, 2) check (above > 0),
  created_at timestamptz not null default now(),
  unique (user_id, token_id)
);
create index watch_levels_token_idx on public.watch_levels (token_id, above);
alter table public.watch_levels enable row level security;
create policy "own alerts" on public.watch_levels for select to authenticated using (user_id = (select auth.uid()));
revoke all on public.watch_levels from anon;
revoke insert, update, delete, truncate on public.watch_levels from authenticated;
comment on column public.watch_levels.above is 'Alert when the last price reaches this.';
create function private.levels_due(p_token uuid) returns bigint language sql stable set search_path = '' as $$
  select count(*) from public.watch_levels a join private.token_stats s on s.token_id = a.token_id
  where a.token_id = p_token and s.price >= a.above
$$;
revoke execute on function private.levels_due(uuid) from public;
create view public.my_levels with (security_invoker = true) as select id, token_id, above from public.watch_levels;
create function private.touch_level() returns trigger language plpgsql as $$ begin new.created_at := now(); return new; end $$;
create trigger watch_levels_touch before update on public.watch_levels for each row execute function private.touch_level();
`;
      const diffs = await schemaDrift(migrated, declared, { schemaScript: script });
      expect(diffs.length).toBeGreaterThan(10);
      const plan = await planMigration(diffs, declared, script);
      expect(plan.unsupported).toEqual([]);
      await migrated.exec(`begin;\nset local check_function_bodies = off;\n${plan.statements.join('\n')}\ncommit;`);
      expect(compareCatalogs(await readCatalog(migrated), await readCatalog(declared))).toEqual([]);
    } finally {
      await drop();
    }
  });
  it('gives a re-created view or function its grants again', async () => {
    const { migrated, declared, drop } = await pair(engine);
    try {
      // A view's text changed and a function's parameter renamed: both are dropped and created
      // again, which resets their grants to the schema's defaults, while the grants themselves
      // are the same on both sides.
      let script = edited(
        `private.offering_clearing(f.id) where f.closed_at is null) c on true;`,
        `private.offering_clearing(f.id) where f.closed_at is null and f.supply > 0) c on true;`,
      );
      const header = `create function public.cancel_offering_bid(p_token uuid) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
`;
      expect(script).toContain(header);
      script = script.replace(
        header,
        () => header.replace('(p_token uuid)', '(p_offering_token uuid)') + '  p_token uuid := p_offering_token;\n',
      );
      const diffs = await schemaDrift(migrated, declared, { schemaScript: script });
      expect(diffs.map((d) => d.key).sort()).toEqual([
        'function public.cancel_offering_bid(uuid)',
        'view public.offering_book',
      ]);
      const plan = await planMigration(diffs, declared, script);
      await migrated.exec(`begin;\nset local check_function_bodies = off;\n${plan.statements.join('\n')}\ncommit;`);
      expect(compareCatalogs(await readCatalog(migrated), await readCatalog(declared))).toEqual([]);
    } finally {
      await drop();
    }
  });
  it("writes a changed view as its schema file does, which reads back the same where PostgreSQL's own text would not", async () => {
    const { migrated, declared, drop } = await pair(engine);
    try {
      // wallet_moves' later union branches have unnamed columns: pg_get_viewdef's text, read back,
      // names them (`'Completed'::text AS text`), and the drift check would name the view again.
      const script = edited(`'Your share of the fees on %s %s at %s'`, `'Your share of fees on %s %s at %s'`);
      const diffs = await schemaDrift(migrated, declared, { schemaScript: script });
      expect(diffs.map((d) => d.key)).toEqual(['view private.wallet_moves']);
      // Its reader, the wallet's history, is dropped before it and made again after it.
      const plan = await planMigration(diffs, declared, script);
      const at = (text: string) => plan.statements.findIndex((st) => st.startsWith(text));
      expect(at('drop view if exists public.wallet_history')).toBeLessThan(
        at('drop view if exists private.wallet_moves'),
      );
      expect(at('create view private.wallet_moves')).toBeLessThan(at('create view public.wallet_history'));
      expect(plan.statements.join('\n')).toContain(`'Your share of fees on %s %s at %s', tr.amount`);
      await migrated.exec(`begin;\n${plan.statements.join('\n')}\ncommit;`);
      expect(compareCatalogs(await readCatalog(migrated), await readCatalog(declared))).toEqual([]);
    } finally {
      await drop();
    }
  });
});
