-- volatility_auctions: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

drop view if exists public.market_tokens;

drop routine if exists private.match_order(uuid,uuid,bigint,text,text,bigint,numeric,numeric,integer);

create table public.volatility_auctions ();

alter table public.exchange_settings add column "volatility_band_bps" integer default 2000 not null;

alter table public.exchange_settings add column "volatility_auction_seconds" integer default 300 not null;

alter table public.tokens add column "auction_until" timestamp with time zone;

alter table public.volatility_auctions add column "id" bigint generated always as identity;

alter table public.volatility_auctions add column "token_id" uuid not null;

alter table public.volatility_auctions add column "reference_price" numeric(12,2) not null;

alter table public.volatility_auctions add column "band_bps" integer not null;

alter table public.volatility_auctions add column "trigger_price" numeric(12,2) not null;

alter table public.volatility_auctions add column "trigger_order" bigint not null;

alter table public.volatility_auctions add column "started_at" timestamp with time zone default clock_timestamp() not null;

alter table public.volatility_auctions add column "ends_at" timestamp with time zone not null;

alter table public.volatility_auctions add column "announced" boolean default false not null;

alter table public.volatility_auctions add column "uncrossed_at" timestamp with time zone;

alter table public.volatility_auctions add column "uncross_price" numeric(12,2);

alter table public.volatility_auctions add column "volume" bigint default 0 not null;

CREATE OR REPLACE FUNCTION private.auction_refusal(tok public.tokens)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  select format('%s is in a volatility auction until %s UTC: orders are collected and trade at one price when it ends. A limit order good til cancelled or til a date joins the auction; market, immediate-or-cancel, fill-or-kill and post-only orders wait until continuous trading resumes.',
    tok.name, to_char(tok.auction_until at time zone 'UTC', 'HH24:MI:SS'))
$function$;

CREATE OR REPLACE FUNCTION private.auction_uncross(p_token uuid, p_reference numeric)
 RETURNS TABLE(price numeric, volume bigint, demand bigint, supply bigint)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  with levels as (
    select o.price,
           coalesce(sum(o.amount - o.filled) filter (where o.side = 'buy'), 0) as bid,
           coalesce(sum(o.amount - o.filled) filter (where o.side = 'sell'), 0) as offered
      from public.orders o
     where o.token_id = p_token and o.status = 'open'
     group by o.price
  ),
  curve as (
    select l.price, sum(l.bid) over (order by l.price desc) as demand, sum(l.offered) over (order by l.price) as supply
      from levels l
  )
  select c.price, least(c.demand, c.supply)::bigint, c.demand::bigint, c.supply::bigint
    from curve c
   where least(c.demand, c.supply) > 0
   order by least(c.demand, c.supply) desc, abs(c.demand - c.supply), abs(c.price - p_reference), c.price desc
   limit 1
$function$;

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
  -- The token's figures before the trades, so the market's message can say how its totals moved.
  before jsonb;
  -- When a volatility auction this order started ends (auctions.sql).
  auction_until timestamptz;
begin
  if tok.auction_until is not null and (p_type = 'market' or p_tif in ('ioc', 'fok') or p_post_only) then
    perform private.refuse(private.auction_refusal(tok));
  end if;
  budget := private.check_order_funds(p_user, tok.id, tok.name, p_side, p_type, p_amount, p_price, p_bps);
  if p_budget is not null then budget := least(budget, p_budget); end if;
  if p_post_only or p_tif = 'fok' then
    perform private.check_maker_terms(p_user, tok, p_side, p_amount, p_price, p_post_only);
  end if;

  -- The order's id, drawn now: its trades name it, and its row is written once it is settled.
  if v_order is null then v_order := nextval(pg_get_serial_sequence('public.orders', 'id')); end if;

  matched := private.match_order(p_user, tok.id, v_order, p_side, p_type, p_amount, p_price, budget, p_bps,
    tok.auction_until is not null);
  -- A triggered stop-market that meets the band before any fill goes back to waiting: its trigger
  -- is undone with the rest of it (private.trigger_stops catches this), and the auction starts.
  if matched.beyond is not null and p_order is not null and p_type = 'market' and jsonb_array_length(matched.fills) = 0 then
    raise exception 'A stop met the volatility band.' using errcode = 'RXV01', detail = matched.beyond::text, hint = matched.reference::text;
  end if;
  if matched.beyond is not null and p_tif = 'fok' then
    perform private.refuse(format('Fill or kill: at %s this order would trade beyond the volatility band around %s''s reference price of %s, so nothing was placed.',
      private.money(matched.beyond), tok.name, private.money(matched.reference)));
  end if;
  if p_type = 'market' and jsonb_array_length(matched.fills) = 0 and matched.beyond is null then
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
  -- the makers it met; the person behind the token receives a share of the fees (and an offering's
  -- proceeds), so their cash is locked too.
  perform 1 from public.cash_accounts
   where user_id = any(p_user || matched.makers || case when tok.owner_id is not null then array[tok.owner_id] else '{}' end)
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
    before := (select jsonb_build_object('market_cap', s.market_cap, 'volume_24h', s.volume_24h)
                 from private.token_stats s where s.token_id = tok.id);
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
  -- The order met the band: the token's continuous trading stops here, and what rests joins the auction.
  if matched.beyond is not null then
    auction_until := private.start_volatility_auction(tok, v_order, matched.beyond, matched.reference);
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
    -- A stop its owner placed long before: the notice tells them what it did (notifications.sql).
    if matched.spent_value > 0 then
      perform private.notify(p_user, 'fill', 'Stop Triggered', private.stop_words(o, tok.name), '/trading/' || tok.id, false)
         from public.orders o where o.id = v_order;
    end if;
  end if;

  -- The market hears the levels this order rested at or expired (its trades' levels are read with
  -- them); the accounts whose orders traded, and the person whose fee share came, hear of it.
  perform private.tell_market(tok.id, case when auction_until is not null then 'auction' when matched.spent_value > 0 then 'trade' else 'book' end,
    case when rests then jsonb_build_array(jsonb_build_object('side', p_side, 'price', p_price)) else '[]' end
      || case when cardinality(matched.expire) > 0 then private.order_levels(matched.expire) else '[]' end,
    case when jsonb_array_length(matched.fills) > 0 then book_time end, before);
  if jsonb_array_length(matched.fills) > 0 then
    perform private.tell_accounts(p_user || matched.makers, 'fills', tok.id);
    if tok.owner_id is not null then perform private.tell_accounts(array[tok.owner_id], 'cash', tok.id); end if;
  else
    perform private.tell_accounts(array[p_user], 'orders', tok.id);
  end if;

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
  ) || case when auction_until is not null then jsonb_build_object('auction_until', auction_until) else '{}' end;
