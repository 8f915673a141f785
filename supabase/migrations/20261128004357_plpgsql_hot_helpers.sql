-- plpgsql_hot_helpers: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

drop function if exists private.book_levels(uuid,jsonb);

drop function if exists private.candle_rows(public.trades[]);

drop function if exists private.has_app(uuid);

drop function if exists private.order_levels(bigint[]);

CREATE OR REPLACE FUNCTION private.book_levels(p_token uuid, p_levels jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
begin
  return (
    select coalesce(jsonb_agg(jsonb_build_object('side', l.side, 'price', l.price, 'amount',
             (select coalesce(sum(o.amount - o.filled), 0) from public.orders o
               where o.token_id = p_token and o.side = l.side and o.status = 'open'
                 and (case when o.side = 'buy' then -o.price else o.price end)
                   = (case when l.side = 'buy' then -l.price else l.price end))) order by l.side, l.price), '[]')
    from (select distinct x.side, x.price from jsonb_to_recordset(p_levels) as x (side text, price numeric)
          where x.price is not null) l);
end $function$;

CREATE OR REPLACE FUNCTION private.candle_rows(p_trades public.trades[])
 RETURNS SETOF public.candles
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
begin
  -- The prices as the table types them: a PL/pgSQL result must match its columns' precision too.
  return query
  select b.token_id, b.seconds, b.bucket,
         (array_agg(b.price order by b.created_at, b.id))[1]::numeric(12, 2), max(b.price)::numeric(12, 2),
         min(b.price)::numeric(12, 2), (array_agg(b.price order by b.created_at desc, b.id desc))[1]::numeric(12, 2),
         sum(b.amount)::bigint, count(*)::integer,
         (array_agg(b.created_at order by b.created_at, b.id))[1], (array_agg(b.id order by b.created_at, b.id))[1],
         (array_agg(b.created_at order by b.created_at desc, b.id desc))[1],
         (array_agg(b.id order by b.created_at desc, b.id desc))[1]
  from (select n.token_id, n.id, n.price, n.amount, n.created_at, i.seconds,
               to_timestamp(floor(extract(epoch from n.created_at) / i.seconds) * i.seconds) as bucket
        from unnest(p_trades) n cross join (values (60), (300), (900), (3600), (14400), (86400)) i (seconds)) b
  group by b.token_id, b.seconds, b.bucket;
end $function$;

CREATE OR REPLACE FUNCTION private.has_app(p_user uuid)
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return exists (select from auth.mfa_factors f where f.user_id = p_user and f.status = 'verified');
end $function$;

CREATE OR REPLACE FUNCTION private.order_levels(p_orders bigint[])
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return (select coalesce(jsonb_agg(jsonb_build_object('side', o.side, 'price', o.price)), '[]')
          from public.orders o
          where o.price is not null and (o.id = any (p_orders) or o.oco_with = any (p_orders)));
end $function$;

revoke all on routine private.book_levels(uuid,jsonb) from public;

revoke all on routine private.candle_rows(public.trades[]) from public;

revoke all on routine private.has_app(uuid) from public;

revoke all on routine private.order_levels(bigint[]) from public;
