-- quote_knows_the_band: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

drop routine if exists private.walk_book(uuid,uuid,text,numeric,bigint,numeric,integer);

CREATE OR REPLACE FUNCTION private.band_refusal(tok public.tokens, p_beyond numeric, p_reference numeric)
 RETURNS text
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select format('Fill or kill: at %s this order would trade beyond the volatility band around %s''s reference price of %s, so nothing was placed.',
    private.money(p_beyond), tok.name, private.money(p_reference))
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
    perform private.refuse(private.band_refusal(tok, matched.beyond, matched.reference));
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

CREATE OR REPLACE FUNCTION private.walk_book(p_user uuid, p_token uuid, p_side text, p_worst numeric, p_want bigint, p_budget numeric, p_bps integer, OUT filled bigint, OUT spent numeric, OUT levels jsonb, OUT first_price numeric, OUT last_fill numeric, OUT stopped text, OUT beyond numeric, OUT reference numeric)
 RETURNS record
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  other text := case when p_side = 'buy' then 'sell' else 'buy' end;
  remaining bigint := p_want;
  level_price numeric;
  level_amount bigint := 0;
  maker record;
  n bigint;
  band_read boolean := false;
  low numeric;
  high numeric;
begin
  spent := 0;
  levels := '[]';
  stopped := 'book';
  for maker in
    select o.price, o.amount - o.filled as open_amount
      from public.orders o
     where o.token_id = p_token and o.side = other and o.status = 'open' and o.user_id is distinct from p_user
       and (case when o.side = 'buy' then -o.price else o.price end) <= p_worst
     order by o.token_id, o.side, (case when o.side = 'buy' then -o.price else o.price end), o.created_at, o.id
  loop
    if not band_read then
      select v.reference, v.low, v.high into reference, low, high from private.volatility_band(p_token) v;
      band_read := true;
    end if;
    if maker.price < low or maker.price > high then stopped := 'band'; beyond := maker.price; exit; end if;
    n := least(remaining, maker.open_amount);
    if p_budget is not null then
      n := private.affordable(n, maker.price, spent, p_budget, p_bps);
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
     where o.token_id = p_token and o.side = other and o.status = 'open' and o.user_id is distinct from p_user
       and (case when o.side = 'buy' then -o.price else o.price end) > p_worst) then
    stopped := 'limit';
  end if;
  filled := p_want - remaining;
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
           null::numeric as last_fill, 'stop'::text as stopped, null::numeric as beyond, null::numeric as reference into walk;
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
    -- A fill-or-kill that would reach beyond the volatility band: the engine refuses it so.
    if walk.stopped = 'band' and p_time_in_force = 'fok' and refusal is null then
      refusal := private.band_refusal(tok, walk.beyond, walk.reference);
    end if;
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
    'band_beyond', walk.beyond,
    'band_reference', walk.reference,
    'volatility_band_bps', settings.volatility_band_bps,
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

revoke all on routine private.walk_book(uuid,uuid,text,numeric,bigint,numeric,integer) from public;

revoke all on routine private.band_refusal(public.tokens,numeric,numeric) from public;
