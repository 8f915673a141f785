-- order_types_candles_and_price_alerts: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

drop function if exists private.check_order_request(uuid,text,text,numeric,numeric);

drop function if exists private.release_order(bigint);

drop function if exists public.place_order(uuid,text,text,numeric,numeric);

drop function if exists public.replace_order(bigint,numeric,numeric,bigint);

alter table public.orders drop constraint if exists "orders_status_check";

drop index if exists public.orders_open_user_rank_idx;

drop index if exists public.orders_open_user_token_idx;

create table public.candles ();

create table public.price_alerts ();

alter table public.orders add column "time_in_force" text default 'gtc'::text not null;

alter table public.orders add column "expires_at" timestamp with time zone;

alter table public.orders add column "post_only" boolean default false not null;

alter table public.orders add column "stop_price" numeric(12,2);

alter table public.orders add column "triggered_at" timestamp with time zone;

alter table public.orders add column "oco_with" bigint;

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
  -- Most settlements meet no armed alert: one probe of their index each.
  if not exists (select 1 from public.price_alerts a where a.fired_at is null
                   and a.token_id in (select n.token_id from new_trades n)) then
    return null;
  end if;
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

CREATE OR REPLACE FUNCTION private.band_edge(ref numeric, p_side text)
 RETURNS numeric
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select case when p_side = 'buy' then floor(ref * (1 + e.market_band_bps / 10000.0) * 100) / 100
              else ceil(ref * (1 - e.market_band_bps / 10000.0) * 100) / 100 end
  from public.exchange_settings e
$function$;

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
declare
  several boolean := exists (select 1 from new_trades n group by n.token_id having count(distinct n.created_at) > 1);
begin
  insert into public.candles as c
  select * from private.candle_rows(array(select n::public.trades from new_trades n)) where several
  union all
  select t.token_id, i.seconds, to_timestamp(floor(t.epoch / i.seconds) * i.seconds),
         t.open, t.high, t.low, t.close, t.volume, t.trades, t.at, t.first_id, t.at, t.last_id
  from (select n.token_id, extract(epoch from min(n.created_at)) as epoch, min(n.created_at) as at,
               (array_agg(n.price order by n.id))[1] as open, max(n.price) as high, min(n.price) as low,
               (array_agg(n.price order by n.id desc))[1] as close, sum(n.amount)::bigint as volume,
               count(*)::integer as trades, min(n.id) as first_id, max(n.id) as last_id
        from new_trades n where not several group by n.token_id) t
  cross join (values (60), (300), (900), (3600), (14400), (86400)) i (seconds)
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

CREATE OR REPLACE FUNCTION private.check_maker_terms(p_user uuid, tok public.tokens, p_side text, p_amount bigint, p_price numeric, p_post_only boolean)
 RETURNS void
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  other text := case when p_side = 'buy' then 'sell' else 'buy' end;
  best numeric;
  offered bigint;
begin
  if p_post_only then
    select case when p_side = 'buy' then min(price) else max(price) end into best
      from public.orders where token_id = tok.id and side = other and status = 'open'
       and (case when p_side = 'buy' then price <= p_price else price >= p_price end);
    if best is not null then
      perform private.refuse(format('Post-only: at %s this order would trade at once with the best %s at %s, so it was not placed. Choose a price %s %s, or turn post-only off.',
        private.money(p_price), case when p_side = 'buy' then 'ask' else 'bid' end, private.money(best),
        case when p_side = 'buy' then 'below' else 'above' end, private.money(best)));
    end if;
  else
    select coalesce(sum(amount - filled), 0) into offered
      from public.orders where token_id = tok.id and side = other and status = 'open' and user_id <> p_user
       and (case when p_side = 'buy' then price <= p_price else price >= p_price end);
    if offered < p_amount then
      perform private.refuse(format('Fill or kill: %s %s tokens are %s at %s or better right now, fewer than the %s asked, so nothing was placed.',
        offered, tok.name, case when p_side = 'buy' then 'offered' else 'bid for' end, private.money(p_price), p_amount));
    end if;
  end if;
end $function$;

CREATE OR REPLACE FUNCTION private.check_order_request(p_user uuid, p_side text, p_type text, p_amount numeric, p_price numeric, p_tif text DEFAULT 'gtc'::text, p_expires_at timestamp with time zone DEFAULT NULL::timestamp with time zone, p_post_only boolean DEFAULT false, p_stop_price numeric DEFAULT NULL::numeric)
 RETURNS public.exchange_settings
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  settings public.exchange_settings;
  read record;
  tif text := coalesce(p_tif, 'gtc');
begin
  if p_user is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_second_step();
  select s as settings, coalesce(p.status <> 'active', false) as suspended into read
    from public.exchange_settings s left join public.profiles p on p.id = p_user;
  settings := read.settings;
  if p_side is null or p_side not in ('buy', 'sell') then
    raise exception 'The side must be buy or sell.' using errcode = '22023';
  end if;
  if p_type is null or p_type not in ('market', 'limit') then
    raise exception 'The order type must be market or limit.' using errcode = '22023';
  end if;
  if p_amount is null or p_amount = 'NaN' or p_amount < 1 or p_amount <> trunc(p_amount) then
    raise exception 'The amount must be a whole number of tokens, at least 1.' using errcode = '22023';
  end if;
  if p_type = 'limit' then
    if p_price is null or p_price = 'NaN' or p_price <= 0 then raise exception 'A limit order needs a price above $0.00.' using errcode = '22023'; end if;
    if p_price <> round(p_price, 2) then raise exception 'The limit price has at most two decimals.' using errcode = '22023'; end if;
    if p_price > settings.max_price then
      raise exception 'The limit price cannot exceed %.', private.money(settings.max_price) using errcode = '22023';
    end if;
  elsif p_price is not null then
    raise exception 'A market order takes no price: it trades at the best prices in the book.' using errcode = '22023';
  end if;
  if tif <> 'gtc' or p_expires_at is not null or p_post_only or p_stop_price is not null then -- a plain order skips the call
    perform private.check_order_terms(settings, p_type, tif, p_expires_at, p_post_only, p_stop_price);
  end if;
  if read.suspended then
    raise exception 'Your account is suspended: trading is disabled.' using errcode = '42501';
  end if;
  if settings.trading_halted then
    raise exception 'Trading is halted%. Cancelling open orders still works.',
      coalesce(': ' || nullif(settings.halt_reason, ''), '') using errcode = 'P0001';
  end if;
  if p_amount < settings.min_order_amount then
    raise exception 'The minimum order is % tokens.', settings.min_order_amount using errcode = '22023';
  end if;
  if (p_type = 'limit' or p_stop_price is not null)
     and (select count(*) from public.orders where user_id = p_user and status in ('open', 'pending')) >= settings.max_open_orders then
    raise exception 'You have % open orders, the most allowed. Cancel one before placing another limit or stop order.',
      settings.max_open_orders using errcode = 'P0001';
  end if;
  return settings;
