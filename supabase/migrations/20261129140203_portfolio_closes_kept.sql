-- portfolio_closes_kept: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

create table private.portfolio_closes ();

alter table private.portfolio_closes add column "user_id" uuid not null;

alter table private.portfolio_closes add column "day" date not null;

alter table private.portfolio_closes add column "cash" numeric not null;

alter table private.portfolio_closes add column "positions" numeric not null;

alter table private.portfolio_closes add column "flow" numeric not null;

CREATE OR REPLACE FUNCTION private.forget_portfolio_closes(p_user uuid, p_at timestamp with time zone)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if p_user is null then
    delete from private.portfolio_closes where day >= (p_at at time zone 'UTC')::date;
  else
    delete from private.portfolio_closes where user_id = p_user and day >= (p_at at time zone 'UTC')::date;
  end if;
end $function$;

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
                                last_day) d;
    any_kept := true;
  end loop;
  return any_kept;
end $function$;

CREATE OR REPLACE FUNCTION private.portfolio_closed_until()
 RETURNS date
 LANGUAGE sql
 STABLE
AS $function$ select (now() at time zone 'UTC' - interval '1 hour')::date - 1 $function$;

CREATE OR REPLACE FUNCTION private.portfolio_days_kept(p_user uuid, p_from date, p_to date)
 RETURNS TABLE(day date, cash numeric, positions numeric, flow numeric)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
#variable_conflict use_column
declare
  first date := (select min(c.day) from private.portfolio_closes c where c.user_id = p_user);
  kept date := (select max(c.day) from private.portfolio_closes c where c.user_id = p_user and c.day <= p_to);
begin
  if first is null or first > p_to then
    return query select * from private.portfolio_days(p_user, p_from, p_to);
    return;
  end if;
  return query select d::date, 0::numeric, 0::numeric, 0::numeric
                 from generate_series(p_from, first - 1, interval '1 day') d;
  return query select c.day, c.cash, c.positions, c.flow from private.portfolio_closes c
                where c.user_id = p_user and c.day between p_from and kept order by c.day;
  if kept < p_to then
    return query select * from private.portfolio_days(p_user, greatest(kept + 1, p_from), p_to);
  end if;
end $function$;

CREATE OR REPLACE FUNCTION private.portfolio_on_payment()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  perform private.forget_portfolio_closes(new.user_id, new.created_at);
  return null;
end $function$;

CREATE OR REPLACE FUNCTION private.stats_on_trades()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  batch record;
  oldest public.trades;
  newest public.trades;
begin
  for batch in
    select n.token_id, sum(n.value) as value, array_agg(n::public.trades order by n.created_at, n.id) as trades,
           max(n.price) as high, min(n.price) as low, sum(n.amount)::bigint as volume, count(*)::integer as count
    from new_trades n group by n.token_id
  loop
    oldest := batch.trades[1];
    newest := batch.trades[cardinality(batch.trades)];
    -- A trade dated before today moves a past day's close, which kept portfolio days hold (analysis.sql).
    if oldest.created_at < date_trunc('day', now() at time zone 'UTC') at time zone 'UTC' then
      perform private.forget_portfolio_closes(null, oldest.created_at);
    end if;
    update private.token_stats s set
      price = newest.price,
      market_cap = round(newest.price * (select total_supply from public.tokens where id = batch.token_id), 2),
      volume_24h = s.volume_24h + batch.value,
      first_price = coalesce(s.first_price, oldest.price),
      change_24h = private.change_pct(newest.price, coalesce(s.day_ago_price, s.first_price, oldest.price)),
      last_trade_at = newest.created_at,
      last_trade_id = newest.id,
      slides_at = coalesce(s.slides_at, oldest.created_at + interval '24 hours')
    where s.token_id = batch.token_id
      and oldest.created_at > now() - interval '24 hours'
      and (s.last_trade_at is null or (oldest.created_at, oldest.id) > (s.last_trade_at, s.last_trade_id));
    if not found then
      perform private.refresh_token_stats(batch.token_id); -- no row yet, or back-dated: recompute
    end if;

    -- One candle row per interval. A settlement's trades share one time, so they fall in one
    -- bucket of each interval and fold into six rows without grouping them again; trades at
    -- several times (the seed, a bulk load) go through candle_rows, which groups them by bucket.
    insert into public.candles as c
    select * from private.candle_rows(batch.trades) where oldest.created_at <> newest.created_at
    union all
    select batch.token_id, i.seconds, to_timestamp(floor(extract(epoch from oldest.created_at) / i.seconds) * i.seconds),
           oldest.price, batch.high, batch.low, newest.price, batch.volume, batch.count,
           oldest.created_at, oldest.id, newest.created_at, newest.id
    from unnest(array[60, 300, 900, 3600, 14400, 86400]) i (seconds) where oldest.created_at = newest.created_at
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
  end loop;
  return null;