end $function$;

CREATE OR REPLACE FUNCTION private.match_order(p_user uuid, p_token uuid, p_order bigint, p_side text, p_type text, p_amount bigint, p_price numeric, p_budget numeric, p_bps integer, p_call boolean, OUT fills jsonb, OUT expire bigint[], OUT remaining bigint, OUT spent_value numeric, OUT makers uuid[], OUT beyond numeric, OUT reference numeric)
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
  -- The volatility band, read when the first other's order is met (an order that meets none reads nothing).
  band_read boolean := false;
  low numeric;
  high numeric;
  centre numeric;
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
    continue when p_call;
    if not band_read then
      select b.reference, b.low, b.high into centre, low, high from private.volatility_band(p_token) b;
      band_read := true;
    end if;
    if maker.price < low or maker.price > high then
      beyond := maker.price;
      reference := centre;
      exit;
    end if;
    n := least(remaining, maker.open_amount);
    if p_side = 'buy' and p_type = 'market' then
      n := private.affordable(n, maker.price, spent_value, p_budget, p_bps);
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
  if p_type = 'market' and seq = 0 and beyond is null and not p_call and (
    select min(case when o.side = 'buy' then -o.price else o.price end) from public.orders o
    where o.token_id = p_token and o.side = other and o.status = 'open' and o.user_id <> p_user) > worst then
    raise exception 'No % order for % is within % of its last price (%): a market order trades no further from it. Place a limit order at the price you accept.',
      other, (select t.name from public.tokens t where t.id = p_token),
      rtrim(rtrim(to_char((select e.market_band_bps from public.exchange_settings e) / 100.0, 'FM990.99'), '0'), '.') || '%',
      '$' || to_char(ref, 'FM999,999,990.00')
      using errcode = 'P0001';
  end if;
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
    select * into tok from public.tokens where id = due for no key update;
    if tok.halt_reason is null and tok.auction_until is null then n := n + private.trigger_stops(tok, private.fee_bps()); end if;
  end loop;
  return n;
end $function$;

CREATE OR REPLACE FUNCTION private.start_volatility_auction(tok public.tokens, p_order bigint, p_beyond numeric, p_reference numeric)
 RETURNS timestamp with time zone
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  rules public.exchange_settings := (select e from public.exchange_settings e);
  until timestamptz := clock_timestamp() + make_interval(secs => rules.volatility_auction_seconds);
begin
  insert into public.volatility_auctions (token_id, reference_price, band_bps, trigger_price, trigger_order, ends_at)
  values (tok.id, p_reference, rules.volatility_band_bps, p_beyond, p_order, until);
  update public.tokens set auction_until = until where id = tok.id;
  return until;
end $function$;

CREATE OR REPLACE FUNCTION private.step_volatility_auctions()
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  a public.volatility_auctions;
begin
  select v.* into a from public.volatility_auctions v
   where not v.announced order by v.started_at limit 1 for update of v skip locked;
  if a.id is not null then
    perform private.tell_auction_holders(a, false);
    update public.volatility_auctions set announced = true where id = a.id;
    return true;
  end if;
  select v.* into a from public.volatility_auctions v
   where v.uncrossed_at is null and v.ends_at <= now()
     and not (select e.trading_halted from public.exchange_settings e)
     and not exists (select 1 from public.tokens t where t.id = v.token_id and t.halt_reason is not null)
   order by v.ends_at limit 1 for update of v skip locked;
  if a.id is null then return false; end if;
  perform private.uncross_auction(a);
  return true;
end $function$;

CREATE OR REPLACE FUNCTION private.tell_auction_holders(a public.volatility_auctions, p_resumed boolean)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  tok public.tokens := (select t from public.tokens t where t.id = a.token_id);
  done public.volatility_auctions := (select v from public.volatility_auctions v where v.id = a.id);
begin
  perform private.notify(h.user_id, 'auction',
    case when p_resumed then format('%s: trading resumed', tok.name) else format('%s: volatility auction', tok.name) end,
    case when not p_resumed
         then format('A trade in %s at %s would have moved its price beyond %s of its reference price of %s, so continuous trading stopped for a volatility auction until %s UTC. Limit orders are collected and trade at one price when it ends; cancelling works.',
                     tok.name, private.money(a.trigger_price), trim_scale(a.band_bps / 100.0)::text || '%',
                     private.money(a.reference_price), to_char(a.ends_at at time zone 'UTC', 'HH24:MI:SS'))
         when done.volume > 0
         then format('The volatility auction in %s ended at %s a token, with %s tokens traded. Continuous trading has resumed.',
                     tok.name, private.money(done.uncross_price), to_char(done.volume, 'FM999,999,999,990'))
         else format('The volatility auction in %s ended with no trade. Continuous trading has resumed.', tok.name) end,
    '/trading/' || tok.id, false)
    from public.holdings h
   where h.token_id = a.token_id and h.amount > 0 and h.user_id <> private.issuance_account();
  -- One message for all of them, not one each.
  perform private.tell_accounts(array(select h.user_id from public.holdings h
                                       where h.token_id = a.token_id and h.amount > 0 and h.user_id <> private.issuance_account()),
                                'notice');
end $function$;

