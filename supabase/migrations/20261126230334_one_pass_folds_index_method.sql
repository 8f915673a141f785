-- one_pass_folds_index_method: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

alter table public.index_members drop constraint if exists "index_members_weight_check";

CREATE OR REPLACE FUNCTION private.account_trades(p_user uuid, p_at timestamp with time zone)
 RETURNS TABLE(id bigint, token_id uuid, created_at timestamp with time zone, bought boolean, amount bigint, value numeric, fee numeric)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select tr.id, tr.token_id, tr.created_at, tr.buyer_id = p_user, tr.amount, tr.value,
         case when tr.buyer_id = p_user then tr.buyer_fee else tr.seller_fee end
  from public.trades tr
  where (tr.buyer_id = p_user or tr.seller_id = p_user) and tr.created_at <= p_at
    and tr.token_id is distinct from (select k.id from public.tokens k where k.owner_id = p_user)
$function$;

CREATE OR REPLACE FUNCTION private.cost_basis(p_user uuid, p_at timestamp with time zone)
 RETURNS TABLE(token_id uuid, tokens bigint, cost numeric, realized numeric)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  t record;
  current_token uuid;
  held bigint;
  c numeric;
  r numeric;
  sold bigint;
  released numeric;
begin
  for t in select a.* from private.account_trades(p_user, p_at) a order by a.token_id, a.created_at, a.id loop
    if current_token is distinct from t.token_id then
      if current_token is not null then
        token_id := current_token; tokens := held; cost := c; realized := r;
        return next;
      end if;
      current_token := t.token_id; held := 0; c := 0; r := 0;
    end if;
    if t.bought then
      held := held + t.amount;
      c := c + t.value + t.fee;
    elsif held > 0 then
      sold := least(t.amount, held);
      released := c / held * sold;
      r := r + (t.value - t.fee) * sold / t.amount - released;
      c := c - released;
      held := held - sold;
    end if;
  end loop;
  if current_token is not null then
    token_id := current_token; tokens := held; cost := c; realized := r;
    return next;
  end if;
end $function$;

CREATE OR REPLACE FUNCTION private.fifo_lots(p_user uuid, p_at timestamp with time zone)
 RETURNS TABLE(token_id uuid, bought_at timestamp with time zone, sold_at timestamp with time zone, tokens bigint, cost numeric, proceeds numeric, fees numeric, gain numeric)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  t record;
  current_token uuid;
  lot_at timestamptz[];
  lot_left bigint[];
  lot_unit numeric[];
  head integer;
  lots integer;
  left_in_sale bigint;
  piece bigint;
begin
  for t in select a.* from private.account_trades(p_user, p_at) a order by a.token_id, a.created_at, a.id loop
    if current_token is distinct from t.token_id then
      current_token := t.token_id; lot_at := '{}'; lot_left := '{}'; lot_unit := '{}'; head := 1; lots := 0;
    end if;
    if t.bought then
      lots := lots + 1;
      lot_at[lots] := t.created_at;
      lot_left[lots] := t.amount;
      lot_unit[lots] := (t.value + t.fee) / t.amount;
    else
      left_in_sale := t.amount;
      while left_in_sale > 0 and head <= lots loop
        piece := least(left_in_sale, lot_left[head]);
        token_id := t.token_id;
        bought_at := lot_at[head];
        sold_at := t.created_at;
        tokens := piece;
        cost := lot_unit[head] * piece;
        proceeds := t.value * piece / t.amount;
        fees := t.fee * piece / t.amount;
        gain := proceeds - fees - cost;
        return next;
        left_in_sale := left_in_sale - piece;
        lot_left[head] := lot_left[head] - piece;
        if lot_left[head] = 0 then head := head + 1; end if;
      end loop;
    end if;
  end loop;
end $function$;