end $function$;

CREATE OR REPLACE FUNCTION private.check_order_terms(settings public.exchange_settings, p_type text, tif text, p_expires_at timestamp with time zone, p_post_only boolean, p_stop_price numeric)
 RETURNS void
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if tif not in ('gtc', 'ioc', 'fok', 'gtd') then
    perform private.refuse('The time in force must be gtc (good til cancelled), ioc (immediate or cancel), fok (fill or kill) or gtd (good til date).');
  end if;
  if tif = 'gtd' and p_expires_at is null then
    perform private.refuse('A good-til-date order needs the date and time it expires.');
  elsif tif <> 'gtd' and p_expires_at is not null then
    perform private.refuse('Only a good-til-date (gtd) order takes an expiry.');
  elsif tif = 'gtd' and p_expires_at < now() + interval '1 minute' then
    perform private.refuse('A good-til-date order must expire at least one minute from now.');
  elsif tif = 'gtd' and p_expires_at > now() + interval '90 days' then
    perform private.refuse('A good-til-date order expires within 90 days; for longer, use good til cancelled.');
  end if;
  if p_type = 'market' and tif = 'fok' then
    perform private.refuse('Fill or kill is for limit orders: a market order already fills what it can at once and cancels the rest.');
  elsif p_type = 'market' and tif = 'gtd' and p_stop_price is null then
    perform private.refuse('A market order never waits, so it cannot be good til a date: use a limit order, or a stop.');
  end if;
  if coalesce(p_post_only, false) then
    if p_type <> 'limit' or p_stop_price is not null then
      perform private.refuse('Post-only is for limit orders placed on the book now.');
    elsif tif in ('ioc', 'fok') then
      perform private.refuse('A post-only order waits on the book, so it cannot be immediate or cancel, nor fill or kill.');
    end if;
  end if;
  if p_stop_price is not null then
    if p_stop_price = 'NaN' or p_stop_price <= 0 then
      perform private.refuse('A stop needs a trigger price above $0.00.');
    elsif p_stop_price <> round(p_stop_price, 2) then
      perform private.refuse('The trigger price has at most two decimals.');
    elsif p_stop_price > settings.max_price then
      perform private.refuse(format('The trigger price cannot exceed %s.', private.money(settings.max_price)));
    elsif p_type = 'market' and tif = 'ioc' then
      perform private.refuse('A stop-market order becomes a market order, which is immediate or cancel already: use gtc or gtd for how long it waits.');
    end if;
  end if;
end $function$;

CREATE OR REPLACE FUNCTION private.check_stop_terms(p_side text, p_type text, p_price numeric, p_stop numeric, last numeric)
 RETURNS void
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if p_side = 'buy' and p_stop <= last then
    perform private.refuse(format('A buy stop triggers when the price rises to it, so its trigger must be above the last price of %s. To buy now, place a market or limit order.', private.money(last)));
  elsif p_side = 'sell' and p_stop >= last then
    perform private.refuse(format('A sell stop triggers when the price falls to it, so its trigger must be below the last price of %s. To sell now, place a market or limit order.', private.money(last)));
  end if;
  if p_type = 'limit' and p_side = 'buy' and p_price < p_stop then
    perform private.refuse(format('A buy stop-limit''s limit price must be at or above its trigger of %s: it buys once the price has risen there.', private.money(p_stop)));
  elsif p_type = 'limit' and p_side = 'sell' and p_price > p_stop then
    perform private.refuse(format('A sell stop-limit''s limit price must be at or below its trigger of %s: it sells once the price has fallen there.', private.money(p_stop)));
  end if;
end $function$;

CREATE OR REPLACE FUNCTION private.execute_order(p_user uuid, tok public.tokens, p_order bigint, p_side text, p_type text, p_amount bigint, p_price numeric, p_tif text, p_expires_at timestamp with time zone, p_post_only boolean, p_bps integer, p_budget numeric)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  v_order bigint := p_order;
  budget numeric;
  matched record;
  spent numeric;
  rest_cost numeric := 0;
  final_status text;
  fee_sum numeric := 0;
  -- The order's time in the book: after the book's lock, so it follows every order before it.
  book_time timestamptz := clock_timestamp();
  -- What is left of a limit order rests, unless its time in force says it may not.
  rests boolean;
