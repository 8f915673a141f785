-- scheduled_procedures: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

CREATE OR REPLACE PROCEDURE private.close_due_offerings(IN p_most integer DEFAULT 100)
 LANGUAGE plpgsql
AS $procedure$
begin
  for i in 1..p_most loop
    exit when not private.close_next_offering();
    commit;
  end loop;
end $procedure$;

CREATE OR REPLACE PROCEDURE private.run_due_plans(IN p_most integer DEFAULT 1000)
 LANGUAGE plpgsql
AS $procedure$
begin
  for i in 1..p_most loop
    exit when not private.run_next_plan();
    commit;
  end loop;
end $procedure$;

revoke all on routine private.close_due_offerings(integer) from public;

revoke all on routine private.run_due_plans(integer) from public;
