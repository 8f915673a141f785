-- The read functions the screens call keep their plans. A SQL function that cannot be inlined (and
-- `set search_path`, which Supabase's linter asks of every function, forbids inlining) is planned
-- afresh at each call on PostgreSQL 15 and PGlite, and planning through the row-level policies
-- cost more than running: 0.14 ms of list_open_orders' 0.2 ms, 0.7 of reputation_components'
-- 1.2 ms (which the hourly refresh calls once per token). PL/pgSQL keeps each statement's plan for
-- the connection. list_open_orders and price_history are told to keep their generic plans, which
-- no parameter changes the shape of (the book by the caller's index, the trades by the token's):
-- left to choose, the planner made a custom plan at every call of both. The bodies are unchanged;
-- `#variable_conflict use_column` keeps a name shared by a result column and a table column
-- meaning the table's, as in SQL.

create or replace function public.list_open_orders(p_token uuid default null, p_limit integer default 100, p_offset integer default 0)
returns setof public.orders
language plpgsql stable security invoker set search_path = '' set plan_cache_mode = force_generic_plan as $$
begin
  return query
  select * from public.orders
  where user_id = (select auth.uid()) and status = 'open' and (p_token is null or token_id = p_token)
  order by created_at desc, id desc
  limit least(greatest(coalesce(p_limit, 100), 1), 500) offset greatest(coalesce(p_offset, 0), 0);
end $$;

create or replace function public.price_history(p_token uuid, p_hours integer default 24)
returns table (bucket timestamptz, price numeric)
language plpgsql stable security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
#variable_conflict use_column
begin
  return query
  with hours as (
    select generate_series(date_trunc('hour', now()) - make_interval(hours => least(greatest(p_hours, 1), 720) - 1),
                           date_trunc('hour', now()), interval '1 hour') as bucket
  )
  select h.bucket,
         coalesce(
           (select tr.price from public.trades tr
             where tr.token_id = p_token and tr.created_at < h.bucket + interval '1 hour'
             order by tr.created_at desc, tr.id desc limit 1),
           (select t.issue_price from public.tokens t where t.id = p_token)) as price
  from hours h
  order by h.bucket;
end $$;

create or replace function public.my_positions()
returns table (token_id uuid, name text, username text, category text, avatar_url text, verified boolean,
               tokens bigint, avg_price numeric, cost numeric, price numeric, value numeric, pnl numeric, pnl_percent numeric)
language plpgsql stable security definer set search_path = '' as $$
#variable_conflict use_column
begin
  return query
  select h.token_id, m.name, m.username, m.category, m.avatar_url, m.verified, h.amount,
         round(coalesce(b.cost, 0) / h.amount, 2), round(coalesce(b.cost, 0), 2), m.price,
         round(h.amount * m.price, 2), round(h.amount * m.price, 2) - round(coalesce(b.cost, 0), 2),
         case when coalesce(b.cost, 0) > 0 then round((h.amount * m.price - b.cost) / b.cost * 100, 2) else 0 end
  from public.holdings h
  join public.market_tokens m on m.id = h.token_id
  left join private.cost_basis(auth.uid(), now()) b on b.token_id = h.token_id
  where h.user_id = auth.uid() and h.amount > 0 and m.owner_id is distinct from auth.uid()
  order by round(h.amount * m.price, 2) desc, m.name;
end $$;

create or replace function public.reputation_components(p_token uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
begin
  return (
  with t as (select k.*, p.created_at as person_since from public.tokens k left join public.profiles p on p.id = k.owner_id where k.id = p_token),
  facts as (
    select t.verified,
           (select count(*) from public.holdings h where h.token_id = t.id and h.amount > 0 and h.user_id <> private.issuance_account()) as holders,
           (select coalesce(sum(tr.value), 0) from public.trades tr where tr.token_id = t.id and tr.created_at > now() - interval '30 days') as volume,
           (select case when count(*) < 2 or avg(tr.price) = 0 then null else stddev_samp(tr.price) / avg(tr.price) end
              from public.trades tr where tr.token_id = t.id and tr.created_at > now() - interval '7 days') as variation,
           extract(epoch from now() - coalesce(t.person_since, t.created_at)) / 86400 as age_days,
           (select count(*) from public.fraud_alerts a where t.owner_id = any (a.accounts) and a.status in ('open', 'reviewing')) as alerts
    from t
  ),
  parts as (
    select holders, volume, variation, age_days, alerts,
           case when verified then 15 else 0 end::numeric as verified_points,
           least(20, 20 * ln(1 + holders::numeric) / ln(1001::numeric)) as holder_points,
           least(20, 20 * ln(1 + volume::numeric) / ln(1000001::numeric)) as volume_points,
           case when variation is null then 10 else greatest(0, least(20, 20 * (1 - 5 * variation))) end as stability_points,
           least(15, greatest(0, 15 * age_days / 365)) as age_points,
           greatest(0, 10 - 5 * alerts)::numeric as alert_points
    from facts
  )
  select jsonb_build_object(
    'verified', round(verified_points, 2), 'holders', round(holder_points, 2), 'volume', round(volume_points, 2),
    'stability', round(stability_points, 2), 'age', round(age_points, 2), 'alerts', round(alert_points, 2),
    'score', round(least(100, greatest(0, verified_points + holder_points + volume_points + stability_points + age_points + alert_points)), 2),
    'facts', jsonb_build_object('holders', holders, 'volume_30d', volume, 'price_variation_7d', round(variation, 4),
                                'account_age_days', floor(age_days), 'open_alerts', alerts))
  from parts);
end $$;

-- my_pnl's plan is estimated at a million rows (a thousand days from generate_series times a
-- thousand positions, the defaults for function scans), which is past every JIT threshold: on
-- PostgreSQL each call compiled its expressions with LLVM for 140 ms to run a query of 7 ms, for
-- every user however few their trades. (PGlite has no JIT.)
alter function public.my_pnl(integer) set jit = off;