begin
  budget := private.check_order_funds(p_user, tok.id, tok.name, p_side, p_type, p_amount, p_price, p_bps);
  if p_budget is not null then budget := least(budget, p_budget); end if;
  if p_post_only or p_tif = 'fok' then
    perform private.check_maker_terms(p_user, tok, p_side, p_amount, p_price, p_post_only);
  end if;

  -- The order's id, drawn now: its trades name it, and its row is written once it is settled.
  if v_order is null then v_order := nextval(pg_get_serial_sequence('public.orders', 'id')); end if;

  matched := private.match_order(p_user, tok.id, v_order, p_side, p_type, p_amount, p_price, budget, p_bps);
  if p_type = 'market' and jsonb_array_length(matched.fills) = 0 then
    if exists (select 1 from public.orders where token_id = tok.id and status = 'open' and user_id <> p_user
                 and side = case when p_side = 'buy' then 'sell' else 'buy' end) then
      raise exception 'Insufficient funds: you cannot afford one % token at the best price.', tok.name using errcode = 'P0001';
    end if;
    raise exception 'There are no % orders for % right now. Place a limit order to wait for a %.',
      case when p_side = 'buy' then 'sell' else 'buy' end, tok.name,
      case when p_side = 'buy' then 'seller' else 'buyer' end using errcode = 'P0001';
  end if;
  rests := p_type = 'limit' and matched.remaining > 0 and p_tif in ('gtc', 'gtd');

  -- Every account involved, cash then holdings, in ascending user id (no deadlocks): the caller and
  -- the makers it met; the person behind an offering receives its proceeds, so their cash is locked too.
  perform 1 from public.cash_accounts
   where user_id = any(p_user || matched.makers || case when tok.owner_id is not null
                                                      and private.issuance_account() = any(matched.makers)
                                                    then array[tok.owner_id] else '{}' end)
   order by user_id for update;
  perform 1 from public.holdings where token_id = tok.id and user_id = any(p_user || matched.makers)
   order by user_id for update;

  -- Own resting orders met while matching are expired (self-trade prevention).
  if cardinality(matched.expire) > 0 then
    perform private.release_order(x) from unnest(matched.expire) x;
  end if;

  -- What was read before the locks still holds.
  spent := matched.spent_value + private.fee(matched.spent_value, p_bps);
  if p_side = 'buy' then
    rest_cost := case when rests
      then private.trade_value(p_price, matched.remaining) + private.fee(matched.spent_value + private.trade_value(p_price, matched.remaining), p_bps)
           - private.fee(matched.spent_value, p_bps) else 0 end;
    if (select available from public.cash_accounts where user_id = p_user) < spent + rest_cost then
      raise exception 'Insufficient funds: your available cash changed while the order was placed. Please try again.' using errcode = 'P0001';
    end if;
  else
    -- An assignment rather than `perform`: no executor of its own. A sell's budget is 0, and unused.
    budget := private.check_order_funds(p_user, tok.id, tok.name, p_side, p_type, p_amount, p_price, p_bps);
  end if;

  if jsonb_array_length(matched.fills) > 0 then
    fee_sum := private.settle_fills(tok.id, p_side, matched.fills, book_time, p_bps);
  end if;

  -- What is left of a limit order rests on the book, its cost or tokens held back.
  if rests then
    if p_side = 'buy' then
      update public.cash_accounts set available = available - rest_cost, reserved = reserved + rest_cost where user_id = p_user;
    else
      update public.holdings set reserved = reserved + matched.remaining where user_id = p_user and token_id = tok.id;
    end if;
    final_status := 'open';
  else
    final_status := case when matched.remaining = 0 then 'filled' else 'cancelled' end;
  end if;
  if p_order is null then
    insert into public.orders (id, user_id, token_id, side, type, price, amount, filled, filled_value, fees_paid,
                               reserved, status, created_at, closed_at, time_in_force, expires_at, post_only)
    overriding system value
    values (v_order, p_user, tok.id, p_side, p_type, p_price, p_amount, p_amount - matched.remaining, matched.spent_value,
            fee_sum, rest_cost, final_status, book_time, case when final_status <> 'open' then clock_timestamp() end,
            p_tif, p_expires_at, p_post_only);
  else
    -- A triggered stop's row is there already: it enters the book now, at its trigger's time.
    update public.orders
       set filled = p_amount - matched.remaining, filled_value = matched.spent_value, fees_paid = fee_sum,
           reserved = rest_cost, status = final_status, created_at = book_time,
           closed_at = case when final_status <> 'open' then clock_timestamp() end
     where id = v_order;
  end if;

  insert into public.market_events (token_id, kind)
  values (tok.id, case when matched.spent_value > 0 then 'trade' else 'book' end);

  return jsonb_build_object(
    'order_id', v_order,
    'status', final_status,
    'side', p_side,
    'type', p_type,
    'time_in_force', p_tif,
    'amount', p_amount,
    'filled', p_amount - matched.remaining,
    'resting', case when final_status = 'open' then matched.remaining else 0 end,
    'average_price', case when p_amount > matched.remaining then round(matched.spent_value / (p_amount - matched.remaining), 2) end,
    'value', matched.spent_value,
    'fee', fee_sum,
    'total', case when p_side = 'buy' then matched.spent_value + fee_sum else matched.spent_value - fee_sum end
  );
end $function$;

CREATE OR REPLACE FUNCTION private.expire_orders()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  o record;
  n integer := 0;
begin
  for o in
    select id, token_id from public.orders
    where status in ('open', 'pending') and expires_at is not null and expires_at <= now()
    order by expires_at limit 500
  loop
    perform 1 from public.tokens where id = o.token_id for update;
    perform private.release_order(o.id, 'expired');
    insert into public.market_events (token_id, kind) values (o.token_id, 'book');
    n := n + 1;
  end loop;
  return n;
end $function$;

CREATE OR REPLACE FUNCTION private.hold_stop(p_user uuid, tok public.tokens, p_side text, p_type text, p_amount bigint, p_price numeric, p_stop numeric, p_tif text, p_expires_at timestamp with time zone, p_bps integer, p_oco_with bigint DEFAULT NULL::bigint)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  last numeric := private.last_price(tok.id);
  cost numeric := 0;
  v_order bigint;
begin
  perform private.check_stop_terms(p_side, p_type, p_price, p_stop, last);
  if p_side = 'buy' then
    cost := private.buy_cost(coalesce(p_price, private.band_edge(p_stop, 'buy')), p_amount, p_bps);
    perform private.check_order_funds(p_user, tok.id, tok.name, 'buy', 'limit', p_amount,
      coalesce(p_price, private.band_edge(p_stop, 'buy')), p_bps);
    update public.cash_accounts set available = available - cost, reserved = reserved + cost where user_id = p_user;
  elsif p_oco_with is null then
    perform private.check_order_funds(p_user, tok.id, tok.name, 'sell', p_type, p_amount, p_price, p_bps);
    update public.holdings set reserved = reserved + p_amount where user_id = p_user and token_id = tok.id;
  end if;
  insert into public.orders (user_id, token_id, side, type, price, amount, reserved, status, created_at,
                             time_in_force, expires_at, stop_price, oco_with)
  values (p_user, tok.id, p_side, p_type, p_price, p_amount, cost, 'pending', clock_timestamp(),
          p_tif, p_expires_at, p_stop, p_oco_with)
  returning id into v_order;
  insert into public.market_events (token_id, kind) values (tok.id, 'book');
  return jsonb_build_object('order_id', v_order, 'status', 'pending', 'side', p_side, 'type', p_type,
    'time_in_force', p_tif, 'amount', p_amount, 'filled', 0, 'resting', 0, 'stop_price', p_stop,
    'average_price', null, 'value', 0, 'fee', 0, 'total', 0, 'reserved', cost);
end $function$;

CREATE OR REPLACE FUNCTION private.last_price(p_token uuid)
 RETURNS numeric
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
begin
  return coalesce((select s.price from private.token_stats s where s.token_id = p_token),
                  (select t.issue_price from public.tokens t where t.id = p_token));
end $function$;

CREATE OR REPLACE FUNCTION private.lock_book(p_token uuid, p_amount numeric)
 RETURNS public.tokens
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  tok public.tokens;
begin
  select * into tok from public.tokens where id = p_token for update;
  if not found then raise exception 'There is no such token.' using errcode = 'P0001'; end if;
  if tok.halt_reason is not null then
    raise exception 'Trading in % is halted: %. Cancelling open orders still works.', tok.name, rtrim(tok.halt_reason, '.')
      using errcode = 'P0001';
  end if;
  if p_amount > tok.total_supply then
    raise exception 'The amount cannot exceed the total supply of % tokens.', tok.total_supply using errcode = '22023';
  end if;
  return tok;
end $function$;

