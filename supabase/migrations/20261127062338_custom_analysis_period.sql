-- custom_analysis_period: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

drop function if exists public.my_portfolio_history(text);

drop function if exists public.my_position_returns(text);

CREATE OR REPLACE FUNCTION private.period_days(p_user uuid, p_period text, p_from date, p_to date, OUT opening date, OUT closing date)
 RETURNS record
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  today date := (now() at time zone 'UTC')::date;
begin
  if p_period is distinct from 'custom' then
    if p_from is not null or p_to is not null then
      perform private.refuse('Dates go with the custom period only.');
    end if;
    opening := private.period_start(p_user, p_period);
    closing := today;
    return;
  end if;
  if p_from is null or p_to is null then perform private.refuse('A custom period needs a start date and an end date.'); end if;
  if p_from > p_to then perform private.refuse('The start date must be on or before the end date.'); end if;
  if p_to > today then perform private.refuse('The end date cannot be after today (UTC).'); end if;
  closing := p_to;
  opening := greatest(p_from - 1, least(private.period_start(p_user, 'all'), p_to - 1));
end $function$;

CREATE OR REPLACE FUNCTION private.period_start(p_user uuid, p_period text)
 RETURNS date
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  today date := (now() at time zone 'UTC')::date;
begin
  if p_period is null or p_period not in ('7d', '30d', '90d', '1y', 'all') then
    perform private.refuse('The period must be 7d, 30d, 90d, 1y, all, or custom with its dates.');
  end if;
  if p_period <> 'all' then
    return today - case p_period when '7d' then 7 when '30d' then 30 when '90d' then 90 else 365 end;
  end if;
  return coalesce(least(
    (select min(w.created_at) from public.wallet_transactions w where w.user_id = p_user),
    (select min(t.created_at) from public.trades t where t.buyer_id = p_user),
    (select min(t.created_at) from public.trades t where t.seller_id = p_user),
    (select min(t.created_at) from public.trades t where t.proceeds_to = p_user)) at time zone 'UTC', now() at time zone 'UTC')::date - 1;
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
  for r in select * from private.portfolio_days(me, span.opening, span.closing) loop
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

CREATE OR REPLACE FUNCTION public.my_position_returns(p_period text DEFAULT '30d'::text, p_from date DEFAULT NULL::date, p_to date DEFAULT NULL::date)
 RETURNS TABLE(token_id uuid, name text, value_start numeric, value_end numeric, net_bought numeric, gain numeric)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
#variable_conflict use_column
declare
  me uuid := private.active_caller();
  span record;
  opening timestamptz;
  ending timestamptz;
begin
  perform private.require_second_step();
  span := private.period_days(me, p_period, p_from, p_to);
  opening := (span.opening + 1)::timestamp at time zone 'UTC';
  ending := least(now(), (span.closing + 1)::timestamp at time zone 'UTC');
  return query
  with mine as (
    select t.token_id, t.created_at, t.buyer_id = me as bought, t.amount, t.value, t.buyer_fee, t.seller_fee
    from public.trades t
    where (t.buyer_id = me or t.seller_id = me) and t.created_at < ending
      and t.token_id is distinct from (select k.id from public.tokens k where k.owner_id = me)
  ),
  per_token as (
    select m.token_id,
           sum(case when m.bought then m.amount else -m.amount end) filter (where m.created_at < opening) as held_then,
           sum(case when m.bought then m.amount else -m.amount end) as held_now,
           sum(case when m.bought then m.value + m.buyer_fee else -(m.value - m.seller_fee) end)
             filter (where m.created_at >= opening) as put_in
    from mine m group by m.token_id
  ),
  valued as (
    select p.token_id,
           round(coalesce(p.held_then, 0) * private.price_at(p.token_id, opening), 2) as value_start,
           round(p.held_now * private.price_at(p.token_id, ending), 2) as value_end,
           round(coalesce(p.put_in, 0), 2) as net_bought
    from per_token p
    where coalesce(p.held_then, 0) <> 0 or p.put_in is not null
  )
  select v.token_id, k.name, v.value_start, v.value_end, v.net_bought, v.value_end - v.value_start - v.net_bought
  from valued v join public.tokens k on k.id = v.token_id
  order by v.value_end - v.value_start - v.net_bought desc, k.name;
end $function$;

revoke all on routine private.period_days(uuid,text,date,date) from public;

revoke all on routine public.my_portfolio_history(text,date,date) from anon;
revoke all on routine public.my_portfolio_history(text,date,date) from public;

revoke all on routine public.my_position_returns(text,date,date) from anon;
revoke all on routine public.my_position_returns(text,date,date) from public;
