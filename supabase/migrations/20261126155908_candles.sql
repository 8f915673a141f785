-- candles: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

create table public.candles ();

alter table public.candles add column "token_id" uuid not null;

alter table public.candles add column "seconds" integer not null;

alter table public.candles add column "bucket" timestamp with time zone not null;

alter table public.candles add column "open" numeric(12,2) not null;

alter table public.candles add column "high" numeric(12,2) not null;

alter table public.candles add column "low" numeric(12,2) not null;

alter table public.candles add column "close" numeric(12,2) not null;

alter table public.candles add column "volume" bigint not null;

alter table public.candles add column "trades" integer not null;

alter table public.candles add column "opened_at" timestamp with time zone not null;

alter table public.candles add column "opened_id" bigint not null;

alter table public.candles add column "closed_at" timestamp with time zone not null;

alter table public.candles add column "closed_id" bigint not null;

CREATE OR REPLACE FUNCTION private.candle_rows(p_trades public.trades[])
 RETURNS SETOF public.candles
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select b.token_id, b.seconds, b.bucket,
         (array_agg(b.price order by b.created_at, b.id))[1], max(b.price), min(b.price),
         (array_agg(b.price order by b.created_at desc, b.id desc))[1], sum(b.amount)::bigint, count(*)::integer,
         (array_agg(b.created_at order by b.created_at, b.id))[1], (array_agg(b.id order by b.created_at, b.id))[1],
         (array_agg(b.created_at order by b.created_at desc, b.id desc))[1],
         (array_agg(b.id order by b.created_at desc, b.id desc))[1]
  from (select n.token_id, n.id, n.price, n.amount, n.created_at, i.seconds,
               to_timestamp(floor(extract(epoch from n.created_at) / i.seconds) * i.seconds) as bucket
        from unnest(p_trades) n cross join (values (60), (300), (900), (3600), (14400), (86400)) i (seconds)) b
  group by b.token_id, b.seconds, b.bucket
$function$;

CREATE OR REPLACE FUNCTION private.candle_seconds(p_interval text)
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE
AS $function$
  select case p_interval when '1m' then 60 when '5m' then 300 when '15m' then 900
                         when '1h' then 3600 when '4h' then 14400 when '1d' then 86400 end
$function$;

CREATE OR REPLACE FUNCTION private.candles_on_trades()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
begin
  insert into public.candles as c
  select * from private.candle_rows(array(select n::public.trades from new_trades n))
  on conflict (token_id, seconds, bucket) do update set
    open = case when (excluded.opened_at, excluded.opened_id) < (c.opened_at, c.opened_id) then excluded.open else c.open end,
    opened_at = least(c.opened_at, excluded.opened_at),
    opened_id = case when (excluded.opened_at, excluded.opened_id) < (c.opened_at, c.opened_id) then excluded.opened_id else c.opened_id end,
    close = case when (excluded.closed_at, excluded.closed_id) > (c.closed_at, c.closed_id) then excluded.close else c.close end,
    closed_at = greatest(c.closed_at, excluded.closed_at),
    closed_id = case when (excluded.closed_at, excluded.closed_id) > (c.closed_at, c.closed_id) then excluded.closed_id else c.closed_id end,
    high = greatest(c.high, excluded.high),
    low = least(c.low, excluded.low),
    volume = c.volume + excluded.volume,
    trades = c.trades + excluded.trades;
  return null;
end $function$;

CREATE OR REPLACE FUNCTION private.rebuild_candles()
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  tid uuid;
begin
  delete from public.candles;
  for tid in select id from public.tokens loop
    insert into public.candles select * from private.candle_rows(array(select t from public.trades t where t.token_id = tid));
  end loop;
end $function$;

CREATE OR REPLACE FUNCTION public.candles(p_token uuid, p_interval text DEFAULT '1h'::text, p_limit integer DEFAULT 300)
 RETURNS TABLE(bucket timestamp with time zone, open numeric, high numeric, low numeric, close numeric, volume bigint)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
#variable_conflict use_column
declare
  secs integer := private.candle_seconds(p_interval);
begin
  if secs is null then perform private.refuse('The interval must be 1m, 5m, 15m, 1h, 4h or 1d.'); end if;
  return query
  select x.bucket, x.open, x.high, x.low, x.close, x.volume from (
    select c.bucket, c.open, c.high, c.low, c.close, c.volume from public.candles c
    where c.token_id = p_token and c.seconds = secs
    order by c.bucket desc
    limit least(greatest(coalesce(p_limit, 300), 1), 1000)) x
  order by x.bucket;
end $function$;

alter table public.candles add constraint "candles_pkey" PRIMARY KEY (token_id, seconds, bucket);

alter table public.candles add constraint "candles_seconds_check" CHECK ((seconds = ANY (ARRAY[60, 300, 900, 3600, 14400, 86400])));

alter table public.candles add constraint "candles_token_id_fkey" FOREIGN KEY (token_id) REFERENCES tokens(id) ON DELETE CASCADE;

CREATE TRIGGER trades_candles AFTER INSERT ON public.trades REFERENCING NEW TABLE AS new_trades FOR EACH STATEMENT EXECUTE FUNCTION private.candles_on_trades();

create policy "candles are visible to signed-in users" on public.candles as permissive for select to authenticated
  using (true);

alter table public.candles enable row level security;

revoke all on function private.candle_rows(public.trades[]) from public;

revoke all on function private.candle_seconds(text) from public;

revoke all on function private.candles_on_trades() from public;

revoke all on function private.rebuild_candles() from public;

revoke all on function public.candles(uuid,text,integer) from anon;
revoke all on function public.candles(uuid,text,integer) from public;

revoke all on table public.candles from anon;
revoke insert, update, delete, truncate on table public.candles from authenticated;

-- Data: the candles of the trades made before this migration.
select private.rebuild_candles();
