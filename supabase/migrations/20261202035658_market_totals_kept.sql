-- market_totals_kept: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

drop view if exists public.market_summary;

drop routine if exists private.fold_trader_changes();

-- The traders' changes not folded yet, folded before their table goes.
update private.market_counts set traders = traders + (select coalesce(sum(delta), 0) from private.trader_changes);

alter table private.trader_changes drop constraint if exists "trader_changes_delta_check";

drop table private.trader_changes;

create table private.market_changes ();

alter table private.market_changes add column "traders" smallint default 0 not null;

alter table private.market_changes add column "market_cap" numeric default 0 not null;

alter table private.market_changes add column "volume_24h" numeric default 0 not null;

alter table private.market_counts add column "market_cap" numeric default 0 not null;

alter table private.market_counts add column "volume_24h" numeric default 0 not null;

-- The totals as the tokens' figures stand.
update private.market_counts set market_cap = (select coalesce(sum(market_cap), 0) from private.token_stats),
                                 volume_24h = (select coalesce(sum(volume_24h), 0) from private.token_stats);

CREATE OR REPLACE FUNCTION private.count_trader(p_user uuid, p_held boolean)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  n bigint;
begin
  if p_held then
    insert into private.tokens_held as h (user_id, tokens) values (p_user, 1)
    on conflict (user_id) do update set tokens = h.tokens + 1
    returning h.tokens into n;
    if n = 1 then insert into private.market_changes (traders) values (1); end if;
  else
    update private.tokens_held set tokens = tokens - 1 where user_id = p_user and tokens > 1 returning tokens into n;
    if n is null then
      delete from private.tokens_held where user_id = p_user;
      if found then insert into private.market_changes (traders) values (-1); end if;
    end if;
  end if;
end $function$;

CREATE OR REPLACE FUNCTION private.fold_market_changes()
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  with folded as (delete from private.market_changes returning *)
  update private.market_counts c
     set traders = c.traders + f.traders, market_cap = c.market_cap + f.market_cap, volume_24h = c.volume_24h + f.volume_24h
    from (select coalesce(sum(traders), 0) as traders, coalesce(sum(market_cap), 0) as market_cap,
                 coalesce(sum(volume_24h), 0) as volume_24h from folded) f;
end $function$;

CREATE OR REPLACE FUNCTION private.slide_token_stats()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  tid uuid;
  before jsonb;
  n integer := 0;
begin
  perform private.fold_market_changes(); -- the market's totals (below), on the same beat
  -- The batch due first, locked in token order, as the hourly rescoring locks tokens: two
  -- transactions that lock several tokens in one order cannot deadlock.
  for tid in select x.token_id from (select d.token_id from private.token_stats d where d.slides_at <= now()
                                     order by d.slides_at limit 500) x order by x.token_id loop
    perform 1 from public.tokens where id = tid for no key update;
    before := (select jsonb_build_object('market_cap', s.market_cap, 'volume_24h', s.volume_24h)
                 from private.token_stats s where s.token_id = tid);
    perform private.refresh_token_stats(tid);
    perform private.tell_market(tid, 'stats', '[]', null, before);
    n := n + 1;
  end loop;
  return n;
end $function$;

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
    select m.market_cap, m.volume_24h
      from (select (select coalesce(sum(n.market_cap), 0) from new_stats n) - (select coalesce(sum(o.market_cap), 0) from old_stats o) as market_cap,
                   (select coalesce(sum(n.volume_24h), 0) from new_stats n) - (select coalesce(sum(o.volume_24h), 0) from old_stats o) as volume_24h) m
     where m.market_cap <> 0 or m.volume_24h <> 0;
  else
    insert into private.market_changes (market_cap, volume_24h)
    select -sum(o.market_cap), -sum(o.volume_24h) from old_stats o having sum(o.market_cap) <> 0 or sum(o.volume_24h) <> 0;
  end if;
  return null;
end $function$;

create view public.market_summary as
select
  c.market_cap + ch.market_cap as total_market_cap,
  c.volume_24h + ch.volume_24h as volume_24h,
  (select coalesce(sum(tokens), 0)::bigint from private.token_counts) as active_tokens,
  c.traders + ch.traders as total_traders
from private.market_counts c
cross join (select coalesce(sum(x.traders), 0) as traders, coalesce(sum(x.market_cap), 0) as market_cap,
                   coalesce(sum(x.volume_24h), 0) as volume_24h from private.market_changes x) ch;

alter table private.market_changes add constraint "market_changes_traders_check" CHECK (((traders >= '-1'::integer) AND (traders <= 1)));

CREATE TRIGGER token_stats_total_delete AFTER DELETE ON private.token_stats REFERENCING OLD TABLE AS old_stats FOR EACH STATEMENT EXECUTE FUNCTION private.total_token_stats();

CREATE TRIGGER token_stats_total_insert AFTER INSERT ON private.token_stats REFERENCING NEW TABLE AS new_stats FOR EACH STATEMENT EXECUTE FUNCTION private.total_token_stats();

CREATE TRIGGER token_stats_total_update AFTER UPDATE ON private.token_stats REFERENCING OLD TABLE AS old_stats NEW TABLE AS new_stats FOR EACH STATEMENT EXECUTE FUNCTION private.total_token_stats();

revoke all on routine private.fold_market_changes() from public;

revoke all on table public.market_summary from anon;
