-- portfolio_history_from_kept_cash: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

drop routine if exists private.portfolio_days(uuid,date,date);

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
    select p.id, k.day as kept, k.cash
    from public.profiles p
    left join lateral (select c.day, c.cash from private.portfolio_closes c where c.user_id = p.id
                        order by c.day desc limit 1) k on true
    where not exists (select 1 from private.portfolio_closes c where c.user_id = p.id and c.day = last_day)
    limit p_people
  loop
    insert into private.portfolio_closes (user_id, day, cash, positions, flow)
    select who.id, d.day, d.cash, d.positions, d.flow
    from private.portfolio_days(who.id, coalesce(who.kept + 1, least(private.period_start(who.id, 'all'), last_day)),
                                last_day, who.cash) d
    on conflict (user_id, day) do nothing; -- another keeper (a run by hand beside the schedule's) kept it first
    any_kept := true;
  end loop;
  return any_kept;
end $function$;

CREATE OR REPLACE FUNCTION private.portfolio_days(p_user uuid, p_from date, p_to date, p_cash_before numeric DEFAULT NULL::numeric)
 RETURNS TABLE(day date, cash numeric, positions numeric, flow numeric)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
 SET jit TO 'off'
AS $function$
  with own as (
    select k.id from public.tokens k where k.owner_id = p_user
  ),
  days as (
    select d::date as day from generate_series(p_from, p_to, interval '1 day') d
  ),
  -- Every cash movement of the account, on its UTC day; a flow comes from outside the portfolio.
  moves as (
    select (w.created_at at time zone 'UTC')::date as day,
           case w.type when 'deposit' then w.amount else -w.amount end as amount, true as flow
    from public.wallet_transactions w
    where w.user_id = p_user
      and case w.type when 'deposit' then w.status = 'completed' else w.status not in ('failed', 'cancelled') end
    union all
    select (t.created_at at time zone 'UTC')::date, -(t.value + t.buyer_fee), t.token_id in (select id from own)
    from public.trades t where t.buyer_id = p_user
    union all
    select (t.created_at at time zone 'UTC')::date, t.value - t.seller_fee, t.token_id in (select id from own)
    from public.trades t where t.seller_id = p_user
    union all
    select (t.created_at at time zone 'UTC')::date, t.value - t.seller_fee, true
    from public.trades t where t.proceeds_to = p_user
    union all
    select (t.created_at at time zone 'UTC')::date, t.creator_share, true
    from public.trades t where t.creator_id = p_user and t.creator_share > 0
  ),
  -- The history before the period is folded into one opening figure, and only the period's days
  -- are grouped: a month of a long-standing account costs less than its whole history.
  cash_days as (
    select d.day,
           coalesce(p_cash_before, (select coalesce(sum(m.amount), 0) from moves m where m.day < p_from))
             + sum(coalesce(c.amount, 0)) over (order by d.day) as cash,
           coalesce(c.flow, 0) as flow
    from days d
    left join (select m.day, sum(m.amount) as amount, sum(m.amount) filter (where m.flow) as flow
               from moves m where m.day between p_from and p_to group by m.day) c on c.day = d.day
  ),
  -- Tokens bought and sold up to the period's end (the own token left out): each token's holding
  -- before the period, and its change on each of the period's days.
  mine as not materialized (
    select t.token_id, t.created_at, case when t.buyer_id = p_user then t.amount else -t.amount end as delta
    from public.trades t
    where (t.buyer_id = p_user or t.seller_id = p_user) and t.token_id not in (select id from own)
      and t.created_at < (p_to + 1)::timestamp at time zone 'UTC'
  ),
  held_tokens as (
    select m.token_id,
           coalesce(sum(m.delta) filter (where m.created_at < p_from::timestamp at time zone 'UTC'), 0) as before
    from mine m group by m.token_id
  ),
  deltas as (
    select m.token_id, (m.created_at at time zone 'UTC')::date as day, sum(m.delta) as delta
    from mine m where m.created_at >= p_from::timestamp at time zone 'UTC'
    group by 1, 2
  ),
  grid as (
    select h.token_id, d.day,
           h.before + sum(coalesce(x.delta, 0)) over (partition by h.token_id order by d.day) as tokens,
           c.close
    from held_tokens h
    cross join days d
    left join deltas x on x.token_id = h.token_id and x.day = d.day
    left join public.candles c on c.token_id = h.token_id and c.seconds = 86400
                              and c.bucket = d.day::timestamp at time zone 'UTC'
  ),
  -- Each day's price: its candle's close, else the last one before (carried forward within the
  -- range, and from before it), else the issue price.
  runs as (
    select g.token_id, g.day, g.tokens, g.close,
           count(g.close) over (partition by g.token_id order by g.day) as run
    from grid g
  ),
  priced as (
    select r.token_id, r.day, r.tokens,
           first_value(r.close) over (partition by r.token_id, r.run order by r.day) as close
    from runs r
  ),
  valued as (
    select p.day,
           sum(p.tokens * coalesce(
             p.close,
             (select c.close from public.candles c
               where c.token_id = p.token_id and c.seconds = 86400 and c.bucket < p_from::timestamp at time zone 'UTC'
               order by c.bucket desc limit 1),
             (select k.issue_price from public.tokens k where k.id = p.token_id))) as positions
    from priced p
    where p.tokens <> 0
    group by p.day
  )
  select c.day, c.cash, coalesce(v.positions, 0), c.flow
  from cash_days c left join valued v on v.day = c.day
  order by c.day
$function$;

CREATE OR REPLACE FUNCTION private.portfolio_days_kept(p_user uuid, p_from date, p_to date)
 RETURNS TABLE(day date, cash numeric, positions numeric, flow numeric)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
#variable_conflict use_column
declare
  first date := (select min(c.day) from private.portfolio_closes c where c.user_id = p_user);
  kept date;
  kept_cash numeric;
begin
  select c.day, c.cash into kept, kept_cash from private.portfolio_closes c
   where c.user_id = p_user and c.day <= p_to order by c.day desc limit 1;
  if first is null or first > p_to then
    return query select * from private.portfolio_days(p_user, p_from, p_to);
    return;
  end if;
  return query select d::date, 0::numeric, 0::numeric, 0::numeric
                 from generate_series(p_from, first - 1, interval '1 day') d;
  return query select c.day, c.cash, c.positions, c.flow from private.portfolio_closes c
                where c.user_id = p_user and c.day between p_from and kept order by c.day;
  if kept < p_to then
    -- From the last kept day's cash, when the rest starts right after it.
    return query select * from private.portfolio_days(p_user, greatest(kept + 1, p_from), p_to,
                                                      case when kept + 1 >= p_from then kept_cash end);
  end if;
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
  -- Each closed day's index level joined once, rather than looked up day by day.
  for r in select d.*, l.level as index_level
             from private.portfolio_days_kept(me, span.opening, span.closing) d
             left join public.index_levels l on l.period = 'day' and l.at = (d.day + 1)::timestamp at time zone 'UTC'
            order by d.day loop
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
    level := case when r.day = today then (select sum(b.units * b.price) from public.index_basket b) else r.index_level end;
    base_level := coalesce(base_level, level);
    index_return := round((level / base_level - 1) * 100, 4);
    return next;
  end loop;
end $function$;

revoke all on routine private.portfolio_days(uuid,date,date,numeric) from public;