end $function$;

CREATE OR REPLACE FUNCTION public.my_portfolio_history(p_period text DEFAULT '30d'::text, p_from date DEFAULT NULL::date, p_to date DEFAULT NULL::date)
 RETURNS TABLE(day date, value numeric, cash numeric, positions numeric, flow numeric, gain numeric, twr numeric, mwr numeric, index_return numeric)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  me uuid := private.active_caller();
  today date := (now() at time zone 'UTC')::date;
  growth numeric := 1;
  prev numeric;
  opening numeric;
  flows numeric := 0;
  -- The money-weighted return's opening day (k counts days from the period's opening), and its
  -- sums since: of the flows, and of each flow times its day.
  k integer := -1;
  origin integer := 0;
  weighted numeric := 0;
  capital numeric;
  base_level numeric;
  level numeric;
  r record;
  span record;
begin
  perform private.require_second_step();
  span := private.period_days(me, p_period, p_from, p_to);
  for r in select * from private.portfolio_days_kept(me, span.opening, span.closing) loop
    k := k + 1;
    day := r.day;
    cash := round(r.cash, 2);
    positions := round(r.positions, 2);
    value := cash + positions;
    flow := round(r.flow, 2);
    if prev is not null and prev + flow > 0 then growth := growth * value / (prev + flow); end if;
    -- The opening's own flows made its value: only the days after it count.
    if prev is not null then flows := flows + flow; end if;
    opening := coalesce(opening, value);
    gain := value - opening - flows;
    twr := round((growth - 1) * 100, 4);
    if opening = 0 and flows = 0 and value = 0 then origin := k; end if;
    if k > origin then weighted := weighted + k * flow; end if;
    capital := case when k = origin then null else opening + ((k + 1) * flows - weighted) / (k - origin) end;
    mwr := case when k = origin then 0 when capital > 0 then round(gain / capital * 100, 4) end;
    prev := value;
    level := case when r.day = today then (select sum(b.units * b.price) from public.index_basket b)
                  else (select l.level from public.index_levels l
                         where l.period = 'day' and l.at = (r.day + 1)::timestamp at time zone 'UTC') end;
    base_level := coalesce(base_level, level);
    index_return := round((level / base_level - 1) * 100, 4);
    return next;
  end loop;
end $function$;

alter table private.portfolio_closes add constraint "portfolio_closes_pkey" PRIMARY KEY (user_id, day);

alter table private.portfolio_closes add constraint "portfolio_closes_user_id_fkey" FOREIGN KEY (user_id) REFERENCES profiles(id) ON DELETE CASCADE;

CREATE INDEX portfolio_closes_day_idx ON private.portfolio_closes USING btree (day);

CREATE TRIGGER wallet_transactions_portfolio AFTER INSERT OR UPDATE OF status, amount ON public.wallet_transactions FOR EACH ROW WHEN ((new.created_at < (date_trunc('day'::text, (now() AT TIME ZONE 'UTC'::text)) AT TIME ZONE 'UTC'::text))) EXECUTE FUNCTION private.portfolio_on_payment();

revoke all on routine private.forget_portfolio_closes(uuid,timestamp with time zone) from public;

revoke all on routine private.keep_next_portfolio(integer) from public;

revoke all on routine private.portfolio_days_kept(uuid,date,date) from public;
