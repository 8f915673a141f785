-- What an order would do if it were placed now: the order panel's estimate, from the engine's own
-- rules (trading.sql has the engine's map), so that the screen and the engine cannot disagree.

-- Walks the other side of a token's book for `p_user`'s order as match_order does, without locking
-- or writing: others' open orders (never the user's own, which the engine expires) in rank order,
-- up to `p_worst` (ranked as match_order ranks: a buy's highest price, minus a sell's lowest), for
-- `p_want` tokens, a market buy within `p_budget` by the engine's budget rule (private.affordable).
-- Returns the tokens it fills, their value, the levels met [{price, amount}], the first and last
-- prices, and what stopped it: 'filled', 'cash', 'limit' (the bound, with the book going on beyond
-- it), 'band' (the next order lies beyond the volatility band: `beyond` is its price, `reference`
-- the band's centre; placed, the order would start a volatility auction, auctions.sql) or 'book'
-- (the book ran out).
create function private.walk_book(
  p_user uuid, p_token uuid, p_side text, p_worst numeric, p_want bigint, p_budget numeric, p_bps integer,
  out filled bigint, out spent numeric, out levels jsonb, out first_price numeric, out last_fill numeric, out stopped text,
  out beyond numeric, out reference numeric
) language plpgsql stable security definer set search_path = '' as $$
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
end $$;
revoke execute on function private.walk_book(uuid, uuid, text, numeric, bigint, numeric, integer) from public;

-- The first thing the engine's term checks would refuse of an order, in its words, and the term it
-- is about ('expires_at', 'stop_price', 'price', 'take_profit', or 'terms' for the others), so that
-- the panel says it beside that field: the checks place_order and place_oco run, in their order.
create function private.quote_terms(
  settings public.exchange_settings, p_side text, p_type text, p_price numeric, p_tif text, p_expires_at timestamptz,
  p_post_only boolean, p_stop numeric, p_take_profit numeric, last numeric, out term text, out message text
) language plpgsql stable security definer set search_path = '' as $$
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
end $$;
revoke execute on function private.quote_terms(public.exchange_settings, text, text, numeric, text, timestamp with time zone, boolean, numeric, numeric, numeric) from public;

-- A stop's figures, which trade later on a book not yet known: its value and fee at the price it
-- is figured at (a stop-limit's limit, a stop-market's trigger), the cash a buy stop holds back
-- (private.hold_stop's reservation: at its limit, or at the band's edge from its trigger, the most
-- a market buy may pay there), the most tokens the caller's cash (or holding) allows at that, and
-- what the engine's funds check would refuse of it.
create function private.quote_stop(
  p_user uuid, tok public.tokens, p_bps integer, p_side text, p_amount bigint, p_price numeric, p_stop numeric,
  p_cash numeric, p_held bigint
) returns jsonb language plpgsql stable security definer set search_path = '' as $$
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
end $$;
revoke execute on function private.quote_stop(uuid, public.tokens, integer, text, bigint, numeric, numeric, numeric, bigint) from public;

-- Walks the book as match_order would for the caller's order, without locking or writing anything:
-- others' open orders on the other side in rank order, within the order's limit price or, for a
-- market order, the band around the last price; a market buy stops where the caller's cash (or
-- p_max_total, "spend $50") runs out, by the engine's rule for a budget (private.affordable). The
-- caller's own orders are skipped, as the engine expires them. p_amount may be null for a market buy
-- with p_max_total: then the walk buys as many tokens as the sum covers.
--
-- A stop (p_stop_price; p_type is what it becomes when triggered) does not walk: it waits for a
-- price, and its figures are at its trigger (private.quote_stop). Its amount may be null, to check
-- its terms before the amount is typed.
--
-- Returns, in numbers the panel formats:
--   filled, value, fee, total (a buy pays value + fee, a sell receives value - fee),
--   average_price, best_price and worst_price of the fills, levels [{price, amount}] met;
--   remaining, what did not fill at once, and why (stopped_by: 'filled', 'cash', 'limit' for a
--   limit price or the market band, 'band' for the volatility band, which the order would meet and
--   so start a volatility auction, 'book' when the book ran out, 'stop' for a stop, which waits);
--   band_beyond and band_reference, the price beyond the volatility band the order would meet and
--   the band's centre (volatility_band_bps its width);
--   resting, what of it would wait
--   on the book (a limit order good til cancelled or a date), rest_value at its limit, rest_fee (the
--   fee's rise when it fills) and, for a buy, rest_cost, the cash it holds back;
--   at_trigger, a stop's {price, value, fee, total, proceeds, hold, max_amount} (null for an order now);
--   last_price, band_bps, band_edge (the furthest price a market order meets), impact_bps (how far
--   the worst fill lies from the last price), best_bid, best_ask (others' orders);
--   cash and held (what the caller may spend and sell); blocked, a halt (or, in a volatility
--   auction, an order that cannot join it); term_refusal, the first of the order's terms the
--   engine would refuse, {term, message} (private.quote_terms); and refusal, what the engine's
--   funds check (or, for a post-only or fill-or-kill limit, its maker terms) would refuse the order
--   with, each in the engine's words.
create function public.quote_order(
  p_token uuid, p_side text, p_type text default 'market', p_amount numeric default null,
  p_price numeric default null, p_time_in_force text default 'gtc', p_max_total numeric default null,
  p_post_only boolean default false, p_stop_price numeric default null, p_expires_at timestamptz default null,
  p_take_profit numeric default null
) returns jsonb language plpgsql stable security definer set search_path = '' as $$
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
end $$;
revoke execute on function public.quote_order(uuid, text, text, numeric, numeric, text, numeric, boolean, numeric, timestamp with time zone, numeric) from public, anon;