CREATE OR REPLACE FUNCTION private.match_order(p_user uuid, p_token uuid, p_order bigint, p_side text, p_type text, p_amount bigint, p_price numeric, p_budget numeric, p_bps integer, OUT fills jsonb, OUT expire bigint[], OUT remaining bigint, OUT spent_value numeric, OUT makers uuid[])
 RETURNS record
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  other text := case when p_side = 'buy' then 'sell' else 'buy' end;
  -- A market order's band: the token's last price (its issue price before a trade) and the
  -- exchange's distance from it, the furthest price a market buy pays or a market sell accepts.
  ref numeric := case when p_type = 'market' then private.last_price(p_token) end;
  -- The worst rank the order accepts, as ranked on the other side: its limit price, or the band's edge.
  worst numeric := case when p_type = 'market' and p_side = 'buy' then private.band_edge(ref, 'buy')
                        when p_type = 'market' then -private.band_edge(ref, 'sell')
                        when p_side = 'buy' then p_price else -p_price end;
  book cursor for
    select o.id, o.user_id, o.price, o.amount - o.filled as open_amount, o.reserved
    from public.orders o
    where o.token_id = p_token and o.side = other and o.status = 'open'
      and (case when o.side = 'buy' then -o.price else o.price end) <= worst
    order by o.token_id, o.side, (case when o.side = 'buy' then -o.price else o.price end), o.created_at, o.id
    for update;
  maker record;
  n bigint;
  seq integer := 0;
begin
  fills := '[]';
  expire := '{}';
  makers := '{}';
  remaining := p_amount;
  spent_value := 0;
  for maker in book loop
    if maker.user_id = p_user then
      expire := expire || maker.id; -- met one's own order: expire it, go on
      continue;
    end if;
    n := least(remaining, maker.open_amount);
    if p_side = 'buy' and p_type = 'market' then
      n := least(n, floor((p_budget - spent_value - private.fee(spent_value, p_bps)) / (maker.price * (1 + p_bps / 10000.0)))::bigint);
      while n > 0 and spent_value + private.trade_value(maker.price, n) + private.fee(spent_value + private.trade_value(maker.price, n), p_bps) > p_budget loop
        n := n - 1;
      end loop;
      exit when n <= 0;
    end if;
    seq := seq + 1;
    fills := fills || jsonb_build_object('seq', seq, 'price', maker.price, 'amount', n,
      'buyer', case when p_side = 'buy' then p_user else maker.user_id end,
      'seller', case when p_side = 'buy' then maker.user_id else p_user end,
      'buy_order', case when p_side = 'buy' then p_order else maker.id end,
      'sell_order', case when p_side = 'buy' then maker.id else p_order end,
      'buyer_reserved', case when p_side = 'buy' then 0 else maker.reserved end,
      'buyer_completes', n = maker.open_amount,
      'seller_reserved', p_side = 'buy');
    spent_value := spent_value + private.trade_value(maker.price, n);
    remaining := remaining - n;
    if not maker.user_id = any(makers) then makers := makers || maker.user_id; end if;
    exit when remaining = 0; -- before the next order is read and locked
  end loop;
  -- Nothing met, and the nearest of others' orders lies beyond the band: said as such, not as no orders.
  if p_type = 'market' and seq = 0 and (
    select min(case when o.side = 'buy' then -o.price else o.price end) from public.orders o
    where o.token_id = p_token and o.side = other and o.status = 'open' and o.user_id <> p_user) > worst then
    raise exception 'No % order for % is within % of its last price (%): a market order trades no further from it. Place a limit order at the price you accept.',
      other, (select t.name from public.tokens t where t.id = p_token),
      rtrim(rtrim(to_char((select e.market_band_bps from public.exchange_settings e) / 100.0, 'FM990.99'), '0'), '.') || '%',
      '$' || to_char(ref, 'FM999,999,990.00')
      using errcode = 'P0001';
  end if;
end $function$;

CREATE OR REPLACE FUNCTION private.oco_follow()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if new.filled = new.amount then
    update public.orders set status = 'cancelled' where id = new.oco_with and status = 'pending' and triggered_at is null;
  else
    update public.orders set amount = new.amount - new.filled where id = new.oco_with and status = 'pending' and triggered_at is null;
  end if;
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

CREATE OR REPLACE FUNCTION private.release_order(p_order bigint, p_status text DEFAULT 'cancelled'::text)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  o public.orders;
begin
  select * into o from public.orders where id = p_order for update;
  -- Closed already, or a stop entering the book now (private.trigger_stops).
  if o.status not in ('open', 'pending') or (o.status = 'pending' and o.triggered_at is not null) then return; end if;
  if o.side = 'buy' then
    update public.cash_accounts set reserved = reserved - o.reserved, available = available + o.reserved where user_id = o.user_id;
  elsif not (o.status = 'pending' and o.oco_with is not null) then -- a pair's waiting stop holds no tokens of its own
    update public.holdings set reserved = reserved - (o.amount - o.filled) where user_id = o.user_id and token_id = o.token_id;
  end if;
  update public.orders set status = p_status, reserved = 0 where id = p_order;
  if o.oco_with is not null then perform private.release_order(o.oco_with, p_status); end if;
end $function$;

CREATE OR REPLACE FUNCTION private.run_due_stops()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  due uuid;
  tok public.tokens;
  n integer := 0;
begin
  for due in
    select distinct o.token_id from public.orders o join private.token_stats s on s.token_id = o.token_id
    where o.status = 'pending'
      and ((o.side = 'buy' and o.stop_price <= s.price) or (o.side = 'sell' and o.stop_price >= s.price))
    order by o.token_id
  loop
    select * into tok from public.tokens where id = due for update;
    if tok.halt_reason is null then n := n + private.trigger_stops(tok, private.fee_bps()); end if;
  end loop;
  return n;
end $function$;

CREATE OR REPLACE FUNCTION private.scan_fraud(p_window interval DEFAULT '24:00:00'::interval)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  ring_max_accounts constant int := 8;      -- the longest ring followed
  spoof_min_value constant numeric := 1000; -- a 'large' order, in dollars
  spoof_max_life constant interval := interval '10 seconds';
  spoof_min_count constant int := 3;
  ratio_min_cancels constant int := 20;
  ratio_factor constant int := 10;          -- cancels per fill
  share_min constant numeric := 0.5;        -- of a token's bought volume
  share_min_volume constant numeric := 1000;
  share_min_trades constant int := 5;
  young constant interval := interval '24 hours';
  young_min_value constant numeric := 5000;
  since timestamptz := now() - p_window;
  seen integer := 0;
  r record;
