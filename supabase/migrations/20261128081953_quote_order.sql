-- quote_order: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

drop function if exists public.place_order(uuid,text,text,numeric,numeric,text,timestamp with time zone,boolean,numeric);

CREATE OR REPLACE FUNCTION private.affordable(p_want bigint, p_price numeric, p_spent numeric, p_budget numeric, p_bps integer)
 RETURNS bigint
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO ''
AS $function$
declare
  n bigint := least(p_want, floor((p_budget - p_spent - private.fee(p_spent, p_bps)) / (p_price * (1 + p_bps / 10000.0)))::bigint);
begin
  while n > 0 and p_spent + private.trade_value(p_price, n) + private.fee(p_spent + private.trade_value(p_price, n), p_bps) > p_budget loop
    n := n - 1;
  end loop;
  return greatest(n, 0);
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

CREATE OR REPLACE FUNCTION public.place_order(p_token uuid, p_side text, p_type text, p_amount numeric, p_price numeric DEFAULT NULL::numeric, p_time_in_force text DEFAULT 'gtc'::text, p_expires_at timestamp with time zone DEFAULT NULL::timestamp with time zone, p_post_only boolean DEFAULT false, p_stop_price numeric DEFAULT NULL::numeric, p_max_total numeric DEFAULT NULL::numeric)
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
  if p_max_total is not null then
    if p_side <> 'buy' or p_type <> 'market' or p_stop_price is not null then
      perform private.refuse('A spending limit (p_max_total) is for market buys only.');
    elsif p_max_total = 'NaN' or p_max_total <= 0 or p_max_total <> round(p_max_total, 2) then
      perform private.refuse('The amount to spend must be above $0.00, with at most two decimals.');
    end if;
  end if;
  if p_stop_price is not null then
    return private.hold_stop(auth.uid(), tok, p_side, p_type, p_amount::bigint, p_price, p_stop_price,
      coalesce(p_time_in_force, 'gtc'), p_expires_at, settings.fee_bps);
  end if;
  result := private.execute_order(auth.uid(), tok, null, p_side, p_type, p_amount::bigint, p_price,
    coalesce(p_time_in_force, 'gtc'), p_expires_at, coalesce(p_post_only, false), settings.fee_bps, p_max_total);
  -- Stops run after a trade, where the book has any (one probe of the waiting stops' index).
  if (result->>'value')::numeric > 0 and exists (select 1 from public.orders o where o.token_id = p_token and o.status = 'pending') then
    perform private.trigger_stops(tok, settings.fee_bps);
  end if;
  return result;
end $function$;

CREATE OR REPLACE FUNCTION public.quote_order(p_token uuid, p_side text, p_type text DEFAULT 'market'::text, p_amount numeric DEFAULT NULL::numeric, p_price numeric DEFAULT NULL::numeric, p_time_in_force text DEFAULT 'gtc'::text, p_max_total numeric DEFAULT NULL::numeric)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := auth.uid();
  settings public.exchange_settings;
  tok public.tokens;
  other text := case when p_side = 'buy' then 'sell' else 'buy' end;
  ref numeric;
  edge numeric;
  worst numeric;
  cash numeric := 0;
  held bigint := 0;
  budget numeric;
  want bigint;
  remaining bigint;
  filled bigint;
  spent numeric := 0;
  levels jsonb := '[]';
  level_price numeric;
  level_amount bigint := 0;
  first_price numeric;
  last_fill numeric;
  stopped text := 'book';
  maker record;
  n bigint;
  fee numeric;
  rests boolean;
  rest_value numeric := 0;
  rest_fee numeric := 0;
  blocked text;
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
  if p_max_total is not null and (p_side <> 'buy' or p_type <> 'market' or p_max_total = 'NaN' or p_max_total <= 0) then
    perform private.refuse('A spending limit is for market buys, above $0.00.');
  end if;
  if p_amount is null and p_max_total is null then perform private.refuse('Give an amount of tokens or a sum to spend.'); end if;

  select * into settings from public.exchange_settings;
  select * into tok from public.tokens where id = p_token;
  if not found then perform private.refuse('There is no such token.'); end if;
  if tok.halt_reason is not null then
    blocked := format('Trading in %s is halted: %s.', tok.name, rtrim(tok.halt_reason, '.'));
  elsif settings.trading_halted then
    blocked := 'Trading is halted' || coalesce(': ' || nullif(rtrim(settings.halt_reason, '.'), ''), '') || '.';
  end if;
  if uid is not null then
    select coalesce(max(available), 0) into cash from public.cash_accounts where user_id = uid;
    select coalesce(max(available), 0) into held from public.holdings where user_id = uid and token_id = p_token;
  end if;

  -- What the engine's funds check would say of this order (the same function, its words).
  if uid is not null and p_amount is not null then
    begin
      perform private.check_order_funds(uid, p_token, tok.name, p_side, p_type, p_amount::bigint, p_price, settings.fee_bps);
    exception when sqlstate 'P0001' then
      refusal := sqlerrm;
    end;
  end if;

  ref := private.last_price(p_token);
  edge := private.band_edge(ref, p_side);
  -- The worst rank the order accepts, ranked as match_order ranks the other side.
  worst := case when p_type = 'market' and p_side = 'buy' then edge when p_type = 'market' then -edge
                when p_side = 'buy' then p_price else -p_price end;
  budget := case when p_side = 'buy' and p_type = 'market'
                 then case when uid is null then coalesce(p_max_total, 'Infinity') else least(cash, coalesce(p_max_total, cash)) end end;
  want := coalesce(p_amount, tok.total_supply)::bigint;
  remaining := want;

  for maker in
    select o.price, o.amount - o.filled as open_amount
      from public.orders o
     where o.token_id = p_token and o.side = other and o.status = 'open' and o.user_id is distinct from uid
       and (case when o.side = 'buy' then -o.price else o.price end) <= worst
     order by o.token_id, o.side, (case when o.side = 'buy' then -o.price else o.price end), o.created_at, o.id
  loop
    n := least(remaining, maker.open_amount);
    if budget is not null then
      n := private.affordable(n, maker.price, spent, budget, settings.fee_bps);
      if n <= 0 then stopped := 'cash'; exit; end if;
    end if;
    if level_price is distinct from maker.price then
      if level_amount > 0 then levels := levels || jsonb_build_object('price', level_price, 'amount', level_amount); end if;
      level_price := maker.price;
      level_amount := 0;
    end if;
    level_amount := level_amount + n;
    first_price := coalesce(first_price, maker.price);
    last_fill := maker.price;
    spent := spent + private.trade_value(maker.price, n);
    remaining := remaining - n;
    if remaining = 0 then stopped := 'filled'; exit; end if;
    if n < maker.open_amount then stopped := 'cash'; exit; end if; -- the budget stopped it within this order
  end loop;
  if level_amount > 0 then levels := levels || jsonb_build_object('price', level_price, 'amount', level_amount); end if;
  -- The walk ended at the order's bound with the book going on beyond it.
  if stopped = 'book' and exists (
    select 1 from public.orders o
     where o.token_id = p_token and o.side = other and o.status = 'open' and o.user_id is distinct from uid
       and (case when o.side = 'buy' then -o.price else o.price end) > worst) then
    stopped := 'limit';
  end if;
  filled := want - remaining;
  if p_amount is null then want := filled; remaining := 0; end if; -- "spend $50" asks for what the sum covers

  fee := private.fee(spent, settings.fee_bps);
  rests := p_type = 'limit' and remaining > 0 and coalesce(p_time_in_force, 'gtc') in ('gtc', 'gtd');
  if rests then
    rest_value := private.trade_value(p_price, remaining);
    rest_fee := private.fee(spent + rest_value, settings.fee_bps) - fee; -- one fee on the order's whole value
  end if;

  return jsonb_build_object(
    'side', p_side,
    'type', p_type,
    'amount', want,
    'filled', filled,
    'value', spent,
    'fee', fee,
    'total', case when p_side = 'buy' then spent + fee else spent - fee end,
    'average_price', case when spent > 0 then round(spent / filled, 2) end,
    'best_price', first_price,
    'worst_price', last_fill,
    'levels', levels,
    'remaining', remaining,
    'stopped_by', stopped,
    'resting', case when rests then remaining else 0 end,
    'rest_value', rest_value,
    'rest_fee', rest_fee,
    'rest_cost', case when p_side = 'buy' then rest_value + rest_fee else 0 end,
    'last_price', ref,
    'band_bps', settings.market_band_bps,
    'band_edge', edge,
    'impact_bps', case when last_fill is not null and ref > 0 then round((last_fill - ref) / ref * 10000) end,
    'best_bid', (select max(o.price) from public.orders o where o.token_id = p_token and o.side = 'buy' and o.status = 'open' and o.user_id is distinct from uid),
    'best_ask', (select min(o.price) from public.orders o where o.token_id = p_token and o.side = 'sell' and o.status = 'open' and o.user_id is distinct from uid),
    'fee_bps', settings.fee_bps,
    'cash', cash,
    'held', held,
    'blocked', blocked,
    'refusal', refusal
  );
end $function$;

revoke all on routine private.affordable(bigint,numeric,numeric,numeric,integer) from public;

revoke all on routine public.place_order(uuid,text,text,numeric,numeric,text,timestamp with time zone,boolean,numeric,numeric) from anon;
revoke all on routine public.place_order(uuid,text,text,numeric,numeric,text,timestamp with time zone,boolean,numeric,numeric) from public;

revoke all on routine public.quote_order(uuid,text,text,numeric,numeric,text,numeric) from anon;
revoke all on routine public.quote_order(uuid,text,text,numeric,numeric,text,numeric) from public;
