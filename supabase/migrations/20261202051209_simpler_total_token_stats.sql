-- simpler_total_token_stats: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.total_token_stats()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
begin
  if tg_op = 'INSERT' then
    insert into private.market_changes (market_cap, volume_24h)
    select sum(n.market_cap), sum(n.volume_24h) from new_stats n having sum(n.market_cap) <> 0 or sum(n.volume_24h) <> 0;
  elsif tg_op = 'UPDATE' then
    insert into private.market_changes (market_cap, volume_24h)
    select sum(d.market_cap), sum(d.volume_24h)
      from (select n.market_cap, n.volume_24h from new_stats n
            union all select -o.market_cap, -o.volume_24h from old_stats o) d
    having sum(d.market_cap) <> 0 or sum(d.volume_24h) <> 0;
  else
    insert into private.market_changes (market_cap, volume_24h)
    select -sum(o.market_cap), -sum(o.volume_24h) from old_stats o having sum(o.market_cap) <> 0 or sum(o.volume_24h) <> 0;
  end if;
  return null;
end $function$;