begin
  -- Wash trading: two accounts trading one token back and forth, ending about where they began.
  for r in select * from private.fraud_wash(since) loop
    perform private.raise_alert('wash_trading', case when r.one_way + r.other_way >= 10 then 'high' else 'medium' end, array[r.a, r.b], r.token_id,
      format('Two accounts traded this token back and forth %s times (%s).', r.one_way + r.other_way, private.money(r.volume)),
      jsonb_build_object('trades', to_jsonb(r.trades), 'each_way', jsonb_build_array(r.one_way, r.other_way),
                         'net_tokens', r.net, 'gross_tokens', r.gross));
    seen := seen + 1;
  end loop;

  -- Rings: the same tokens passing around three or more accounts and back; one alert per token and
  -- set of accounts, whichever way and however many times round.
  for r in select * from private.fraud_rings(since, ring_max_accounts) loop
    perform private.raise_alert('ring', 'high', r.accounts, r.token_id,
      format('The same tokens passed around a ring of %s accounts and back (%s trades).', cardinality(r.accounts), cardinality(r.trades)),
      jsonb_build_object('trades', to_jsonb(r.trades)));
    seen := seen + 1;
  end loop;

  -- Spoofing: large orders cancelled within seconds, repeatedly.
  for r in
    select o.user_id, o.token_id, count(*) as n, array_agg(o.id order by o.id) as orders, sum(o.price * o.amount) as value
    from public.orders o
    where o.created_at > since and o.status = 'cancelled' and o.filled = 0 and o.type = 'limit' and o.time_in_force in ('gtc', 'gtd')
      and o.price * o.amount >= spoof_min_value and o.closed_at - o.created_at <= spoof_max_life
    group by o.user_id, o.token_id
    having count(*) >= spoof_min_count
  loop
    perform private.raise_alert('spoofing', case when r.n >= 10 then 'high' else 'medium' end, array[r.user_id], r.token_id,
      format('%s large orders (%s) cancelled within seconds of being placed.', r.n, private.money(r.value)),
      jsonb_build_object('orders', to_jsonb(r.orders)));
    seen := seen + 1;
  end loop;

  -- A high cancel-to-fill ratio.
  for r in
    select o.user_id, count(*) filter (where o.status = 'cancelled' and o.filled = 0) as cancels, count(*) filter (where o.filled > 0) as fills,
           (array_agg(o.id order by o.id desc) filter (where o.status = 'cancelled' and o.filled = 0))[1:50] as orders
    from public.orders o where o.created_at > since and o.time_in_force in ('gtc', 'gtd') -- an ioc or fok order cancels by design
    group by o.user_id
    having count(*) filter (where o.status = 'cancelled' and o.filled = 0) >= ratio_min_cancels
       and count(*) filter (where o.status = 'cancelled' and o.filled = 0) > ratio_factor * count(*) filter (where o.filled > 0)
  loop
    perform private.raise_alert('cancel_ratio', 'low', array[r.user_id], null,
      format('%s orders cancelled for %s filled.', r.cancels, r.fills), jsonb_build_object('orders', to_jsonb(r.orders), 'fills', r.fills));
    seen := seen + 1;
  end loop;

  -- Concentration: one account buying most of a token's volume.
  for r in
    with bought as (
      select t.token_id, t.buyer_id, sum(t.value) as volume, count(*) as n, array_agg(t.id order by t.id) as trades
      from public.trades t where t.created_at > since group by t.token_id, t.buyer_id
    ), total as (select token_id, sum(volume) as volume from bought group by token_id)
    select b.*, b.volume / tt.volume as share from bought b join total tt using (token_id)
    where tt.volume >= share_min_volume and b.n >= share_min_trades and b.volume / tt.volume > share_min
  loop
    perform private.raise_alert('concentration', 'medium', array[r.buyer_id], r.token_id,
      format('One account bought %s%% of this token''s volume (%s).', round(r.share * 100), private.money(r.volume)),
      jsonb_build_object('trades', to_jsonb(r.trades[1:50]), 'share', round(r.share, 4)));
    seen := seen + 1;
  end loop;

  -- A new account trading big.
  for r in
    select p.id, sum(t.value) as value, array_agg(t.id order by t.id) as trades
    from public.profiles p join public.trades t on (t.buyer_id = p.id or t.seller_id = p.id) and t.created_at > since
    where p.created_at > now() - young and p.role = 'user'
      and t.token_id is distinct from (select k.id from public.tokens k where k.owner_id = p.id)
    group by p.id
    having sum(t.value) >= young_min_value
  loop
    perform private.raise_alert('new_account', 'medium', array[r.id], null,
      format('An account under a day old traded %s.', private.money(r.value)), jsonb_build_object('trades', to_jsonb(r.trades[1:50])));
    seen := seen + 1;
  end loop;
  return seen;
end $function$;

CREATE OR REPLACE FUNCTION private.stamp_closed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  if new.status not in ('open', 'pending') and old.status in ('open', 'pending') then new.closed_at := clock_timestamp(); end if;
  return new;
end $function$;

CREATE OR REPLACE FUNCTION private.trigger_stops(tok public.tokens, p_bps integer)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  -- The cascade's bound: enough for any book we have seen, and an order's time stays bounded.
  cap constant integer := 1000;
  last numeric;
  s public.orders;
  n integer := 0;
  lock_wait text := current_setting('lock_timeout');
begin
  perform set_config('lock_timeout', '100ms', true);
  while n < cap loop
    last := private.last_price(tok.id);
    select * into s from public.orders o
     where o.token_id = tok.id and o.side = 'buy' and o.status = 'pending' and o.stop_price <= last
     order by o.token_id, o.side, (case when o.side = 'buy' then o.stop_price else -o.stop_price end), o.id
     limit 1 for update;
    if not found then
      select * into s from public.orders o
       where o.token_id = tok.id and o.side = 'sell' and o.status = 'pending' and -o.stop_price <= -last
       order by o.token_id, o.side, (case when o.side = 'buy' then o.stop_price else -o.stop_price end), o.id
       limit 1 for update;
      exit when not found;
    end if;
    n := n + 1;
    begin
      update public.orders set triggered_at = clock_timestamp() where id = s.id;
      if s.side = 'buy' then
        update public.cash_accounts set available = available + s.reserved, reserved = reserved - s.reserved where user_id = s.user_id;
      elsif s.oco_with is null then
        update public.holdings set reserved = reserved - s.amount where user_id = s.user_id and token_id = tok.id;
      else
        perform private.release_order(s.oco_with); -- the take-profit gives the pair's tokens back
      end if;
      perform private.execute_order(s.user_id, tok, s.id, s.side, s.type, s.amount, s.price, s.time_in_force,
        s.expires_at, false, p_bps, case when s.side = 'buy' then s.reserved end);
    exception
      when sqlstate 'P0001' or sqlstate '22023' then
        begin
          perform private.release_order(s.id);
        exception when lock_not_available then
          exit; -- refused again by the sweep, and released then
        end;
      when lock_not_available then
        exit;
    end;
  end loop;
  perform set_config('lock_timeout', lock_wait, true);
  return n;
