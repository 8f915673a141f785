-- Portfolio Analysis: a person's value over time, its time-weighted return beside the RepX index,
-- allocation, and each position's gain over a period. Reconstructed from the ledger (trades and
-- cash movements) and the daily candles, so a past day's figure is exact and never stored twice.
--
-- - The portfolio is cash plus the tokens bought, at each day's close (00:00 UTC the next day; today
--   at now). A person's own token is not part of it (they received it, as the dashboard says): money
--   from its sale, its offering or their share of its fees enters the portfolio as a deposit would.
-- - A cash movement counts when it was asked for, as the wallet's history lists it: a deposit once
--   completed, a withdrawal unless it failed or was cancelled.
-- - A token's price at a day's close is the close of its last daily candle by then (its issue price
--   before its first trade): the last trade's price, as everywhere else.
-- - Time-weighted return: each day's return is the day's closing value over the previous close plus
--   the day's flows (deposits less withdrawals, and own-token money), the days chained. So money
--   put in or taken out does not count as performance; a day that starts with nothing returns 0.

-- One row per day from p_from to p_to (UTC dates): the closing cash, positions and value, and the
-- day's flows. JIT is off: the planner's guesses for this query (a thousand days of each of a
-- hundred tokens) pass JIT's threshold, and compiling it costs far more than running it.
-- p_cash_before: the cash at the close of the day before p_from, where the caller knows it (a kept
-- day's); without it, the whole history of cash movements before p_from is summed.
create function private.portfolio_days(p_user uuid, p_from date, p_to date, p_cash_before numeric default null)
returns table (day date, cash numeric, positions numeric, flow numeric)
language sql stable security definer set search_path = '' set jit = off as $$
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
$$;
revoke execute on function private.portfolio_days(uuid, date, date, numeric) from public;

-- Each closed day's figures (portfolio_days), kept so that a long period reads its past days
-- instead of rebuilding each token's holding and price for every day. Only derived figures: the
-- ledger and the candles stay the truth, and whatever changes a kept day forgets it and every day
-- after, which are built again (forget_portfolio_closes). A person's kept days run without a gap
-- from their first: keeping appends, forgetting cuts from a day on.
create table private.portfolio_closes (
  user_id uuid not null references public.profiles (id) on delete cascade,
  day date not null,
  cash numeric not null,
  positions numeric not null,
  flow numeric not null,
  primary key (user_id, day)
);
create index portfolio_closes_day_idx on private.portfolio_closes (day);

-- The last day that may be kept: a day closed an hour ago at least, so that no transaction that
-- began on it (and dates its rows to it) can still be writing.
create function private.portfolio_closed_until() returns date
language sql stable as $$ select (now() at time zone 'UTC' - interval '1 hour')::date - 1 $$;

-- Forgets kept days from the day of `p_at` on: a person's (a payment of theirs), or everyone's
-- (p_user null: a past day's prices changed). Cheap when nothing that late was kept.
create function private.forget_portfolio_closes(p_user uuid, p_at timestamptz) returns void
language plpgsql security definer set search_path = '' as $$
begin
  if p_user is null then
    delete from private.portfolio_closes where day >= (p_at at time zone 'UTC')::date;
  else
    delete from private.portfolio_closes where user_id = p_user and day >= (p_at at time zone 'UTC')::date;
  end if;
end $$;
revoke execute on function private.forget_portfolio_closes(uuid, timestamp with time zone) from public;

-- A payment changes its person's cash from the day it was asked for, whenever it settles or fails.
-- Only a payment dated before today can touch a kept day.
create function private.portfolio_on_payment() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform private.forget_portfolio_closes(new.user_id, new.created_at);
  return null;
end $$;
create trigger wallet_transactions_portfolio after insert or update of status, amount
  on public.wallet_transactions for each row
  when (new.created_at < date_trunc('day', now() at time zone 'UTC') at time zone 'UTC')
  execute function private.portfolio_on_payment();

-- Keeps the closed days of up to p_people people whose kept days lag, from the day after each
-- one's last kept day, at first from the day before their first movement (period_start's 'all'):
-- every day before a person's first kept day is empty. Whether it kept any: the scheduler drains
-- it, so each batch commits on its own; a batch passes once over the people already kept.
create function private.keep_next_portfolio(p_people integer default 50) returns boolean
language plpgsql security definer set search_path = '' as $$
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
end $$;
revoke execute on function private.keep_next_portfolio(integer) from public;

-- portfolio_days, reading the days kept: the days before the person's first kept day are empty,
-- then the kept days, then the rest built. The same rows as portfolio_days.
create function private.portfolio_days_kept(p_user uuid, p_from date, p_to date)
returns table (day date, cash numeric, positions numeric, flow numeric)
language plpgsql stable security definer set search_path = '' as $$
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
end $$;
revoke execute on function private.portfolio_days_kept(uuid, date, date) from public;

-- The first day of a period (the day before its first, whose close is its opening value), or
-- refuses a period it does not know. 'all' opens the day before the account's first movement.
create function private.period_start(p_user uuid, p_period text) returns date
language plpgsql stable security definer set search_path = '' as $$
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
end $$;
revoke execute on function private.period_start(uuid, text) from public;

-- A period's opening (the close before its first day) and its last day: a named period ends today;
-- 'custom' runs over the UTC days p_from to p_to, refused in words where they do not make one. A
-- custom period opens no earlier than the account's first movement (all time's opening): the days
-- before are empty, and asking for a century must not build one.
create function private.period_days(p_user uuid, p_period text, p_from date, p_to date,
                                    out opening date, out closing date)
