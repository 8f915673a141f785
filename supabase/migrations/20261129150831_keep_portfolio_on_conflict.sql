-- keep_portfolio_on_conflict: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.keep_next_portfolio(p_people integer DEFAULT 50)
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  last_day date := private.portfolio_closed_until();
  who record;
  any_kept boolean := false;
begin
  for who in
    select p.id, (select max(c.day) from private.portfolio_closes c where c.user_id = p.id) as kept
    from public.profiles p
    where not exists (select 1 from private.portfolio_closes c where c.user_id = p.id and c.day = last_day)
    limit p_people
  loop
    insert into private.portfolio_closes (user_id, day, cash, positions, flow)
    select who.id, d.day, d.cash, d.positions, d.flow
    from private.portfolio_days(who.id, coalesce(who.kept + 1, least(private.period_start(who.id, 'all'), last_day)),
                                last_day) d
    on conflict (user_id, day) do nothing; -- another keeper (a run by hand beside the schedule's) kept it first
    any_kept := true;
  end loop;
  return any_kept;
end $function$;