CREATE OR REPLACE FUNCTION private.trading_phase(p_token uuid, p_halted boolean, p_auction_until timestamp with time zone)
 RETURNS text
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return case when p_halted or (select e.trading_halted from public.exchange_settings e) then 'halted'
              when p_auction_until is not null then 'volatility_auction'
              when exists (select 1 from public.offerings f where f.token_id = p_token and f.closed_at is null) then 'offering'
              else 'continuous' end;
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
  beyond text;
  centre text;
begin
  perform set_config('lock_timeout', '100ms', true);
  while n < cap loop
    -- A stop that met the volatility band started an auction: the cascade ends at its boundary, and
    -- the stops left are checked against the auction's price when it uncrosses (auctions.sql).
    exit when (select t.auction_until from public.tokens t where t.id = tok.id) is not null;
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
      -- A stop-market that met the volatility band first: it waits again, and the auction starts.
      when sqlstate 'RXV01' then
        get stacked diagnostics beyond = pg_exception_detail, centre = pg_exception_hint;
        perform private.start_volatility_auction(tok, s.id, beyond::numeric, centre::numeric);
        perform private.tell_market(tok.id, 'auction');
        exit;
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

CREATE OR REPLACE FUNCTION private.uncross_auction(a public.volatility_auctions)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  tok public.tokens;
  c record;
  pairs jsonb;
  pair record;
  at timestamptz := clock_timestamp();
  bps integer := private.fee_bps();
  before jsonb;
  traders uuid[];
begin
  select * into tok from public.tokens where id = a.token_id for no key update;
  select * into c from private.auction_uncross(a.token_id, a.reference_price);
  if c.volume > 0 then
    -- Buys by price (highest first) then time, sells by price (lowest first) then time, each
    -- covering a stretch of the volume; a pair trades where their stretches meet.
    with buys as (
      select o.id, o.user_id, sum(o.amount - o.filled) over w - (o.amount - o.filled) as lo, sum(o.amount - o.filled) over w as hi
        from public.orders o
       where o.token_id = a.token_id and o.side = 'buy' and o.status = 'open' and o.price >= c.price
      window w as (order by o.price desc, o.created_at, o.id)
    ),
    sells as (
      select o.id, o.user_id, sum(o.amount - o.filled) over w - (o.amount - o.filled) as lo, sum(o.amount - o.filled) over w as hi
        from public.orders o
       where o.token_id = a.token_id and o.side = 'sell' and o.status = 'open' and o.price <= c.price
      window w as (order by o.price, o.created_at, o.id)
    )
    select jsonb_agg(jsonb_build_object('buy', b.id, 'sell', s.id, 'buyer', b.user_id, 'seller', s.user_id,
                                        'amount', least(b.hi, s.hi, c.volume) - greatest(b.lo, s.lo))
                     order by greatest(b.lo, s.lo))
      into pairs
      from buys b join sells s on b.lo < s.hi and s.lo < b.hi
     where greatest(b.lo, s.lo) < c.volume;
    traders := array(select distinct x from (select (p->>'buyer')::uuid from jsonb_array_elements(pairs) p
                                              union select (p->>'seller')::uuid from jsonb_array_elements(pairs) p) u(x));
    perform 1 from public.cash_accounts
     where user_id = any(traders || case when tok.owner_id is not null then array[tok.owner_id] else '{}' end)
     order by user_id for update;
    perform 1 from public.holdings where token_id = a.token_id and user_id = any(traders) order by user_id for update;
    before := (select jsonb_build_object('market_cap', s.market_cap, 'volume_24h', s.volume_24h)
                 from private.token_stats s where s.token_id = a.token_id);
    for pair in select (p->>'buy')::bigint as buy, (p->>'sell')::bigint as sell, (p->>'buyer')::uuid as buyer,
                       (p->>'seller')::uuid as seller, (p->>'amount')::bigint as amount
                  from jsonb_array_elements(pairs) p loop
      perform private.settle_fills(a.token_id, 'buy', jsonb_build_array(jsonb_build_object(
        'seq', 1, 'buyer', pair.buyer, 'seller', pair.seller, 'buy_order', pair.buy, 'sell_order', pair.sell,
        'price', c.price, 'amount', pair.amount, 'buyer_reserved', o.reserved,
        'buyer_completes', pair.amount = o.amount - o.filled, 'seller_reserved', true)), at, bps, bps)
        from public.orders o where o.id = pair.buy;
    end loop;
  end if;
  update public.volatility_auctions
     set uncrossed_at = at, uncross_price = case when c.volume > 0 then c.price end, volume = coalesce(c.volume, 0)
   where id = a.id;
  update public.tokens set auction_until = null where id = a.token_id returning * into tok;
  -- The book's levels every traded order stood at, for the book's feed.
  perform private.tell_market(a.token_id, 'auction',
    case when c.volume > 0 then private.order_levels(array(select (p->>'buy')::bigint from jsonb_array_elements(pairs) p
                                                          union select (p->>'sell')::bigint from jsonb_array_elements(pairs) p))
         else '[]' end,
    case when c.volume > 0 then at end, before);
  if c.volume > 0 then
    perform private.tell_accounts(traders, 'fills', a.token_id);
    if tok.owner_id is not null then perform private.tell_accounts(array[tok.owner_id], 'cash', a.token_id); end if;
  end if;
  perform private.tell_auction_holders(a, true);
  -- Continuous trading resumes: the stops the auction's price has reached run now.
  if exists (select 1 from public.orders o where o.token_id = a.token_id and o.status = 'pending') then
    perform private.trigger_stops(tok, bps);
  end if;
end $function$;

CREATE OR REPLACE FUNCTION private.volatility_band(p_token uuid, OUT reference numeric, OUT low numeric, OUT high numeric)
 RETURNS record
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  traded_at timestamptz;
  traded numeric;
  auctioned_at timestamptz;
  auctioned numeric;
  bps integer := (select e.volatility_band_bps from public.exchange_settings e);