CREATE OR REPLACE FUNCTION private.portfolio_days(p_user uuid, p_from date, p_to date)
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
  ),
  cash_days as (
    select d.day,
           (select coalesce(sum(m.amount), 0) from moves m where m.day < p_from)
             + sum(coalesce(c.amount, 0)) over (order by d.day) as cash,
           coalesce(c.flow, 0) as flow
    from days d
    left join (select m.day, sum(m.amount) as amount, sum(m.amount) filter (where m.flow) as flow
               from moves m group by m.day) c on c.day = d.day
  ),
  -- Tokens bought and sold, by token and day (the own token left out).
  deltas as (
    select t.token_id, (t.created_at at time zone 'UTC')::date as day,
           sum(case when t.buyer_id = p_user then t.amount else -t.amount end) as delta
    from public.trades t
    where (t.buyer_id = p_user or t.seller_id = p_user) and t.token_id not in (select id from own)
      and t.created_at < (p_to + 1)::timestamp at time zone 'UTC'
    group by 1, 2
  ),
  held_tokens as (
    select x.token_id, coalesce(sum(x.delta) filter (where x.day < p_from), 0) as before
    from deltas x group by x.token_id
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

CREATE OR REPLACE FUNCTION private.rebalance_index(p_day date)
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  method record := public.index_method();
  cap numeric := method.weight_cap;
  at timestamptz := p_day::timestamp at time zone 'UTC';
  previous date := (select max(m.day) from public.index_members m where m.day < p_day);
  ids uuid[];
  prices numeric[];
  caps numeric[];
  weights numeric[];
  capped boolean[];
  level numeric;
  free numeric;
  free_caps numeric;
  again boolean := true;
begin
  if exists (select 1 from public.index_members m where m.day = p_day) then return true; end if;
  select array_agg(e.id order by e.id), array_agg(e.price order by e.id), array_agg(e.price * e.total_supply order by e.id)
    into ids, prices, caps
  from (select t.id, t.total_supply, private.price_at(t.id, at) as price from public.tokens t
        where t.created_at <= at - make_interval(days => method.listed_days) and t.halt_reason is null
          and exists (select 1 from public.trades tr where tr.token_id = t.id
                        and tr.created_at > at - make_interval(days => method.traded_days) and tr.created_at <= at)) e;

  if coalesce(cardinality(ids), 0) < method.min_members then
    if previous is null then return false; end if;
    insert into public.index_members (day, token_id, weight, units)
    select p_day, m.token_id, m.weight, m.units from public.index_members m where m.day = previous;
    return true;
  end if;

  -- Capping: a weight above the cap is set to it and the rest shared again by cap, until none is above.
  capped := array_fill(false, array[cardinality(ids)]);
  weights := array_fill(0::numeric, array[cardinality(ids)]);
  while again loop
    again := false;
    free := 1 - cap * (select count(*) from unnest(capped) c where c);
    free_caps := (select sum(x.c) from unnest(caps, capped) x (c, fixed) where not x.fixed);
    for i in 1 .. cardinality(ids) loop
      if capped[i] then continue; end if;
      weights[i] := free * caps[i] / free_caps;
      if weights[i] > cap then capped[i] := true; weights[i] := cap; again := true; end if;
    end loop;
  end loop;

  level := case when previous is null then method.base_level else private.index_value(previous, at) end;
  insert into public.index_members (day, token_id, weight, units)
  select p_day, ids[i], weights[i], level * weights[i] / prices[i] from generate_subscripts(ids, 1) i;
  return true;
end $function$;

CREATE OR REPLACE FUNCTION public.index_method(OUT listed_days integer, OUT traded_days integer, OUT weight_cap numeric, OUT base_level numeric, OUT min_members integer)
 RETURNS record
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  -- The fewest members a cap allows: four at 25%.
  select 7, 30, c, 1000::numeric, ceil(1 / c)::integer from (select 0.25::numeric as c) x
$function$;

CREATE OR REPLACE FUNCTION public.my_statement(p_from date, p_to date)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
 SET jit TO 'off'
AS $function$
declare
  me uuid := private.active_caller();
  opens timestamptz := p_from::timestamp at time zone 'UTC';
  closes timestamptz := (p_to + 1)::timestamp at time zone 'UTC';
  summary jsonb;
  lots jsonb;
begin
  perform private.require_second_step();
  if p_from is null or p_to is null then perform private.refuse('A statement needs a first and a last day.'); end if;
  if p_from > p_to then perform private.refuse('The statement starts after it ends.'); end if;
  if p_to > (now() at time zone 'UTC')::date then perform private.refuse('A statement cannot end after today.'); end if;
  if p_to - p_from > 366 * 5 then perform private.refuse('A statement covers at most five years.'); end if;

  with moves as (
    select w.* from public.wallet_history w
  ),
  within as (
    select m.* from moves m where m.created_at >= opens and m.created_at < closes
  )
  select jsonb_build_object(
    'opening_cash', (select coalesce(sum(m.effect), 0) from moves m where m.created_at < opens),
    'closing_cash', (select coalesce(sum(m.effect), 0) from moves m where m.created_at < closes),
    'deposits', (select coalesce(sum(m.effect), 0) from within m where m.type = 'Deposit'),
    'withdrawals', (select coalesce(-sum(m.effect), 0) from within m where m.type = 'Withdrawal'),
    'bought', (select coalesce(-sum(m.effect), 0) from within m where m.type = 'Buy'),
    'sold', (select coalesce(sum(m.effect), 0) from within m where m.type = 'Sell'),
    'fees', (select coalesce(-sum(m.effect), 0) from within m where m.type = 'Trade Fee'),
    'movements', coalesce((select jsonb_agg(jsonb_build_object(
        'at', m.created_at, 'type', m.type, 'description', m.description, 'status', m.status,
        'amount', m.amount, 'effect', m.effect) order by m.position) from within m), '[]')
  ) into summary;

  select coalesce(jsonb_agg(jsonb_build_object(
           'token', l.name, 'bought_at', l.bought_at, 'sold_at', l.sold_at, 'tokens', l.tokens, 'cost', l.cost,
           'proceeds', l.proceeds, 'fees', l.fees, 'gain', l.gain) order by l.sold_at, l.bought_at), '[]')
    into lots
    from public.my_realized_lots(opens, closes - interval '1 microsecond') l;

  return summary || jsonb_build_object(
    'from', p_from,
    'to', p_to,
    'holder', (select jsonb_build_object('name', p.full_name, 'username', p.username) from public.profiles p where p.id = me),
    -- The account's trades, and the sales of its person's offering whose proceeds it received.
    'trades', coalesce((select jsonb_agg(jsonb_build_object(
        'at', t.created_at, 'side', t.side, 'token', t.name, 'tokens', t.amount, 'price', t.price,
        'value', t.value, 'fee', t.fee, 'total', case t.side when 'buy' then t.value + t.fee else t.value - t.fee end)
        order by t.created_at, t.id)
      from (select m.id, m.created_at, m.type as side, m.name, m.amount, m.price, m.value, m.fee
              from public.my_trades m
            union all
            select tr.id, tr.created_at, 'offering sale', k.name, tr.amount, tr.price, tr.value, tr.seller_fee
              from public.trades tr join public.tokens k on k.id = tr.token_id
             where tr.proceeds_to = me) t
      where t.created_at >= opens and t.created_at < closes), '[]'),
    'positions', coalesce((select jsonb_agg(p order by p.value desc, p.token) from (
        select k.name as token, h.tokens, private.price_at(h.token_id, closes) as price,
               round(h.tokens * private.price_at(h.token_id, closes), 2) as value
        from (select x.token_id, x.amount - coalesce((
                      select sum(case when tr.buyer_id = me then tr.amount else -tr.amount end) from public.trades tr
                       where tr.token_id = x.token_id and (tr.buyer_id = me or tr.seller_id = me) and tr.created_at >= closes), 0) as tokens
                from public.holdings x where x.user_id = me) h
        join public.tokens k on k.id = h.token_id
        where h.tokens > 0 and k.created_at < closes) p), '[]'),
    'lots', lots,
    'realized', (select coalesce(sum((l ->> 'gain')::numeric), 0) from jsonb_array_elements(lots) l)
  );
end $function$;

alter table public.index_members add constraint "index_members_weight_check" CHECK (((weight > (0)::numeric) AND (weight <= (index_method()).weight_cap)));

revoke all on routine private.account_trades(uuid,timestamp with time zone) from public;

revoke all on routine public.index_method() from anon;
revoke all on routine public.index_method() from public;
