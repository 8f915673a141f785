-- market_summary_from_kept_counts: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

drop view if exists public.market_summary;

create table private.tokens_held ();

create table private.trader_changes ();

create table private.market_counts ();

alter table private.tokens_held add column "user_id" uuid not null;

alter table private.tokens_held add column "tokens" bigint not null;

alter table private.trader_changes add column "delta" smallint not null;

alter table private.market_counts add column "only_row" boolean default true not null;

alter table private.market_counts add column "traders" bigint default 0 not null;

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
    if n = 1 then insert into private.trader_changes (delta) values (1); end if;
  else
    update private.tokens_held set tokens = tokens - 1 where user_id = p_user and tokens > 1 returning tokens into n;
    if n is null then
      delete from private.tokens_held where user_id = p_user;
      if found then insert into private.trader_changes (delta) values (-1); end if;
    end if;
  end if;
end $function$;

CREATE OR REPLACE FUNCTION private.fold_trader_changes()
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  with folded as (delete from private.trader_changes returning delta)
  update private.market_counts set traders = traders + (select coalesce(sum(delta), 0) from folded);
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
  perform private.fold_trader_changes(); -- the market's count of traders (below), on the same beat
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

CREATE OR REPLACE FUNCTION private.stats_on_holding()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  was boolean := tg_op <> 'INSERT' and old.amount > 0 and old.user_id <> private.issuance_account();
  now_held boolean := tg_op <> 'DELETE' and new.amount > 0 and new.user_id <> private.issuance_account();
begin
  if was <> now_held then
    update private.token_stats set holders = holders + case when now_held then 1 else -1 end
     where token_id = case when tg_op = 'DELETE' then old.token_id else new.token_id end;
    perform private.count_trader(case when tg_op = 'DELETE' then old.user_id else new.user_id end, now_held);
  end if;
  return null;
end $function$;

create view public.market_summary as
select
  s.total_market_cap,
  s.volume_24h,
  (select coalesce(sum(tokens), 0)::bigint from private.token_counts) as active_tokens,
  (select traders from private.market_counts) + (select coalesce(sum(delta), 0) from private.trader_changes) as total_traders
from (select coalesce(sum(market_cap), 0) as total_market_cap, coalesce(sum(volume_24h), 0) as volume_24h
      from private.token_stats) s;

alter table private.market_counts add constraint "market_counts_only_row_check" CHECK (only_row);

alter table private.market_counts add constraint "market_counts_pkey" PRIMARY KEY (only_row);

alter table private.market_counts add constraint "market_counts_traders_check" CHECK ((traders >= 0));

alter table private.tokens_held add constraint "tokens_held_pkey" PRIMARY KEY (user_id);

alter table private.tokens_held add constraint "tokens_held_tokens_check" CHECK ((tokens > 0));

alter table private.trader_changes add constraint "trader_changes_delta_check" CHECK ((delta = ANY (ARRAY['-1'::integer, 1])));

revoke all on routine private.count_trader(uuid,boolean) from public;

revoke all on routine private.fold_trader_changes() from public;

revoke all on table public.market_summary from anon;

-- The counts as the holdings stand (the schema file's insert makes the row on a fresh database).
insert into private.tokens_held (user_id, tokens)
select user_id, count(*) from public.holdings
 where amount > 0 and user_id <> private.issuance_account() group by user_id;
insert into private.market_counts (traders) select count(*) from private.tokens_held;
