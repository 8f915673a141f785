-- portfolio_days_reads_the_period: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

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
  -- The movements to read: up to the period's end, and from its start when the cash before it is given.
  span as (
    select case when p_cash_before is null then '-infinity'::timestamptz else p_from::timestamp at time zone 'UTC' end as since,
           (p_to + 1)::timestamp at time zone 'UTC' as until
  ),
  -- Every cash movement of the account read, on its UTC day; a flow comes from outside the
  -- portfolio. Each part by time on its index.
  moves as (
    select (w.created_at at time zone 'UTC')::date as day,
           case w.type when 'deposit' then w.amount else -w.amount end as amount, true as flow
    from public.wallet_transactions w
    where w.user_id = p_user and w.created_at >= (select since from span) and w.created_at < (select until from span)
      and case w.type when 'deposit' then w.status = 'completed' else w.status not in ('failed', 'cancelled') end
    union all
    select (t.created_at at time zone 'UTC')::date, -(t.value + t.buyer_fee), t.token_id in (select id from own)
    from public.trades t
    where t.buyer_id = p_user and t.created_at >= (select since from span) and t.created_at < (select until from span)
    union all
    select (t.created_at at time zone 'UTC')::date, t.value - t.seller_fee, t.token_id in (select id from own)
    from public.trades t
    where t.seller_id = p_user and t.created_at >= (select since from span) and t.created_at < (select until from span)
    union all
    select (t.created_at at time zone 'UTC')::date, t.value - t.seller_fee, true
    from public.trades t
    where t.proceeds_to = p_user and t.created_at >= (select since from span) and t.created_at < (select until from span)
    union all
    select (t.created_at at time zone 'UTC')::date, t.creator_share, true
    from public.trades t
    where t.creator_id = p_user and t.creator_share > 0
      and t.created_at >= (select since from span) and t.created_at < (select until from span)
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
  -- The period's daily candles of the tokens held, each token's read by time on its index.
  day_candles as (
    select c.token_id, c.bucket, c.close
    from held_tokens h
    join public.candles c on c.token_id = h.token_id and c.seconds = 86400
                         and c.bucket >= p_from::timestamp at time zone 'UTC' and c.bucket <= p_to::timestamp at time zone 'UTC'
  ),
  grid as (
    select h.token_id, d.day,
           h.before + sum(coalesce(x.delta, 0)) over (partition by h.token_id order by d.day) as tokens,
           c.close
    from held_tokens h
    cross join days d
    left join deltas x on x.token_id = h.token_id and x.day = d.day
    left join day_candles c on c.token_id = h.token_id and c.bucket = d.day::timestamp at time zone 'UTC'
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
