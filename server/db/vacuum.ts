import type { Database } from './database';

/**
 * PostgreSQL's autovacuum, where it does not run: on PGlite, which has none (one backend: no
 * launcher, no workers), and on a PostgreSQL server for the tables its autovacuum skips (turned off
 * for the server or for the table). Without it an updated row leaves its old versions behind for
 * every scan to step over (a trader's holding, updated at each fill, was 4,700 versions after 3,000
 * orders), and the planner keeps the statistics of a table's first rows, so a plan cached while the
 * table was tiny (a sequential scan) stays as it grows: a fill's settlement scanned every order ever
 * placed. Tables are vacuumed and analyzed on PostgreSQL's default thresholds; a table another
 * server process is vacuuming is left to it. Resolves to the tables it vacuumed or analyzed.
 */
export async function vacuumWhereDue(db: Database): Promise<string[]> {
  // pg_options_to_table gives a table's autovacuum_enabled as written (false, off, 0...): cast, not compared.
  const skipped =
    db.kind === 'pglite'
      ? 'true'
      : `not current_setting('autovacuum')::boolean
         or not coalesce((select o.option_value::boolean from pg_options_to_table(c.reloptions) o
                           where o.option_name = 'autovacuum_enabled'), true)`;
  const due = await db.query<{ rel: string; vacuum: boolean }>(`
    select format('%I.%I', s.schemaname, s.relname) as rel, s.vacuum
    from (select s.schemaname, s.relname,
                 s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0)
                   or s.n_ins_since_vacuum > 1000 + 0.2 * greatest(c.reltuples, 0) as vacuum,
                 s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0) as analyze
          from pg_stat_all_tables s join pg_class c on c.oid = s.relid
          where c.relkind in ('r', 'm') and s.schemaname <> 'information_schema' and (${skipped})
            and s.schemaname not like 'pg\\_to%' and s.schemaname not like 'pg\\_temp%') s
    where s.vacuum or s.analyze
    order by s.schemaname, s.relname`);
  for (const { rel, vacuum } of due)
    await db.exec(`${vacuum ? 'vacuum (analyze, skip_locked)' : 'analyze (skip_locked)'} ${rel}`);
  return due.map((d) => d.rel);
}
