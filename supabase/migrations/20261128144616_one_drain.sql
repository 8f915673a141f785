-- one_drain: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

drop routine if exists private.close_due_offerings(integer);

drop routine if exists private.run_due_plans(integer);

CREATE OR REPLACE PROCEDURE private.drain(IN p_step regproc, IN p_most integer)
 LANGUAGE plpgsql
AS $procedure$
declare
  more boolean;
begin
  for i in 1..p_most loop
    execute format('select %s()', p_step) into more;
    exit when not more;
    commit;
  end loop;
end $procedure$;

revoke all on routine private.drain(regproc,integer) from public;