begin
  select t.created_at, t.price into traded_at, traded from public.trades t
   where t.token_id = p_token and t.created_at <= now() - interval '5 minutes'
   order by t.token_id, t.created_at desc, t.id desc limit 1;
  select a.uncrossed_at, coalesce(a.uncross_price, a.trigger_price) into auctioned_at, auctioned
    from public.volatility_auctions a
   where a.token_id = p_token and a.uncrossed_at is not null
   order by a.token_id, a.started_at desc limit 1;
  reference := case when auctioned_at > traded_at or traded_at is null then auctioned else traded end;
  low := ceil(reference * (1 - bps / 10000.0) * 100) / 100;
  high := floor(reference * (1 + bps / 10000.0) * 100) / 100;
end $function$;

CREATE OR REPLACE FUNCTION public.admin_update_settings(p_changes jsonb, p_reason text DEFAULT NULL::text)
 RETURNS public.exchange_settings
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  admin uuid := private.require_admin();
  editable constant text[] := array['fee_bps', 'maker_fee_bps', 'min_order_amount', 'max_price', 'max_open_orders', 'trading_halted', 'halt_reason',
    'deposit_min', 'deposit_max', 'withdrawal_min', 'withdrawal_daily_limit', 'token_supply', 'token_founder_bps', 'token_issue_price',
    'new_bank_account_hold_hours', 'market_band_bps', 'auto_invest_min', 'auto_invest_max', 'auto_invest_max_plans', 'creator_fee_share_bps',
    'founder_vesting_months', 'founder_cliff_months', 'offering_window_minutes', 'offering_cap_bps', 'admins_need_two_step',
    'volatility_band_bps', 'volatility_auction_seconds'];
  before public.exchange_settings;
  after public.exchange_settings;
  k text;