end $function$;

CREATE OR REPLACE FUNCTION public.admin_account_details(p_user uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  p public.profiles;
begin
  perform private.require_admin();
  select * into p from public.profiles where id = p_user and role <> 'system';
  if not found then perform private.refuse('There is no such account.'); end if;
  return jsonb_build_object(
    'profile', to_jsonb(p) || jsonb_build_object('email', (select email from auth.users where id = p_user),
      'last_sign_in_at', (select last_sign_in_at from auth.users where id = p_user),
      'two_step', exists (select from auth.mfa_factors f where f.user_id = p_user and f.status = 'verified')),
    'cash', (select to_jsonb(c) - 'user_id' from public.cash_accounts c where c.user_id = p_user),
    'holdings', coalesce((select jsonb_agg(jsonb_build_object('token', k.name, 'token_id', k.id, 'amount', h.amount, 'reserved', h.reserved) order by h.amount desc)
      from public.holdings h join public.tokens k on k.id = h.token_id where h.user_id = p_user and h.amount > 0), '[]'),
    'open_orders', coalesce((select jsonb_agg(jsonb_build_object('id', o.id, 'token', k.name, 'side', o.side, 'price', o.price, 'stop_price', o.stop_price, 'amount', o.amount - o.filled, 'created_at', o.created_at) order by o.created_at desc)
      from public.orders o join public.tokens k on k.id = o.token_id where o.user_id = p_user and o.status in ('open', 'pending')), '[]'),
    'trades', coalesce((select jsonb_agg(x order by x.created_at desc) from (
      select t.id, k.name as token, case when t.buyer_id = p_user then 'buy' else 'sell' end as side, t.price, t.amount, t.created_at
      from public.trades t join public.tokens k on k.id = t.token_id where t.buyer_id = p_user or t.seller_id = p_user
      order by t.created_at desc limit 20) x), '[]'),
    'payments', coalesce((select jsonb_agg(x order by x.created_at desc) from (
      select w.id, w.type, w.amount, w.status, w.method, w.message, w.created_at from public.wallet_transactions w where w.user_id = p_user
      order by w.created_at desc limit 20) x), '[]'),
    'bank_accounts', coalesce((select jsonb_agg(jsonb_build_object('id', d.id, 'label', d.label, 'account_last4', d.account_last4,
        'created_at', d.created_at, 'usable_from', d.usable_from, 'removed_at', d.removed_at) order by d.created_at desc)
      from public.payout_destinations d where d.user_id = p_user), '[]'),
    'sessions', coalesce((select jsonb_agg(jsonb_build_object('id', s.id, 'created_at', s.created_at, 'refreshed_at', s.refreshed_at,
        'user_agent', s.user_agent, 'ip', host(s.ip)) order by s.created_at desc)
      from auth.sessions s where s.user_id = p_user), '[]'),
    'activity', coalesce((select jsonb_agg(x order by x.created_at desc) from (
      select l.created_at, a.username as actor, l.action, l.reason from public.audit_log l left join public.profiles a on a.id = l.actor_id
      where l.target_user = p_user order by l.created_at desc limit 50) x), '[]')
  );
end $function$;

CREATE OR REPLACE FUNCTION public.admin_set_account_status(p_user uuid, p_status text, p_reason text DEFAULT NULL::text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  admin uuid := private.require_admin();
  target public.profiles;
  o record;
  cancelled integer := 0;
  sessions integer;
begin
  if p_status is null or p_status not in ('active', 'suspended') then perform private.refuse('Status must be active or suspended.'); end if;
  if p_status = 'suspended' and char_length(trim(coalesce(p_reason, ''))) not between 3 and 500 then
    perform private.refuse('Give a reason of 3 to 500 characters for the suspension.');
  end if;
  target := private.managed_account(p_user);
  if target.status = p_status then perform private.refuse(format('The account is already %s.', p_status)); end if;
  update public.profiles set status = p_status where id = p_user;
  if p_status = 'suspended' then
    -- Each book's lock first, as the engine takes it, then the order.
    for o in select id, token_id from public.orders where user_id = p_user and status in ('open', 'pending') order by token_id, id loop
      perform 1 from public.tokens where id = o.token_id for update;
      perform private.release_order(o.id);
      insert into public.market_events (token_id, kind) values (o.token_id, 'book');
      cancelled := cancelled + 1;
    end loop;
    delete from auth.sessions where user_id = p_user;
    get diagnostics sessions = row_count;
  end if;
  perform private.audit(case p_status when 'suspended' then 'account.suspend' else 'account.reinstate' end, p_user, target.username,
    jsonb_build_object('status', target.status), jsonb_build_object('status', p_status, 'orders_cancelled', cancelled, 'sessions_ended', coalesce(sessions, 0)),
    nullif(trim(coalesce(p_reason, '')), ''));
  return jsonb_build_object('status', p_status, 'orders_cancelled', cancelled, 'sessions_ended', coalesce(sessions, 0));
end $function$;

CREATE OR REPLACE FUNCTION public.cancel_all_orders(p_token uuid DEFAULT NULL::uuid)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := auth.uid();
  books uuid[];
  o bigint;
  n integer := 0;
begin
  if uid is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_second_step();
  select coalesce(array_agg(distinct token_id order by token_id), '{}') into books
  from public.orders where user_id = uid and status in ('open', 'pending') and (p_token is null or token_id = p_token);
  perform 1 from public.tokens where id = any (books) order by id for update;
  for o in
    select id from public.orders
    where user_id = uid and status in ('open', 'pending') and token_id = any (books)
    order by id for update
  loop
    perform private.release_order(o);
    n := n + 1;
  end loop;
  insert into public.market_events (token_id, kind) select b, 'book' from unnest(books) b;
  return n;
end $function$;

CREATE OR REPLACE FUNCTION public.cancel_order(p_order bigint)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  uid uuid := auth.uid();
  o public.orders;
begin
  if uid is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_second_step();
  select * into o from public.orders where id = p_order and user_id = uid;
  if not found then raise exception 'You have no order #%.', p_order using errcode = 'P0001'; end if;
  perform 1 from public.tokens where id = o.token_id for update; -- the book's lock first
  select * into o from public.orders where id = p_order for update;
  if o.status not in ('open', 'pending') then raise exception 'Order #% is already %.', p_order, o.status using errcode = 'P0001'; end if;
  perform private.release_order(p_order);
  insert into public.market_events (token_id, kind) values (o.token_id, 'book');
  return jsonb_build_object('order_id', p_order, 'status', 'cancelled', 'released_tokens',
    case when o.side = 'sell' then o.amount - o.filled else 0 end, 'released_cash', o.reserved);
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

CREATE OR REPLACE FUNCTION public.list_open_orders(p_token uuid DEFAULT NULL::uuid, p_limit integer DEFAULT 100, p_offset integer DEFAULT 0)
 RETURNS SETOF public.orders
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
begin
  if p_token is null then
    return query
    select * from public.orders
    where user_id = (select auth.uid()) and status in ('open', 'pending')
    order by created_at desc, id desc
    limit least(greatest(coalesce(p_limit, 100), 1), 500) offset greatest(coalesce(p_offset, 0), 0);
  else
    return query
    select * from public.orders
    where user_id = (select auth.uid()) and status in ('open', 'pending') and token_id = p_token
    order by created_at desc, id desc
    limit least(greatest(coalesce(p_limit, 100), 1), 500) offset greatest(coalesce(p_offset, 0), 0);
  end if;
end $function$;

CREATE OR REPLACE FUNCTION public.place_oco(p_token uuid, p_amount numeric, p_take_profit numeric, p_stop_price numeric, p_stop_limit numeric DEFAULT NULL::numeric, p_time_in_force text DEFAULT 'gtc'::text, p_expires_at timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  settings public.exchange_settings := private.check_order_request(auth.uid(), 'sell', 'limit', p_amount, p_take_profit,
    p_time_in_force, p_expires_at, false, null);
  tok public.tokens;
  tif text := coalesce(p_time_in_force, 'gtc');
  take_profit jsonb;
  stop jsonb;
begin
  if tif not in ('gtc', 'gtd') then
    perform private.refuse('A take-profit and stop pair waits for the price: its time in force is gtc or gtd.');
  end if;
  perform private.check_order_request(auth.uid(), 'sell', case when p_stop_limit is null then 'market' else 'limit' end,
    p_amount, p_stop_limit, tif, p_expires_at, false, p_stop_price);
  tok := private.lock_book(p_token, p_amount);
  if p_take_profit <= private.last_price(p_token) then
    perform private.refuse(format('A take-profit sells above the last price of %s: set it higher, or sell now with a market or limit order.',
      private.money(private.last_price(p_token))));
  end if;
  perform private.check_stop_terms('sell', case when p_stop_limit is null then 'market' else 'limit' end,
    p_stop_limit, p_stop_price, private.last_price(p_token));
  take_profit := private.execute_order(auth.uid(), tok, null, 'sell', 'limit', p_amount::bigint, p_take_profit, tif,
    p_expires_at, false, settings.fee_bps, null);
  if take_profit->>'status' = 'open' then
    stop := private.hold_stop(auth.uid(), tok, 'sell', case when p_stop_limit is null then 'market' else 'limit' end,
      (take_profit->>'resting')::bigint, p_stop_limit, p_stop_price, tif, p_expires_at, settings.fee_bps,
      (take_profit->>'order_id')::bigint);
    update public.orders set oco_with = (stop->>'order_id')::bigint where id = (take_profit->>'order_id')::bigint;
  end if;
  if (take_profit->>'value')::numeric > 0 then perform private.trigger_stops(tok, settings.fee_bps); end if;
  return jsonb_build_object('take_profit', take_profit, 'stop', stop);
end $function$;

CREATE OR REPLACE FUNCTION public.place_order(p_token uuid, p_side text, p_type text, p_amount numeric, p_price numeric DEFAULT NULL::numeric, p_time_in_force text DEFAULT 'gtc'::text, p_expires_at timestamp with time zone DEFAULT NULL::timestamp with time zone, p_post_only boolean DEFAULT false, p_stop_price numeric DEFAULT NULL::numeric)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  settings public.exchange_settings := private.check_order_request(auth.uid(), p_side, p_type, p_amount, p_price,
    p_time_in_force, p_expires_at, p_post_only, p_stop_price);
  tok public.tokens := private.lock_book(p_token, p_amount);
  result jsonb;
begin
  if p_stop_price is not null then
    return private.hold_stop(auth.uid(), tok, p_side, p_type, p_amount::bigint, p_price, p_stop_price,
      coalesce(p_time_in_force, 'gtc'), p_expires_at, settings.fee_bps);
  end if;
  result := private.execute_order(auth.uid(), tok, null, p_side, p_type, p_amount::bigint, p_price,
    coalesce(p_time_in_force, 'gtc'), p_expires_at, coalesce(p_post_only, false), settings.fee_bps, null);
  -- Stops run after a trade, where the book has any (one probe of the waiting stops' index).
  if (result->>'value')::numeric > 0 and exists (select 1 from public.orders o where o.token_id = p_token and o.status = 'pending') then
    perform private.trigger_stops(tok, settings.fee_bps);
  end if;
  return result;
end $function$;

CREATE OR REPLACE FUNCTION public.replace_order(p_order bigint, p_amount numeric, p_price numeric, p_filled bigint DEFAULT NULL::bigint, p_stop_price numeric DEFAULT NULL::numeric)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  o public.orders;
  filled_now bigint;
  stop numeric;
begin
  select * into o from public.orders where id = p_order and user_id = auth.uid();
  stop := case when o.status = 'pending' then coalesce(p_stop_price, o.stop_price) end;
  if o.status in ('open', 'pending') and p_amount = o.amount - o.filled and p_price is not distinct from o.price
     and stop is not distinct from o.stop_price then
    raise exception 'Order #% already % at that price and amount.', p_order,
      case when o.status = 'pending' then 'waits' else 'rests' end using errcode = 'P0001';
  end if;
  if o.oco_with is not null and o.status in ('open', 'pending') then
    perform private.refuse(format('Order #%s is one of a take-profit and stop pair: cancel the pair and place it again.', p_order));
  end if;
  -- It refuses a caller signed out, an order not theirs, one no longer open.
  perform public.cancel_order(p_order);
  select filled into filled_now from public.orders where id = p_order;
  if p_filled is not null and filled_now is distinct from p_filled then
    raise exception 'Order #% traded while you were changing it: % of % tokens are filled now, % left. Nothing was changed.',
      p_order, filled_now, o.amount, o.amount - filled_now using errcode = 'PT409';
  end if;
  return public.place_order(o.token_id, o.side, case when stop is null then 'limit' else o.type end, p_amount, p_price,
    o.time_in_force, o.expires_at, o.post_only, stop) || jsonb_build_object('replaced', p_order);
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

alter table public.orders add constraint "orders_check2" CHECK (((time_in_force = 'gtd'::text) = (expires_at IS NOT NULL)));

alter table public.orders add constraint "orders_check3" CHECK (((status <> 'pending'::text) OR (stop_price IS NOT NULL)));

alter table public.orders add constraint "orders_status_check" CHECK ((status = ANY (ARRAY['open'::text, 'pending'::text, 'filled'::text, 'cancelled'::text, 'expired'::text])));

alter table public.orders add constraint "orders_stop_price_check" CHECK ((stop_price > (0)::numeric));

alter table public.orders add constraint "orders_time_in_force_check" CHECK ((time_in_force = ANY (ARRAY['gtc'::text, 'ioc'::text, 'fok'::text, 'gtd'::text])));

alter table public.price_alerts add constraint "price_alerts_check" CHECK (((kind = 'move'::text) = (move_pct IS NOT NULL)));

alter table public.price_alerts add constraint "price_alerts_check1" CHECK (((kind = 'move'::text) = (price IS NULL)));

alter table public.price_alerts add constraint "price_alerts_kind_check" CHECK ((kind = ANY (ARRAY['above'::text, 'below'::text, 'move'::text])));

alter table public.price_alerts add constraint "price_alerts_move_pct_check" CHECK (((move_pct > (0)::numeric) AND (move_pct <= (100)::numeric)));

alter table public.price_alerts add constraint "price_alerts_pkey" PRIMARY KEY (id);

alter table public.price_alerts add constraint "price_alerts_price_check" CHECK ((price > (0)::numeric));

alter table public.candles add constraint "candles_token_id_fkey" FOREIGN KEY (token_id) REFERENCES tokens(id) ON DELETE CASCADE;

alter table public.price_alerts add constraint "price_alerts_token_id_fkey" FOREIGN KEY (token_id) REFERENCES tokens(id) ON DELETE CASCADE;

alter table public.price_alerts add constraint "price_alerts_user_id_fkey" FOREIGN KEY (user_id) REFERENCES profiles(id) ON DELETE CASCADE;

CREATE INDEX orders_expiry_idx ON public.orders USING btree (expires_at) WHERE ((status = ANY (ARRAY['open'::text, 'pending'::text])) AND (expires_at IS NOT NULL));

CREATE INDEX orders_open_user_rank_idx ON public.orders USING btree (user_id, created_at DESC, id DESC) WHERE (status = ANY (ARRAY['open'::text, 'pending'::text]));

CREATE INDEX orders_open_user_token_idx ON public.orders USING btree (user_id, token_id, created_at DESC, id DESC) WHERE (status = ANY (ARRAY['open'::text, 'pending'::text]));

CREATE INDEX orders_stops_idx ON public.orders USING btree (token_id, side, (
CASE
    WHEN (side = 'buy'::text) THEN stop_price
    ELSE (- stop_price)
END), id) WHERE (status = 'pending'::text);

CREATE INDEX price_alerts_armed_idx ON public.price_alerts USING btree (token_id) WHERE (fired_at IS NULL);

CREATE INDEX price_alerts_user_idx ON public.price_alerts USING btree (user_id, created_at DESC);

CREATE TRIGGER orders_oco_follow AFTER UPDATE OF filled ON public.orders FOR EACH ROW WHEN (((new.oco_with IS NOT NULL) AND (new.stop_price IS NULL) AND (new.filled > old.filled))) EXECUTE FUNCTION private.oco_follow();

CREATE TRIGGER trades_candles AFTER INSERT ON public.trades REFERENCING NEW TABLE AS new_trades FOR EACH STATEMENT EXECUTE FUNCTION private.candles_on_trades();

CREATE TRIGGER trades_stats_alerts AFTER INSERT ON public.trades REFERENCING NEW TABLE AS new_trades FOR EACH STATEMENT EXECUTE FUNCTION private.alerts_on_trades();

create policy "candles are visible to signed-in users" on public.candles as permissive for select to authenticated
  using (true);

create policy "own alerts" on public.price_alerts as permissive for select to authenticated
  using (((user_id = ( SELECT auth.uid() AS uid)) OR ( SELECT private.is_admin() AS is_admin)));

alter table public.candles enable row level security;
alter table public.candles set (fillfactor=70);

alter table public.price_alerts enable row level security;

revoke all on function private.alert_words(public.price_alerts,text) from public;
grant execute on function private.alert_words(public.price_alerts,text) to authenticated;

revoke all on function private.alerts_on_trades() from public;

revoke all on function private.band_edge(numeric,text) from public;

revoke all on function private.candle_rows(public.trades[]) from public;

revoke all on function private.candle_seconds(text) from public;

revoke all on function private.candles_on_trades() from public;

revoke all on function private.check_maker_terms(uuid,public.tokens,text,bigint,numeric,boolean) from public;

revoke all on function private.check_order_request(uuid,text,text,numeric,numeric,text,timestamp with time zone,boolean,numeric) from public;

revoke all on function private.check_order_terms(public.exchange_settings,text,text,timestamp with time zone,boolean,numeric) from public;

revoke all on function private.check_stop_terms(text,text,numeric,numeric,numeric) from public;

revoke all on function private.execute_order(uuid,public.tokens,bigint,text,text,bigint,numeric,text,timestamp with time zone,boolean,integer,numeric) from public;

revoke all on function private.expire_orders() from public;

revoke all on function private.hold_stop(uuid,public.tokens,text,text,bigint,numeric,numeric,text,timestamp with time zone,integer,bigint) from public;

revoke all on function private.last_price(uuid) from public;

revoke all on function private.lock_book(uuid,numeric) from public;

revoke all on function private.oco_follow() from public;

revoke all on function private.rebuild_candles() from public;

revoke all on function private.release_order(bigint,text) from public;

revoke all on function private.run_due_stops() from public;

revoke all on function private.trigger_stops(public.tokens,integer) from public;

revoke all on function public.candles(uuid,text,integer) from anon;
revoke all on function public.candles(uuid,text,integer) from public;

revoke all on function public.delete_price_alert(bigint) from anon;
revoke all on function public.delete_price_alert(bigint) from public;

revoke all on function public.place_oco(uuid,numeric,numeric,numeric,numeric,text,timestamp with time zone) from anon;
revoke all on function public.place_oco(uuid,numeric,numeric,numeric,numeric,text,timestamp with time zone) from public;

revoke all on function public.place_order(uuid,text,text,numeric,numeric,text,timestamp with time zone,boolean,numeric) from anon;
revoke all on function public.place_order(uuid,text,text,numeric,numeric,text,timestamp with time zone,boolean,numeric) from public;

revoke all on function public.replace_order(bigint,numeric,numeric,bigint,numeric) from anon;
revoke all on function public.replace_order(bigint,numeric,numeric,bigint,numeric) from public;

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
