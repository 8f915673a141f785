-- quote_stops: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

drop routine if exists public.quote_order(uuid,text,text,numeric,numeric,text,numeric,boolean);

CREATE OR REPLACE FUNCTION private.check_lifetime(tif text, p_expires_at timestamp with time zone)
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
end $function$;

CREATE OR REPLACE FUNCTION private.check_order_terms(settings public.exchange_settings, p_type text, tif text, p_expires_at timestamp with time zone, p_post_only boolean, p_stop_price numeric)
 RETURNS void
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  perform private.check_lifetime(tif, p_expires_at);
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

CREATE OR REPLACE FUNCTION private.check_take_profit(p_take_profit numeric, last numeric)
 RETURNS void
 LANGUAGE plpgsql
 IMMUTABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if p_take_profit <= last then
    perform private.refuse(format('A take-profit sells above the last price of %s: set it higher, or sell now with a market or limit order.',
      private.money(last)));
  end if;
end $function$;

CREATE OR REPLACE FUNCTION private.quote_stop(p_user uuid, tok public.tokens, p_bps integer, p_side text, p_amount bigint, p_price numeric, p_stop numeric, p_cash numeric, p_held bigint)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  price numeric := coalesce(p_price, p_stop);
  held_at numeric := coalesce(p_price, private.band_edge(p_stop, 'buy'));
  amount bigint := coalesce(p_amount, 0);
  value numeric := private.trade_value(price, amount);
  refusal text;
begin
  if p_user is not null and p_amount is not null then
    begin
      perform private.check_order_funds(p_user, tok.id, tok.name, p_side, 'limit', p_amount,
        case when p_side = 'buy' then held_at else p_price end, p_bps);
    exception when sqlstate 'P0001' then
      refusal := sqlerrm;
    end;
  end if;
  return jsonb_build_object(
    'at_trigger', jsonb_build_object('price', price, 'value', value, 'fee', private.fee(value, p_bps),
      'total', value + private.fee(value, p_bps), 'proceeds', value - private.fee(value, p_bps),
      'hold', case when p_side = 'buy' then private.buy_cost(held_at, amount, p_bps) else 0 end,
      'max_amount', case when p_side = 'buy' then private.affordable(tok.total_supply, held_at, 0, p_cash, p_bps) else p_held end),
    'refusal', refusal);
end $function$;

CREATE OR REPLACE FUNCTION private.quote_terms(settings public.exchange_settings, p_side text, p_type text, p_price numeric, p_tif text, p_expires_at timestamp with time zone, p_post_only boolean, p_stop numeric, p_take_profit numeric, last numeric, OUT term text, OUT message text)
 RETURNS record
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  term := 'expires_at';
  perform private.check_lifetime(p_tif, p_expires_at);
  term := 'terms';
  perform private.check_order_terms(settings, p_type, p_tif, p_expires_at, p_post_only, p_stop);
  if p_take_profit is not null then
    term := 'take_profit';
    perform private.check_take_profit(p_take_profit, last);
  end if;
  if p_stop is not null then
    term := 'stop_price';
    perform private.check_stop_terms(p_side, 'market', null, p_stop, last); -- the trigger's side alone
    term := 'price';
    perform private.check_stop_terms(p_side, p_type, p_price, p_stop, last);
  end if;
  term := null;
exception when sqlstate 'P0001' then
  message := sqlerrm; -- a variable keeps its value through the exception: `term` names the check that refused
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
  perform private.check_take_profit(p_take_profit, private.last_price(p_token));
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
    worst := case when p_type = 'market' and p_side = 'buy' then edge when p_type = 'market' then -edge
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

revoke all on routine private.check_lifetime(text,timestamp with time zone) from public;

revoke all on routine private.check_take_profit(numeric,numeric) from public;

revoke all on routine private.quote_stop(uuid,public.tokens,integer,text,bigint,numeric,numeric,numeric,bigint) from public;

revoke all on routine private.quote_terms(public.exchange_settings,text,text,numeric,text,timestamp with time zone,boolean,numeric,numeric,numeric) from public;

revoke all on routine public.quote_order(uuid,text,text,numeric,numeric,text,numeric,boolean,numeric,timestamp with time zone,numeric) from anon;
revoke all on routine public.quote_order(uuid,text,text,numeric,numeric,text,numeric,boolean,numeric,timestamp with time zone,numeric) from public;