language plpgsql stable security definer set search_path = '' as $$
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
  if p_from is null or p_to is null then perform private.refuse('A custom period needs a first and a last day.'); end if;
  if p_from > p_to then perform private.refuse('The first day must be on or before the last day.'); end if;
  if p_to > today then perform private.refuse('The last day cannot be after today (UTC).'); end if;
  closing := p_to;
  opening := greatest(p_from - 1, least(private.period_start(p_user, 'all'), p_to - 1));
end $$;
revoke execute on function private.period_days(uuid, text, date, date) from public;

-- The caller's portfolio over a period ('7d', '30d', '90d', '1y', 'all', or 'custom' from p_from to
-- p_to), one row per day from the period's opening (the close before its first day) to its end:
-- cash, positions and their value at the close, the day's flows, and, since the opening, the gain
-- (the change in value less the flows), the time-weighted return, the money-weighted return and
-- the RepX index's return, in percent (the index's null before it started).
--
-- The time-weighted return chains each day's return, a day's flow counted at its start, so money
-- moved in or out does not weigh on it: it compares with the index. The money-weighted return is
-- the Modified Dietz return: the gain over the capital at work, each flow weighted by the share of
-- the period it was in, V0 + sum(F_j * (k - j + 1) / t) on day k, t days after the opening. A
-- period that opens before the account had anything opens instead on its last empty day, so an
-- account a month old is not measured against a year it did not exist in. Null where that capital
-- is not positive (more taken out than was at work).
create function public.my_portfolio_history(p_period text default '30d', p_from date default null,
                                             p_to date default null)
returns table (day date, value numeric, cash numeric, positions numeric, flow numeric, gain numeric, twr numeric,
               mwr numeric, index_return numeric)
language plpgsql stable security definer set search_path = '' as $$
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
end $$;
revoke execute on function public.my_portfolio_history(text, date, date) from public, anon;

-- Each token the caller held over a period (as my_portfolio_history takes it): its value at the
-- opening and at the end (now, for a period that ends today), what was put in (buys with their
-- fees, less sales net of theirs) within it, and the gain: end - opening - put in. The best and
-- worst positions are its top and bottom.
create function public.my_position_returns(p_period text default '30d', p_from date default null,
                                           p_to date default null)
returns table (token_id uuid, name text, value_start numeric, value_end numeric, net_bought numeric, gain numeric)
language plpgsql stable security definer set search_path = '' as $$
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
end $$;
revoke execute on function public.my_position_returns(text, date, date) from public, anon;
