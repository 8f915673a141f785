-- candles_and_price_alerts: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

create table public.candles ();

create table public.price_alerts ();

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

alter table public.price_alerts add column "id" bigint generated always as identity;

alter table public.price_alerts add column "user_id" uuid not null;

alter table public.price_alerts add column "token_id" uuid not null;

alter table public.price_alerts add column "kind" text not null;

alter table public.price_alerts add column "price" numeric(12,2);

alter table public.price_alerts add column "move_pct" numeric(5,2);

alter table public.price_alerts add column "created_at" timestamp with time zone default now() not null;

alter table public.price_alerts add column "fired_at" timestamp with time zone;

alter table public.price_alerts add column "fired_price" numeric(12,2);

CREATE OR REPLACE FUNCTION private.alert_words(a public.price_alerts, token_name text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$
  select case a.kind
    when 'above' then format('%s traded at %s, at or above your alert at %s.', token_name, private.money(a.fired_price), private.money(a.price))
    when 'below' then format('%s traded at %s, at or below your alert at %s.', token_name, private.money(a.fired_price), private.money(a.price))
    else format('%s moved %s%% or more within 24 hours: it traded at %s.', token_name, trim_scale(a.move_pct)::text, private.money(a.fired_price))
  end
$function$;

CREATE OR REPLACE FUNCTION private.alerts_on_trades()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  fired integer;
begin
  with moved as (
    select n.token_id, max(n.price) as high, min(n.price) as low,
           (array_agg(n.price order by n.created_at desc, n.id desc))[1] as last
    from new_trades n group by n.token_id
  ),
  hit as (
    update public.price_alerts a
       set fired_at = now(),
           fired_price = case a.kind when 'above' then m.high when 'below' then m.low else m.last end
      from moved m left join private.token_stats s on s.token_id = m.token_id
     where a.token_id = m.token_id and a.fired_at is null
       and case a.kind when 'above' then m.high >= a.price
                       when 'below' then m.low <= a.price
                       else abs(coalesce(s.change_24h, 0)) >= a.move_pct end
    returning a.*
  ),
  mailed as (
    insert into private.account_mail (user_id, subject, body)
    select h.user_id, format('Price alert: %s at %s', t.name, private.money(h.fired_price)),
           private.alert_words(h, t.name) || E'\n\nThe alert stays on your list until you remove it or set it again.'
    from hit h join public.tokens t on t.id = h.token_id
    returning 1
  )
  select count(*) into fired from mailed;
  if fired > 0 then perform pg_notify('repx_mail', ''); end if; -- only when one fired: a notifying commit serializes
  return null;
end $function$;

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
  d record;
begin
  delete from public.candles;
  for d in select distinct token_id, date_trunc('day', created_at at time zone 'UTC') as day from public.trades loop
    insert into public.candles
    select * from private.candle_rows(array(
      select t from public.trades t
      where t.token_id = d.token_id
        and t.created_at >= d.day at time zone 'UTC' and t.created_at < (d.day + interval '1 day') at time zone 'UTC'));
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

CREATE OR REPLACE FUNCTION public.delete_price_alert(p_alert bigint)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  delete from public.price_alerts where id = p_alert and user_id = private.active_caller();
  if not found then perform private.refuse(format('You have no price alert #%s.', p_alert)); end if;
end $function$;

CREATE OR REPLACE FUNCTION public.set_price_alert(p_token uuid, p_kind text, p_value numeric, p_alert bigint DEFAULT NULL::bigint)
 RETURNS public.price_alerts
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.active_caller();
  most constant integer := 20;
  tok public.tokens;
  last numeric;
  saved public.price_alerts;
begin
  select * into tok from public.tokens where id = p_token;
  if not found then perform private.refuse('There is no such token.'); end if;
  if p_kind is null or p_kind not in ('above', 'below', 'move') then
    perform private.refuse('An alert is for a price at or above a level, at or below one, or a move within 24 hours.');
  end if;
  if p_value is null or p_value = 'NaN' or p_value <= 0 then
    perform private.refuse(case when p_kind = 'move' then 'Give the move as a percentage above 0.' else 'Give the alert''s price, above $0.00.' end);
  end if;
  if p_value <> round(p_value, 2) then perform private.refuse('Use at most two decimals.'); end if;
  if p_kind = 'move' and p_value > 100 then perform private.refuse('A move is at most 100%.'); end if;
  last := private.last_price(p_token);
  if p_kind = 'above' and p_value <= last then
    perform private.refuse(format('%s is at %s already: set the alert above that.', tok.name, private.money(last)));
  elsif p_kind = 'below' and p_value >= last then
    perform private.refuse(format('%s is at %s already: set the alert below that.', tok.name, private.money(last)));
  end if;
  if p_alert is null then
    if (select count(*) from public.price_alerts where user_id = uid) >= most then
      perform private.refuse(format('You have %s price alerts, the most allowed. Remove one to set another.', most));
    end if;
    insert into public.price_alerts (user_id, token_id, kind, price, move_pct)
    values (uid, p_token, p_kind, case when p_kind <> 'move' then p_value end, case when p_kind = 'move' then p_value end)
    returning * into saved;
  else
    update public.price_alerts
       set kind = p_kind, price = case when p_kind <> 'move' then p_value end,
           move_pct = case when p_kind = 'move' then p_value end, fired_at = null, fired_price = null
     where id = p_alert and user_id = uid and token_id = p_token
    returning * into saved;
    if not found then perform private.refuse(format('You have no price alert #%s on %s.', p_alert, tok.name)); end if;
  end if;
  return saved;
end $function$;

create view public.my_price_alerts with (security_invoker=true) as
 SELECT a.id,
    a.token_id,
    t.name,
    t.username,
    a.kind,
    a.price,
    a.move_pct,
    a.created_at,
    a.fired_at,
    a.fired_price,
        CASE
            WHEN (a.fired_at IS NOT NULL) THEN private.alert_words(a.*, t.name)
            ELSE NULL::text
        END AS message
   FROM (price_alerts a
     JOIN tokens t ON ((t.id = a.token_id)))
  WHERE (a.user_id = auth.uid());

alter table public.candles add constraint "candles_pkey" PRIMARY KEY (token_id, seconds, bucket);

alter table public.candles add constraint "candles_seconds_check" CHECK ((seconds = ANY (ARRAY[60, 300, 900, 3600, 14400, 86400])));

alter table public.price_alerts add constraint "price_alerts_check" CHECK (((kind = 'move'::text) = (move_pct IS NOT NULL)));

alter table public.price_alerts add constraint "price_alerts_check1" CHECK (((kind = 'move'::text) = (price IS NULL)));

alter table public.price_alerts add constraint "price_alerts_kind_check" CHECK ((kind = ANY (ARRAY['above'::text, 'below'::text, 'move'::text])));

alter table public.price_alerts add constraint "price_alerts_move_pct_check" CHECK (((move_pct > (0)::numeric) AND (move_pct <= (100)::numeric)));

alter table public.price_alerts add constraint "price_alerts_pkey" PRIMARY KEY (id);

alter table public.price_alerts add constraint "price_alerts_price_check" CHECK ((price > (0)::numeric));

alter table public.candles add constraint "candles_token_id_fkey" FOREIGN KEY (token_id) REFERENCES tokens(id) ON DELETE CASCADE;

alter table public.price_alerts add constraint "price_alerts_token_id_fkey" FOREIGN KEY (token_id) REFERENCES tokens(id) ON DELETE CASCADE;

alter table public.price_alerts add constraint "price_alerts_user_id_fkey" FOREIGN KEY (user_id) REFERENCES profiles(id) ON DELETE CASCADE;

CREATE INDEX price_alerts_armed_idx ON public.price_alerts USING btree (token_id) WHERE (fired_at IS NULL);

CREATE INDEX price_alerts_user_idx ON public.price_alerts USING btree (user_id, created_at DESC);

CREATE TRIGGER trades_candles AFTER INSERT ON public.trades REFERENCING NEW TABLE AS new_trades FOR EACH STATEMENT EXECUTE FUNCTION private.candles_on_trades();

CREATE TRIGGER trades_stats_alerts AFTER INSERT ON public.trades REFERENCING NEW TABLE AS new_trades FOR EACH STATEMENT EXECUTE FUNCTION private.alerts_on_trades();

create policy "candles are visible to signed-in users" on public.candles as permissive for select to authenticated
  using (true);

create policy "own alerts" on public.price_alerts as permissive for select to authenticated
  using (((user_id = ( SELECT auth.uid() AS uid)) OR ( SELECT private.is_admin() AS is_admin)));

alter table public.candles enable row level security;

alter table public.price_alerts enable row level security;

revoke all on function private.alert_words(public.price_alerts,text) from public;
grant execute on function private.alert_words(public.price_alerts,text) to authenticated;

revoke all on function private.alerts_on_trades() from public;

revoke all on function private.candle_rows(public.trades[]) from public;

revoke all on function private.candle_seconds(text) from public;

revoke all on function private.candles_on_trades() from public;

revoke all on function private.rebuild_candles() from public;

revoke all on function public.candles(uuid,text,integer) from anon;
revoke all on function public.candles(uuid,text,integer) from public;

revoke all on function public.delete_price_alert(bigint) from anon;
revoke all on function public.delete_price_alert(bigint) from public;

revoke all on function public.set_price_alert(uuid,text,numeric,bigint) from anon;
revoke all on function public.set_price_alert(uuid,text,numeric,bigint) from public;

revoke all on table public.candles from anon;
revoke insert, update, delete, truncate on table public.candles from authenticated;

revoke all on table public.price_alerts from anon;
revoke insert, update, delete, truncate on table public.price_alerts from authenticated;

revoke all on table public.my_price_alerts from anon;
revoke insert, update, delete, truncate on table public.my_price_alerts from authenticated;

-- Data: the candles of the trades made before this migration.
select private.rebuild_candles();
