-- Placing an order (trading.sql has the engine's map): place_order, the book's lock, execute_order,
-- and the checks a request passes before anything is matched.

-- Places an order: the caller's, now, in one transaction. Returns what happened to it (filled,
-- resting, cancelled, or pending for a stop), its average price, value, fee and total. A trade it
-- makes may trigger waiting stops: they run in this same transaction (private.trigger_stops).
-- p_max_total caps what a market buy spends, fee included ("spend $50"): it buys the whole tokens
-- that sum covers, up to p_amount, and the rest stays cash. p_client_order_id makes a retry safe:
-- the same id from the same account within 24 hours returns the first order's result (with
-- "replayed": true) and places nothing (private.claim_client_order).
create function public.place_order(
  p_token uuid, p_side text, p_type text, p_amount numeric, p_price numeric default null,
  p_time_in_force text default 'gtc', p_expires_at timestamptz default null, p_post_only boolean default false,
  p_stop_price numeric default null, p_max_total numeric default null, p_client_order_id text default null
) returns jsonb language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  settings public.exchange_settings;
  tok public.tokens;
  result jsonb;
begin
  if p_client_order_id is not null then
    result := private.claim_client_order(p_client_order_id);
    if result is not null then return result; end if;
  end if;
  settings := private.check_order_request(auth.uid(), p_side, p_type, p_amount, p_price,
    p_time_in_force, p_expires_at, p_post_only, p_stop_price);
  tok := private.lock_book(p_token, p_amount);
  if p_max_total is not null then
    if p_side <> 'buy' or p_type <> 'market' or p_stop_price is not null then
      perform private.refuse('A spending limit (p_max_total) is for market buys only.');
    elsif p_max_total = 'NaN' or p_max_total <= 0 or p_max_total <> round(p_max_total, 2) then
      perform private.refuse('The amount to spend must be above $0.00, with at most two decimals.');
    end if;
  end if;
  if p_stop_price is not null then
    result := private.hold_stop(auth.uid(), tok, p_side, p_type, p_amount::bigint, p_price, p_stop_price,
      coalesce(p_time_in_force, 'gtc'), p_expires_at, settings.fee_bps);
  else
    result := private.execute_order(auth.uid(), tok, null, p_side, p_type, p_amount::bigint, p_price,
      coalesce(p_time_in_force, 'gtc'), p_expires_at, coalesce(p_post_only, false), settings.fee_bps, p_max_total);
    -- Stops run after a trade, where the book has any (one probe of the waiting stops' index).
    if (result->>'value')::numeric > 0 and exists (select 1 from public.orders o where o.token_id = p_token and o.status = 'pending') then
      perform private.trigger_stops(tok, settings.fee_bps);
    end if;
  end if;
  if p_client_order_id is not null then
    result := result || jsonb_build_object('client_order_id', p_client_order_id);
    update private.client_orders set answer = result
     where user_id = auth.uid() and client_order_id = p_client_order_id;
  end if;
  return result;
end $$;
revoke execute on function public.place_order(uuid, text, text, numeric, numeric, text, timestamp with time zone, boolean, numeric, numeric, text) from public, anon;

-- Orders placed with a client order id, and what placing them returned: a retry within 24 hours
-- gets that result back. Pruned after a day (sessions.sql, private.prune).
create table private.client_orders (
  user_id uuid not null references public.profiles (id) on delete cascade,
  client_order_id text not null,
  answer jsonb,
  created_at timestamptz not null default now(),
  primary key (user_id, client_order_id)
);

-- Claims a client order id for the caller's order: null when it is theirs to place now, else the
-- earlier order's result. A retry sent while the first is still running waits on the id's row
-- and then reads what the first returned; if the first was refused, nothing of it stays and the
-- retry places the order.
create function private.claim_client_order(p_id text) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := auth.uid();
  earlier jsonb;
begin
  if uid is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_scope('trade');
  if char_length(p_id) not between 1 and 64 or p_id !~ '^[A-Za-z0-9._:-]+$' then
    perform private.refuse('A client order id has 1 to 64 letters, digits or . _ : -');
  end if;
  delete from private.client_orders where user_id = uid and client_order_id = p_id and created_at < now() - interval '24 hours';
  insert into private.client_orders (user_id, client_order_id) values (uid, p_id) on conflict do nothing;
  if found then return null; end if;
  select answer into earlier from private.client_orders where user_id = uid and client_order_id = p_id;
  return earlier || jsonb_build_object('replayed', true);
end $$;
revoke execute on function private.claim_client_order(text) from public;

-- Places several orders (up to 20) in one call, each as place_order would, each on its own: one
-- that is refused (cash, a bad price, a halt) is reported with why and changes nothing, and the
-- others are placed all the same. It is not one transaction across books: a bot that needs
-- both or neither must check each result. Orders in one token keep their given order (their
-- time priority); different tokens' books are locked in token order, as the engine takes them.
-- Each element: {token, side, type, amount, price, time_in_force, expires_at, post_only,
-- stop_price, max_total, client_order_id}. Returns one result per order, in the order given:
-- place_order's, or {error}.
create function public.place_orders(p_orders jsonb) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  o record;
  results jsonb := '{}';
begin
  if auth.uid() is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_scope('trade');
  if jsonb_typeof(p_orders) is distinct from 'array' or jsonb_array_length(p_orders) not between 1 and 20 then
    perform private.refuse('Send 1 to 20 orders, as a JSON array.');
  end if;
  for o in select e.value as v, e.i from jsonb_array_elements(p_orders) with ordinality e (value, i)
           order by (case when jsonb_typeof(e.value) = 'object' then e.value ->> 'token' end) nulls first, e.i
  loop
    begin
      if jsonb_typeof(o.v) <> 'object' then perform private.refuse('Each order is a JSON object.'); end if;
      results := results || jsonb_build_object(o.i::text, public.place_order(
        (o.v ->> 'token')::uuid, o.v ->> 'side', o.v ->> 'type', (o.v ->> 'amount')::numeric, (o.v ->> 'price')::numeric,
        coalesce(o.v ->> 'time_in_force', 'gtc'), (o.v ->> 'expires_at')::timestamptz, coalesce((o.v ->> 'post_only')::boolean, false),
        (o.v ->> 'stop_price')::numeric, (o.v ->> 'max_total')::numeric, o.v ->> 'client_order_id'));
    exception when others then
      results := results || jsonb_build_object(o.i::text, jsonb_build_object('error',
        case when sqlstate in ('22P02', '22007', '22008') then 'Order ' || o.i || ': ' || sqlerrm else sqlerrm end));
    end;
  end loop;
  return (select jsonb_agg(results -> i::text order by i) from generate_series(1, jsonb_array_length(p_orders)) i);
end $$;
revoke execute on function public.place_orders(jsonb) from public, anon;

-- The book's lock: one order at a time per token. Refuses an unknown or halted token, one whose
-- offering is still open (offerings.sql), and an amount above its supply. Returns the token's row.
create function private.lock_book(p_token uuid, p_amount numeric) returns public.tokens
language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  tok public.tokens;
  offering_closes timestamptz;
begin
  select * into tok from public.tokens where id = p_token for no key update;
  if not found then raise exception 'There is no such token.' using errcode = 'P0001'; end if;
  select closes_at into offering_closes from public.offerings where token_id = p_token and closed_at is null;
  if offering_closes is not null then
    raise exception 'Trading in % opens when its offering closes (% UTC). Until then, place a bid in the offering.',
      tok.name, to_char(offering_closes at time zone 'UTC', 'YYYY-MM-DD HH24:MI') using errcode = 'P0001';
  end if;
  if tok.halt_reason is not null then
    raise exception 'Trading in % is halted: %. Cancelling open orders still works.', tok.name, rtrim(tok.halt_reason, '.')
      using errcode = 'P0001';
  end if;
  if p_amount > tok.total_supply then
    raise exception 'The amount cannot exceed the total supply of % tokens.', tok.total_supply using errcode = '22023';
  end if;
  return tok;
end $$;
revoke execute on function private.lock_book(uuid, numeric) from public;

-- Runs an order against the book and settles it. The caller holds the book's lock and has checked
-- the request. p_order is a triggered stop's row (null: a new order); p_budget caps what a buy
-- spends (a triggered stop-market buy spends no more than it reserved).
create function private.execute_order(
  p_user uuid, tok public.tokens, p_order bigint, p_side text, p_type text, p_amount bigint, p_price numeric,
  p_tif text, p_expires_at timestamptz, p_post_only boolean, p_bps integer, p_budget numeric
) returns jsonb language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
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
end $$;
revoke execute on function private.execute_order(uuid, public.tokens, bigint, text, text, bigint, numeric, text, timestamp with time zone, boolean, integer, numeric) from public;

-- A post-only order must not take liquidity, and a fill-or-kill order must fill entirely at once:
-- both are refused, in words, before anything is matched. Others' orders count for a fill-or-kill
-- (one's own are expired, never filled); any order at a crossing price refuses a post-only, as
-- nodejs-order-book does.
create function private.check_maker_terms(
  p_user uuid, tok public.tokens, p_side text, p_amount bigint, p_price numeric, p_post_only boolean
) returns void language plpgsql stable security definer set search_path = '' as $$
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
      perform private.refuse(format('Fill or kill: %s %s %s at %s or better right now, fewer than the %s asked, so nothing was placed.',
        private.tokens_of(offered, tok.name), case when offered = 1 then 'is' else 'are' end, case when p_side = 'buy' then 'offered' else 'bid for' end, private.money(p_price), p_amount));
    end if;
  end if;
end $$;
revoke execute on function private.check_maker_terms(uuid, public.tokens, text, bigint, numeric, boolean) from public;

-- A token's last price: its last trade's, or its issue price before a trade. PL/pgSQL: the
-- maintained figures are defined later, in market.sql.
create function private.last_price(p_token uuid) returns numeric
language plpgsql stable security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
begin
  return coalesce((select s.price from private.token_stats s where s.token_id = p_token),
                  (select t.issue_price from public.tokens t where t.id = p_token));
end $$;
revoke execute on function private.last_price(uuid) from public;

-- The furthest price a market order accepts, `ref` moved by the market band
-- (exchange_settings.market_band_bps), rounded to the cent inward: the most a buy pays, the least
-- a sell accepts. PL/pgSQL so that its plan is kept: an SQL function with SET is planned at every
-- call, and every market order calls this.
create function private.band_edge(ref numeric, p_side text) returns numeric
language plpgsql stable security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
begin
  return (select case when p_side = 'buy' then floor(ref * (1 + e.market_band_bps / 10000.0) * 100) / 100
                      else ceil(ref * (1 - e.market_band_bps / 10000.0) * 100) / 100 end
          from public.exchange_settings e);
end $$;
revoke execute on function private.band_edge(numeric, text) from public;

-- The request's checks, before the book's lock: who is asking, what, and the exchange's limits.
-- Returns the settings row, read once for the whole order. A limit or stop order also takes the
-- person's row first, so that orders placed at once cannot pass the open-order count together.
create function private.check_order_request(
  p_user uuid, p_side text, p_type text, p_amount numeric, p_price numeric,
  p_tif text default 'gtc', p_expires_at timestamptz default null, p_post_only boolean default false,
  p_stop_price numeric default null
) returns public.exchange_settings language plpgsql security definer set search_path = ''
set plan_cache_mode = force_generic_plan as $$
declare
  settings public.exchange_settings;
  read record;
  tif text := coalesce(p_tif, 'gtc');
begin
  if p_user is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_second_step();
  perform private.require_scope('trade');
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
  if p_type = 'limit' or p_stop_price is not null then
    -- The person's row, before any book: two orders at once cannot both pass the count.
    perform 1 from public.profiles where id = p_user for no key update;
  end if;
  if (p_type = 'limit' or p_stop_price is not null)
     and (select count(*) from public.orders where user_id = p_user and status in ('open', 'pending')) >= settings.max_open_orders then
    raise exception 'You have % open orders, the most allowed. Cancel one before placing another limit or stop order.',
      settings.max_open_orders using errcode = 'P0001';
  end if;
  return settings;
end $$;
revoke execute on function private.check_order_request(uuid, text, text, numeric, numeric, text, timestamp with time zone, boolean, numeric) from public;

-- How long an order lives: a time in force the engine knows, and a good-til-date's expiry, between
-- one minute and 90 days from now.
create function private.check_lifetime(tif text, p_expires_at timestamptz)
returns void language plpgsql stable security definer set search_path = '' as $$
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
end $$;
revoke execute on function private.check_lifetime(text, timestamp with time zone) from public;

-- How long an order lives, whether it may take liquidity, and its trigger: each term on its own,
-- then the terms together.
create function private.check_order_terms(
  settings public.exchange_settings, p_type text, tif text, p_expires_at timestamptz, p_post_only boolean, p_stop_price numeric
) returns void language plpgsql stable security definer set search_path = '' as $$
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
end $$;
revoke execute on function private.check_order_terms(public.exchange_settings, text, text, timestamp with time zone, boolean, numeric) from public;

-- What the caller can spend or sell now: for a sell, the tokens not held back; for a limit buy,
-- enough available cash for its value and fee (with `p_released`, cash a change would release
-- first, counted in). Returns the available cash (0 for a sell). Run again after the accounts'
-- locks, so what was read before them still holds.
create function private.check_order_funds(
  p_user uuid, p_token uuid, p_token_name text, p_side text, p_type text, p_amount bigint, p_price numeric, p_bps integer,
  p_released numeric default 0
) returns numeric language plpgsql stable security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  have numeric;
  vesting bigint;
  budget numeric;
begin
  if p_side = 'sell' then
    select coalesce(max(available), 0), coalesce(max(locked), 0) into have, vesting
      from public.holdings where user_id = p_user and token_id = p_token;
    if have < p_amount then
      raise exception 'You have % available to sell%; this order needs %.', private.tokens_of(have, p_token_name),
        case when vesting > 0 then format(' (%s more are still vesting)', vesting) else '' end, p_amount using errcode = 'P0001';
    end if;
    return 0;
  end if;
  select coalesce(max(available), 0) + p_released into budget from public.cash_accounts where user_id = p_user;
  if p_type = 'limit' and budget < private.buy_cost(p_price, p_amount, p_bps) then
    raise exception 'Insufficient funds: this order needs % (value + % fee) and you have % available.',
      private.money(private.buy_cost(p_price, p_amount, p_bps)),
      trim_scale(p_bps / 100.0)::text || '%', private.money(budget) using errcode = 'P0001';
  end if;
  return budget;
end $$;
revoke execute on function private.check_order_funds(uuid, uuid, text, text, text, bigint, numeric, integer, numeric) from public;