begin
  if p_changes is null or jsonb_typeof(p_changes) <> 'object' or p_changes = '{}'::jsonb then
    perform private.refuse('Say which settings to change.');
  end if;
  for k in select jsonb_object_keys(p_changes) loop
    if not k = any (editable) then perform private.refuse(format('%s is not a setting.', k)); end if;
  end loop;
  select * into before from public.exchange_settings for update;
  begin
    after := jsonb_populate_record(before, p_changes);
  exception when others then
    perform private.refuse('A setting has a value of the wrong kind: numbers for amounts and limits, true or false for the halt and for two-step verification.');
  end;
  if after.fee_bps is null or after.maker_fee_bps is null or after.max_price is null or after.deposit_min is null or after.deposit_max is null or after.withdrawal_min is null
     or after.withdrawal_daily_limit is null or after.min_order_amount is null or after.max_open_orders is null
     or after.trading_halted is null or after.token_supply is null or after.token_founder_bps is null or after.token_issue_price is null
     or after.new_bank_account_hold_hours is null or after.market_band_bps is null
     or after.auto_invest_min is null or after.auto_invest_max is null or after.auto_invest_max_plans is null
     or after.creator_fee_share_bps is null or after.founder_vesting_months is null or after.founder_cliff_months is null
     or after.offering_window_minutes is null or after.offering_cap_bps is null or after.admins_need_two_step is null
     or after.volatility_band_bps is null or after.volatility_auction_seconds is null then
    perform private.refuse('A setting cannot be empty.');
  end if;
  if after.fee_bps <> trunc(after.fee_bps) or after.fee_bps not between 0 and 1000 then
    perform private.refuse('The trading fee must be between 0 and 1,000 basis points (0% to 10%).');
  end if;
  -- One fee for both sides (the specification's) stays one when only the taker's is changed.
  if not p_changes ? 'maker_fee_bps' and before.maker_fee_bps = before.fee_bps then
    after.maker_fee_bps := after.fee_bps;
  end if;
  if after.maker_fee_bps <> trunc(after.maker_fee_bps) or after.maker_fee_bps not between -after.fee_bps and after.fee_bps then
    perform private.refuse(format('The maker fee must be between %s and %s basis points: at most the taker fee, and a rebate (below 0) no larger than it.',
      -after.fee_bps, after.fee_bps));
  end if;
  if after.deposit_min <= 0 or after.deposit_max < after.deposit_min then
    perform private.refuse('Deposits need a minimum above $0.00 and a maximum at least as large.');
  end if;
  if after.withdrawal_min <= 0 or after.withdrawal_daily_limit < after.withdrawal_min then
    perform private.refuse('Withdrawals need a minimum above $0.00 and a daily limit at least as large.');
  end if;
  if after.min_order_amount < 1 then perform private.refuse('The minimum order is at least 1 token.'); end if;
  if after.max_open_orders not between 1 and 10000 then perform private.refuse('The open-order limit must be between 1 and 10,000.'); end if;
  if after.new_bank_account_hold_hours not between 0 and 168 then
    perform private.refuse('A new bank account waits between 0 and 168 hours (a week).');
  end if;
  if after.market_band_bps <> trunc(after.market_band_bps) or after.market_band_bps not between 100 and 5000 then
    perform private.refuse('The market order band must be between 100 and 5,000 basis points (1% to 50%).');
  end if;
  if after.auto_invest_min <= 0 or after.auto_invest_max < after.auto_invest_min then
    perform private.refuse('Auto-Invest needs a minimum above $0.00 and a maximum at least as large.');
  end if;
  if after.auto_invest_max_plans <> trunc(after.auto_invest_max_plans) or after.auto_invest_max_plans not between 1 and 100 then
    perform private.refuse('The Auto-Invest plan limit must be between 1 and 100.');
  end if;
  if after.creator_fee_share_bps <> trunc(after.creator_fee_share_bps) or after.creator_fee_share_bps not between 0 and 10000 then
    perform private.refuse('The creator''s share of the fees must be between 0 and 10,000 basis points (0% to 100%).');
  end if;
  if after.founder_vesting_months not between 0 and 120 or after.founder_cliff_months not between 0 and after.founder_vesting_months then
    perform private.refuse('Founder vesting is 0 to 120 months, with a cliff no longer than the vesting.');
  end if;
  if after.offering_window_minutes not between 1 and 10080 then
    perform private.refuse('An offering''s window is 1 to 10,080 minutes (a week).');
  end if;
  if after.offering_cap_bps <> trunc(after.offering_cap_bps) or after.offering_cap_bps not between 1 and 10000 then
    perform private.refuse('The offering''s cap per account must be between 1 and 10,000 basis points (0.01% to 100%).');
  end if;
  if after.volatility_band_bps <> trunc(after.volatility_band_bps) or after.volatility_band_bps not between 100 and 5000 then
    perform private.refuse('The volatility band must be between 100 and 5,000 basis points (1% to 50%).');
  end if;
  if after.volatility_auction_seconds <> trunc(after.volatility_auction_seconds) or after.volatility_auction_seconds not between 5 and 3600 then
    perform private.refuse('A volatility auction lasts 5 to 3,600 seconds (an hour).');
  end if;
  -- A halt and its reason go together: traders are told why, and no reason lingers without a halt.
  if after.trading_halted and nullif(trim(after.halt_reason), '') is null then
    perform private.refuse('Say why trading is halted: traders are shown the reason.');
  elsif not after.trading_halted and nullif(trim(after.halt_reason), '') is not null then
    perform private.refuse('A halt reason goes with a halt: turn the halt on, or clear the reason.');
  end if;
  -- Asking admins for two-step verification locks out every admin without an app: the one asking first.
  if after.admins_need_two_step and not before.admins_need_two_step and not private.has_app(admin) then
    perform private.refuse('Turn on two-step verification for your own account first (Profile › Settings): asking it of admins would lock you out of the admin area.');
  end if;
  begin
    update public.exchange_settings set
      fee_bps = after.fee_bps, maker_fee_bps = after.maker_fee_bps, min_order_amount = after.min_order_amount, max_price = after.max_price, max_open_orders = after.max_open_orders,
      trading_halted = after.trading_halted, halt_reason = nullif(trim(after.halt_reason), ''),
      deposit_min = after.deposit_min, deposit_max = after.deposit_max, withdrawal_min = after.withdrawal_min,
      withdrawal_daily_limit = after.withdrawal_daily_limit, token_supply = after.token_supply,
      token_founder_bps = after.token_founder_bps, token_issue_price = after.token_issue_price,
      new_bank_account_hold_hours = after.new_bank_account_hold_hours, market_band_bps = after.market_band_bps,
      auto_invest_min = after.auto_invest_min, auto_invest_max = after.auto_invest_max,
      auto_invest_max_plans = after.auto_invest_max_plans, creator_fee_share_bps = after.creator_fee_share_bps,
      founder_vesting_months = after.founder_vesting_months, founder_cliff_months = after.founder_cliff_months,
      offering_window_minutes = after.offering_window_minutes, offering_cap_bps = after.offering_cap_bps,
      admins_need_two_step = after.admins_need_two_step, volatility_band_bps = after.volatility_band_bps,
      volatility_auction_seconds = after.volatility_auction_seconds, updated_at = now()
    returning * into after;
  exception when check_violation then
    perform private.refuse('A setting is out of its allowed range.');
  end;
  -- Only what changed, before and after.
  perform private.audit('settings.update', null, 'exchange settings',
    (select jsonb_object_agg(b.key, b.value) from jsonb_each(to_jsonb(before)) b
      where b.key not in ('id', 'updated_at') and b.value is distinct from to_jsonb(after) -> b.key),
    (select jsonb_object_agg(a.key, a.value) from jsonb_each(to_jsonb(after)) a
      where a.key not in ('id', 'updated_at') and a.value is distinct from to_jsonb(before) -> a.key),
    nullif(trim(coalesce(p_reason, '')), ''));
  return after;
end $function$;

CREATE OR REPLACE FUNCTION public.quote_order(p_token uuid, p_side text, p_type text DEFAULT 'market'::text, p_amount numeric DEFAULT NULL::numeric, p_price numeric DEFAULT NULL::numeric, p_time_in_force text DEFAULT 'gtc'::text, p_max_total numeric DEFAULT NULL::numeric, p_post_only boolean DEFAULT false, p_stop_price numeric DEFAULT NULL::numeric, p_expires_at timestamp with time zone DEFAULT NULL::timestamp with time zone, p_take_profit numeric DEFAULT NULL::numeric)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := auth.uid();
  settings public.exchange_settings;
  tok public.tokens;
  ref numeric;
  edge numeric;
  worst numeric;
  cash numeric := 0;
  held bigint := 0;
  budget numeric;
  want bigint;
  remaining bigint;
  spent numeric := 0;
  walk record;
  fee numeric;
  rests boolean;
  rest_value numeric := 0;
  rest_fee numeric := 0;
  blocked text;
  terms record;
  stop jsonb;
  refusal text;
begin
  if p_side is null or p_side not in ('buy', 'sell') then perform private.refuse('The side must be buy or sell.'); end if;
  if p_type is null or p_type not in ('market', 'limit') then perform private.refuse('The order type must be market or limit.'); end if;
  if p_amount is not null and (p_amount = 'NaN' or p_amount < 1 or p_amount <> trunc(p_amount)) then
    perform private.refuse('The amount must be a whole number of tokens, at least 1.');
  end if;
  if p_type = 'limit' and (p_price is null or p_price = 'NaN' or p_price <= 0) then
    perform private.refuse('A limit order needs a price above $0.00.');
  end if;
  if p_max_total is not null and (p_side <> 'buy' or p_type <> 'market' or p_stop_price is not null or p_max_total = 'NaN' or p_max_total <= 0) then
    perform private.refuse('A spending limit is for market buys, above $0.00.');
  end if;
  if p_amount is null and p_max_total is null and p_stop_price is null then
    perform private.refuse('Give an amount of tokens or a sum to spend.');
  end if;
  if p_take_profit is not null and (p_side <> 'sell' or p_stop_price is null) then
    perform private.refuse('A take-profit pairs with a sell stop.');
  end if;

  select * into settings from public.exchange_settings;
  select * into tok from public.tokens where id = p_token;
  if not found then perform private.refuse('There is no such token.'); end if;
  if tok.halt_reason is not null then
    blocked := format('Trading in %s is halted: %s.', tok.name, rtrim(tok.halt_reason, '.'));
  elsif settings.trading_halted then
    blocked := 'Trading is halted' || coalesce(': ' || nullif(rtrim(settings.halt_reason, '.'), ''), '') || '.';
  elsif tok.auction_until is not null and p_stop_price is null
        and (p_type = 'market' or p_time_in_force in ('ioc', 'fok') or coalesce(p_post_only, false)) then
    blocked := private.auction_refusal(tok);
  end if;
  if uid is not null then
    select coalesce(max(available), 0) into cash from public.cash_accounts where user_id = uid;
    select coalesce(max(available), 0) into held from public.holdings where user_id = uid and token_id = p_token;
  end if;
  ref := private.last_price(p_token);
  edge := private.band_edge(ref, p_side);
  terms := private.quote_terms(settings, p_side, p_type, p_price, coalesce(p_time_in_force, 'gtc'), p_expires_at,
    p_post_only, p_stop_price, p_take_profit, ref);

  if p_stop_price is not null then
    stop := private.quote_stop(uid, tok, settings.fee_bps, p_side, p_amount::bigint, p_price, p_stop_price, cash, held);
    refusal := stop->>'refusal';
    want := coalesce(p_amount, 0)::bigint;
    select 0::bigint as filled, 0::numeric as spent, '[]'::jsonb as levels, null::numeric as first_price,
           null::numeric as last_fill, 'stop'::text as stopped into walk;
  else
    -- What the engine's funds check would say of this order (the same function, its words).
    if uid is not null and p_amount is not null then
      begin
        perform private.check_order_funds(uid, p_token, tok.name, p_side, p_type, p_amount::bigint, p_price, settings.fee_bps);
      exception when sqlstate 'P0001' then
        refusal := sqlerrm;
      end;
    end if;
    -- And what the engine says of a post-only order that would trade, or a fill-or-kill that cannot fill.
    if uid is not null and p_amount is not null and refusal is null and p_type = 'limit'
       and (coalesce(p_post_only, false) or p_time_in_force = 'fok') then
      begin
        perform private.check_maker_terms(uid, tok, p_side, p_amount::bigint, p_price, coalesce(p_post_only, false));
      exception when sqlstate 'P0001' then
        refusal := sqlerrm;
      end;
    end if;
    -- The worst rank the order accepts, ranked as match_order ranks the other side.
    worst := case when tok.auction_until is not null then '-Infinity' -- in an auction's call nothing trades at once
                  when p_type = 'market' and p_side = 'buy' then edge when p_type = 'market' then -edge
                  when p_side = 'buy' then p_price else -p_price end;
    budget := case when p_side = 'buy' and p_type = 'market'
                   then case when uid is null then coalesce(p_max_total, 'Infinity') else least(cash, coalesce(p_max_total, cash)) end end;
    want := coalesce(p_amount, tok.total_supply)::bigint;
    walk := private.walk_book(uid, p_token, p_side, worst, want, budget, settings.fee_bps);
    -- "Spend $50" asks for what the sum covers, so nothing of it remains.
    if p_amount is null then want := walk.filled; end if;
  end if;
  remaining := want - walk.filled;
  spent := walk.spent;

  fee := private.fee(spent, settings.fee_bps);
  rests := p_stop_price is null and p_type = 'limit' and remaining > 0 and coalesce(p_time_in_force, 'gtc') in ('gtc', 'gtd');
  if rests then
    rest_value := private.trade_value(p_price, remaining);
    rest_fee := private.fee(spent + rest_value, settings.fee_bps) - fee; -- one fee on the order's whole value
  end if;

  return jsonb_build_object(
    'side', p_side,
    'type', p_type,
    'amount', want,
    'filled', walk.filled,
    'value', spent,
    'fee', fee,
    'total', case when p_side = 'buy' then spent + fee else spent - fee end,
    'average_price', case when spent > 0 then round(spent / walk.filled, 2) end,
    'best_price', walk.first_price,
    'worst_price', walk.last_fill,
    'levels', walk.levels,
    'remaining', remaining,
    'stopped_by', walk.stopped,
    'resting', case when rests then remaining else 0 end,
    'rest_value', rest_value,
    'rest_fee', rest_fee,
    'rest_cost', case when p_side = 'buy' then rest_value + rest_fee else 0 end,
    'at_trigger', stop->'at_trigger',
    'last_price', ref,
    'band_bps', settings.market_band_bps,
    'band_edge', edge,
    'impact_bps', case when walk.last_fill is not null and ref > 0 then round((walk.last_fill - ref) / ref * 10000) end,
    'best_bid', (select max(o.price) from public.orders o where o.token_id = p_token and o.side = 'buy' and o.status = 'open' and o.user_id is distinct from uid),
    'best_ask', (select min(o.price) from public.orders o where o.token_id = p_token and o.side = 'sell' and o.status = 'open' and o.user_id is distinct from uid),
    'fee_bps', settings.fee_bps,
    'cash', cash,
    'held', held,
    'blocked', blocked,
    'term_refusal', case when terms.term is not null then jsonb_build_object('term', terms.term, 'message', terms.message) end,
    'refusal', refusal
  );
end $function$;

CREATE OR REPLACE FUNCTION public.token_integrity(p_token uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  tok public.tokens;
  since timestamptz := now() - interval '30 days';
  halts integer;
  auctions integer;
  volume numeric;
  flagged numeric;
  cancelled integer;
  traded integer;
  top10 numeric;
  grant_total bigint;
  vested bigint;
  sold bigint;
  reading jsonb := '[]';
  level text := 'good';
begin
  if auth.uid() is null then perform private.refuse('Sign in first.'); end if;
  select * into tok from public.tokens where id = p_token;
  if not found then perform private.refuse('That token does not exist.'); end if;

  select count(*) into halts from public.audit_log a
   where a.action = 'token.halt' and a.created_at > since and a.target = tok.name
     and a.target_user is not distinct from tok.owner_id;
  select count(*) into auctions from public.volatility_auctions v where v.token_id = p_token and v.started_at > since;
  select coalesce(sum(t.value), 0) into volume from public.trades t where t.token_id = p_token and t.created_at > since;
  -- Volume between accounts an admin confirmed were manipulating, together (fraud.sql).
  select coalesce(sum(t.value), 0) into flagged from public.trades t
   where t.token_id = p_token and t.created_at > since
     and exists (select 1 from public.fraud_alerts f
                  where f.status = 'confirmed' and (f.token_id = p_token or f.token_id is null)
                    and t.buyer_id = any (f.accounts) and t.seller_id = any (f.accounts));
  select count(*) filter (where o.status in ('cancelled', 'expired') and o.filled = 0),
         count(*) filter (where o.filled > 0)
    into cancelled, traded
    from public.orders o where o.token_id = p_token and o.created_at > since;
  select coalesce(sum(h.amount), 0) into top10 from (
    select h.amount from public.holdings h
     where h.token_id = p_token and h.amount > 0 and h.user_id <> private.issuance_account()
     order by h.amount desc limit 10) h;
  select g.total, private.vested(g, now()) into grant_total, vested
    from public.vesting_grants g where g.token_id = p_token and g.user_id = tok.owner_id;
  select coalesce(sum(t.amount), 0) into sold from public.trades t
   where t.token_id = p_token and t.seller_id = tok.owner_id and tok.owner_id is not null and t.created_at > since;

  -- The reading: one plain sentence a figure, and the worst level any of them reaches.
  reading := reading || to_jsonb(case when tok.halt_reason is not null then 'Trading is halted now: ' || tok.halt_reason || '.'
                                      when halts = 0 then 'Trading was not halted in the last 30 days.'
                                      else format('RepX halted trading %s in the last 30 days.', case when halts = 1 then 'once' else halts || ' times' end) end);
  if tok.halt_reason is not null or halts > 0 then level := 'watch'; end if;
  reading := reading || to_jsonb(case when tok.auction_until is not null
                                      then format('A sudden move paused trading for a volatility auction until %s UTC.', to_char(tok.auction_until at time zone 'UTC', 'HH24:MI'))
                                      when auctions = 0 then 'No sudden move paused trading for a volatility auction in the last 30 days.'
                                      when auctions = 1 then 'A sudden move paused trading for a volatility auction once in the last 30 days.'
                                      else format('Sudden moves paused trading for a volatility auction %s in the last 30 days.',
                                                  case when auctions = 2 then 'twice' else auctions || ' times' end) end);
  if auctions >= 3 and level = 'good' then level := 'watch'; end if;
  if volume = 0 then
    reading := reading || to_jsonb('Nothing traded in the last 30 days.'::text);
  elsif flagged = 0 then
    reading := reading || to_jsonb('None of the last 30 days'' volume was between accounts RepX found manipulating the market.'::text);
  else
    reading := reading || to_jsonb(format('%s%% of the last 30 days'' volume was between accounts RepX confirmed were manipulating the market.',
                                          trim_scale(round(100 * flagged / volume, 1))));
    level := case when flagged / volume >= 0.1 then 'concern' else 'watch' end;
  end if;
  if traded + cancelled > 0 then
    reading := reading || to_jsonb(format('%s order%s cancelled unfilled for each that traded%s.',
      round(cancelled::numeric / greatest(traded, 1), 1), case when cancelled = 1 then ' was' else 's were' end,
      case when cancelled > 10 * greatest(traded, 1) then ': a book of many orders that never trade, which can hide spoofing' else '' end));
    if cancelled > 10 * greatest(traded, 1) then level := case when level = 'concern' then level else 'watch' end; end if;
  end if;
  reading := reading || to_jsonb(format('The ten largest holders hold %s%% of the supply%s.', trim_scale(round(100 * top10 / tok.total_supply, 1)),
    case when top10 >= 0.8 * tok.total_supply then ': a few people can move the price' else '' end));
  if top10 >= 0.8 * tok.total_supply and level = 'good' then level := 'watch'; end if;
  if grant_total is not null then
    reading := reading || to_jsonb(format('The person has vested %s of their %s founder tokens and sold %s in the last 30 days.',
      to_char(vested, 'FM999,999,999,990'), to_char(grant_total, 'FM999,999,999,990'), to_char(sold, 'FM999,999,999,990')));
  elsif tok.owner_id is not null then
    reading := reading || to_jsonb(format('The person sold %s of their tokens in the last 30 days.', to_char(sold, 'FM999,999,999,990')));
  end if;

  return jsonb_build_object(
    'token_id', p_token, 'since', since, 'level', level, 'reading', reading,
    'halted_now', tok.halt_reason is not null, 'halts', halts, 'volatility_auctions', auctions,
    'auction_now', tok.auction_until is not null,
    'volume', volume, 'flagged_volume', flagged,
    'flagged_share', case when volume > 0 then round(flagged / volume, 4) else 0 end,
    'orders_cancelled', cancelled, 'orders_traded', traded,
    'cancel_to_fill', round(cancelled::numeric / greatest(traded, 1), 2),
    'top10_share', round(top10 / tok.total_supply, 4),
    'founder', case when tok.owner_id is null then null
                    else jsonb_build_object('granted', grant_total, 'vested', vested, 'sold_30d', sold) end);
end $function$;

CREATE OR REPLACE FUNCTION public.trading_screen(p_token uuid)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select jsonb_build_object(
    'token', (select to_jsonb(m) from public.market_tokens m where m.id = p_token),
    'history', (select coalesce(jsonb_agg(h order by h.bucket), '[]') from public.price_history(p_token, 24) h),
    'book', (select coalesce(jsonb_agg(jsonb_build_object('side', b.side, 'price', b.price, 'amount', b.amount)), '[]')
               from public.order_book b where b.token_id = p_token),
    'tape', (select coalesce(jsonb_agg(t order by t.created_at desc, t.id desc), '[]')
               from (select r.id, r.price, r.amount, r.type, r.created_at from public.recent_trades r
                      where r.token_id = p_token order by r.created_at desc, r.id desc limit 5) t),
    'cash', coalesce((select c.available from public.cash_accounts c where c.user_id = (select auth.uid())), 0),
    'held', coalesce((select h.available from public.holdings h
                       where h.user_id = (select auth.uid()) and h.token_id = p_token), 0),
    'orders', (select coalesce(jsonb_agg(o order by o.created_at desc, o.id desc), '[]')
                 from public.list_open_orders(p_token) o),
    'vesting', (select jsonb_build_object('total', v.total, 'vested', v.vested, 'cliff_at', v.cliff_at, 'ends_at', v.ends_at)
                  from public.token_vesting v where v.token_id = p_token),
    'offering', (select to_jsonb(f) || jsonb_build_object('bid', (
                          select jsonb_build_object('price', b.price, 'amount', b.amount, 'reserved', b.reserved,
                                                    'placed_at', b.placed_at, 'allocated', b.allocated)
                            from public.offering_bids b where b.offering_id = f.id and b.user_id = (select auth.uid())))
                   from public.offering_book f where f.token_id = p_token order by f.opens_at desc limit 1),
    'auction', (select to_jsonb(a) from public.volatility_auction_book a where a.token_id = p_token and a.uncrossed_at is null)
  )
$function$;

create view public.volatility_auction_book as
  select a.id, a.token_id, a.reference_price, a.band_bps, a.trigger_price, a.started_at, a.ends_at,
         a.uncrossed_at, a.uncross_price, a.volume,
         c.price as indicative_price, c.volume as indicative_volume, c.demand, c.supply
    from public.volatility_auctions a
    left join lateral (select * from private.auction_uncross(a.token_id, a.reference_price) u where a.uncrossed_at is null) c on true;

create view public.market_tokens as
select
  s.token_id as id,
  t.owner_id,
  t.name,
  t.username,
  s.category,
  s.reputation_score,
  t.avatar_url,
  s.verified,
  t.total_supply,
  s.price,
  s.change_24h,
  s.volume_24h,
  s.market_cap,
  s.holders,
  t.total_supply - (select coalesce(sum(h.amount), 0) from public.holdings h
                    where h.token_id = t.id and h.user_id <> private.issuance_account()) as available_supply,
  t.search_text,
  s.halted,
  private.trading_phase(s.token_id, s.halted, t.auction_until) as trading_phase,
  t.auction_until
from private.token_stats s
left join public.tokens t on t.id = s.token_id;

alter table public.exchange_settings add constraint "exchange_settings_volatility_auction_seconds_check" CHECK (((volatility_auction_seconds >= 5) AND (volatility_auction_seconds <= 3600)));

alter table public.exchange_settings add constraint "exchange_settings_volatility_band_bps_check" CHECK (((volatility_band_bps >= 100) AND (volatility_band_bps <= 5000)));

alter table public.volatility_auctions add constraint "volatility_auctions_band_bps_check" CHECK ((band_bps > 0));

alter table public.volatility_auctions add constraint "volatility_auctions_check" CHECK ((ends_at > started_at));

alter table public.volatility_auctions add constraint "volatility_auctions_pkey" PRIMARY KEY (id);

alter table public.volatility_auctions add constraint "volatility_auctions_reference_price_check" CHECK ((reference_price > (0)::numeric));

alter table public.volatility_auctions add constraint "volatility_auctions_trigger_price_check" CHECK ((trigger_price > (0)::numeric));

alter table public.volatility_auctions add constraint "volatility_auctions_uncross_price_check" CHECK ((uncross_price > (0)::numeric));

alter table public.volatility_auctions add constraint "volatility_auctions_volume_check" CHECK ((volume >= 0));

alter table public.volatility_auctions add constraint "volatility_auctions_token_id_fkey" FOREIGN KEY (token_id) REFERENCES tokens(id) ON DELETE CASCADE;

CREATE INDEX volatility_auctions_due_idx ON public.volatility_auctions USING btree (ends_at) WHERE (uncrossed_at IS NULL);

CREATE UNIQUE INDEX volatility_auctions_open_idx ON public.volatility_auctions USING btree (token_id) WHERE (uncrossed_at IS NULL);

CREATE INDEX volatility_auctions_token_idx ON public.volatility_auctions USING btree (token_id, started_at DESC);

CREATE INDEX volatility_auctions_unannounced_idx ON public.volatility_auctions USING btree (started_at) WHERE (NOT announced);

create policy "volatility auctions are visible to signed-in users" on public.volatility_auctions as permissive for select to authenticated
  using (true);

alter table public.volatility_auctions enable row level security;

revoke all on routine private.auction_refusal(public.tokens) from public;

revoke all on routine private.auction_uncross(uuid,numeric) from public;
grant execute on routine private.auction_uncross(uuid,numeric) to authenticated;

revoke all on routine private.match_order(uuid,uuid,bigint,text,text,bigint,numeric,numeric,integer,boolean) from public;

revoke all on routine private.start_volatility_auction(public.tokens,bigint,numeric,numeric) from public;

revoke all on routine private.step_volatility_auctions() from public;

revoke all on routine private.tell_auction_holders(public.volatility_auctions,boolean) from public;

revoke all on routine private.trading_phase(uuid,boolean,timestamp with time zone) from public;
grant execute on routine private.trading_phase(uuid,boolean,timestamp with time zone) to authenticated;

revoke all on routine private.uncross_auction(public.volatility_auctions) from public;

revoke all on routine private.volatility_band(uuid) from public;

revoke all on table public.volatility_auctions from anon;
revoke insert, update, delete, truncate on table public.volatility_auctions from authenticated;

revoke all on table public.volatility_auction_book from anon;

revoke all on table public.market_tokens from anon;
revoke insert, update, delete, truncate on table public.market_tokens from authenticated;

-- Reference rows (db:diff writes no data): the notice kind of a volatility auction.
insert into public.notification_kinds (kind, label, description, default_channel, always_on, position) values
  ('auction', 'Volatility auctions', 'A token you hold paused for a volatility auction, or resumed.', 'app', false, 11)
on conflict (kind) do nothing;
