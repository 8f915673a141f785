-- Trading: the order book and the engine that matches it. Each call is one transaction.
--
-- The order path, top to bottom in this file:
--
--   place_order = check_order_request -> lock the book -> check_order_funds -> match_order
--                 -> lock the accounts -> settle_fills -> rest what is left -> write the order
--                 -> tell the market and the accounts involved (realtime.sql)
--
-- Matching is price-time priority against the token's book, at the resting order's price.
-- Fees (spec section 9): a share of value on each side (exchange_settings.fee_bps, 2%); the buyer
-- pays value + fee, the seller receives value - fee; both are the exchange's revenue, recorded on
-- the trade row and summed for reports (no hot 'fees' row).
--
-- Locking, always in this order, so there are no deadlocks:
--   1. the token row (one book at a time: two orders for one token never take the same liquidity),
--   2. the resting orders of that book, each as the match reaches it,
--   3. the cash accounts, then the holdings, of every account involved, in ascending user id.
--
-- Self-trade policy (expire maker, as common exchanges and nodejs-order-book define it): an order
-- never trades with its owner's own resting orders; each one the order meets while matching is
-- cancelled, its reservation released, and matching goes on. The book never crosses.
--
-- Market orders are immediate-or-cancel within a band around the last price: they take the best
-- prices until filled, the book runs out or the band's edge is reached, and never spend more than
-- the buyer's available cash; what cannot fill is cancelled. A market order that cannot fill at
-- all is refused and changes nothing.
--
-- The engine's functions keep one generic plan per connection (plan_cache_mode): none of their
-- statements changes shape with its values (rows are found by key, the book by its index in rank
-- order), and a fresh plan for each of an order's statements costs more than running it.

create table public.orders (
  id bigint generated always as identity primary key,
  user_id uuid not null references public.profiles (id) on delete cascade,
  token_id uuid not null references public.tokens (id) on delete cascade,
  side text not null check (side in ('buy', 'sell')),
  type text not null check (type in ('market', 'limit')),
  price numeric(12, 2) check (price > 0),
  amount bigint not null check (amount > 0),
  filled bigint not null default 0 check (filled >= 0 and filled <= amount),
  -- Cash still held back for a resting buy order (value + fee of what is left, at its limit).
  reserved numeric(14, 2) not null default 0 check (reserved >= 0),
  -- open: on the book; pending: a stop waiting off the book for its trigger; filled, cancelled,
  -- expired (a good-til-date order past its time): closed.
  status text not null default 'open' check (status in ('open', 'pending', 'filled', 'cancelled', 'expired')),
  -- The order's time in the book: taken after the book's lock, so it follows every order before it.
  created_at timestamptz not null default now(),
  -- Fees are charged on each order's cumulative value: a fill pays fee(value filled so far) minus
  -- the fees the order already paid. So an order's fees come to the fee of its whole value, never
  -- a cent more than a resting buy reserved, however it is filled.
  filled_value numeric(14, 2) not null default 0 check (filled_value >= 0),
  fees_paid numeric(14, 2) not null default 0 check (fees_paid >= 0),
  -- When the order stopped being open (filled or cancelled): spoofing is about how fast (fraud.sql).
  closed_at timestamptz,
  check ((type = 'limit') = (price is not null)),
  -- How long the order lives (docs/trading.md): gtc until cancelled, ioc fills what crosses and
  -- cancels the rest, fok fills entirely at once or is refused, gtd until expires_at.
  time_in_force text not null default 'gtc' check (time_in_force in ('gtc', 'ioc', 'fok', 'gtd')),
  expires_at timestamptz,
  -- A post-only order was refused if it would have taken liquidity: it only ever made it.
  post_only boolean not null default false,
  -- A stop: off the book until the last trade price reaches stop_price (at or above it for a buy,
  -- at or below it for a sell); then it enters the book as its type, at triggered_at.
  stop_price numeric(12, 2) check (stop_price > 0),
  triggered_at timestamptz,
  -- One-cancels-the-other: the take-profit limit and the stop of one pair name each other.
  oco_with bigint,
  check ((time_in_force = 'gtd') = (expires_at is not null)),
  check (status <> 'pending' or stop_price is not null)
);
create index orders_user_idx on public.orders (user_id, created_at desc);
-- The book, each side best first: rank is the price for asks and minus the price for bids, then
-- oldest first, then id (price-time priority). The match scans the other side in this order and
-- its price limit bounds the scan; the order book view reads the same index.
create index orders_book_rank_idx on public.orders
  (token_id, side, (case when side = 'buy' then -price else price end), created_at, id) where status = 'open';
-- A user's open orders newest first, all tokens or one: each list read in its index's order, so a
-- page stops at its end (list_open_orders).
create index orders_open_user_rank_idx on public.orders (user_id, created_at desc, id desc) where status in ('open', 'pending');
create index orders_open_user_token_idx on public.orders (user_id, token_id, created_at desc, id desc) where status in ('open', 'pending');
-- Each book's waiting stops, the one its trigger crossed first at the head: the lowest buy
-- trigger, the highest sell trigger, then the oldest (private.trigger_stops).
create index orders_stops_idx on public.orders
  (token_id, side, (case when side = 'buy' then stop_price else -stop_price end), id) where status = 'pending';
-- Good-til-date orders still live, soonest first (private.expire_orders).
create index orders_expiry_idx on public.orders (expires_at) where status in ('open', 'pending') and expires_at is not null;
alter table public.orders enable row level security;
create policy "own orders" on public.orders
  for select to authenticated using (user_id = (select auth.uid()) or (select private.is_admin()));
revoke all on public.orders from anon;
revoke insert, update, delete, truncate on public.orders from authenticated;

-- A trade's value: price x tokens, rounded half up to the cent. Its one definition, read by the
-- trades' generated column and by the engine before a trade exists (an order's cost, a fill).
create function private.trade_value(price numeric, amount numeric) returns numeric
language sql immutable parallel safe as $$ select round(price * amount, 2) $$;
revoke execute on function private.trade_value(numeric, numeric) from public;

-- The exchange's fee rate, read once per order so that the fees and their record agree; and the
-- fee on `value` at `bps` basis points, rounded half up to the cent.
create function private.fee_bps() returns integer
language plpgsql stable security definer set search_path = '' as $$
declare
  bps integer;
begin
  select fee_bps into bps from public.exchange_settings;
  return bps;
end $$;
revoke execute on function private.fee_bps() from public;
create function private.fee(value numeric, bps integer) returns numeric
language sql immutable as $$ select round(value * bps / 10000.0, 2) $$;
revoke execute on function private.fee(numeric, integer) from public;

-- What buying `amount` at `price` costs: its value and the fee on it at `bps`.
create function private.buy_cost(price numeric, amount numeric, bps integer) returns numeric
language sql immutable as $$ select private.trade_value(price, amount) + private.fee(private.trade_value(price, amount), bps) $$;
revoke execute on function private.buy_cost(numeric, numeric, integer) from public;

-- Every fill. Both fees are recorded with the rate they were charged at.
create table public.trades (
  id bigint generated always as identity primary key,
  token_id uuid not null references public.tokens (id) on delete cascade,
  -- An order is written once it is settled (place_order), after the trades that name it: these
  -- references are checked at commit.
  buy_order_id bigint references public.orders (id) deferrable initially deferred,
  sell_order_id bigint references public.orders (id) deferrable initially deferred,
  buyer_id uuid not null references public.profiles (id),
  seller_id uuid not null references public.profiles (id),
  price numeric(12, 2) not null check (price > 0),
  amount bigint not null check (amount > 0),
  value numeric generated always as (private.trade_value(price, amount)) stored,
  taker_side text not null check (taker_side in ('buy', 'sell')),
  buyer_fee numeric(14, 2) not null check (buyer_fee >= 0),
  seller_fee numeric(14, 2) not null check (seller_fee >= 0),
  created_at timestamptz not null default now(),
  fee_bps integer not null check (fee_bps between 0 and 1000),
  -- Who receives a sale's proceeds when it is not the seller: the person behind an offering.
  proceeds_to uuid references public.profiles (id),
  -- The person behind the token, credited creator_share of the two fees in the trade's transaction
  -- (exchange_settings.creator_fee_share_bps); the exchange keeps the rest.
  creator_id uuid references public.profiles (id),
  creator_share numeric(14, 2) not null default 0 check (creator_share >= 0 and creator_share <= buyer_fee + seller_fee),
  check (buyer_id <> seller_id)
);
create index trades_token_time_idx on public.trades (token_id, created_at desc, id desc);
create index trades_buyer_idx on public.trades (buyer_id, created_at desc);
create index trades_seller_idx on public.trades (seller_id, created_at desc);
create index trades_proceeds_idx on public.trades (proceeds_to, created_at desc) where proceeds_to is not null;
create index trades_creator_idx on public.trades (creator_id, created_at desc) where creator_share > 0;
alter table public.trades enable row level security;
create policy "own trades" on public.trades
  for select to authenticated
  using (buyer_id = (select auth.uid()) or seller_id = (select auth.uid()) or proceeds_to = (select auth.uid())
         or creator_id = (select auth.uid()) or (select private.is_admin()));
revoke all on public.trades from anon;
revoke insert, update, delete, truncate on public.trades from authenticated;

-- Places an order: the caller's, now, in one transaction. Returns what happened to it (filled,
-- resting, cancelled, or pending for a stop), its average price, value, fee and total. A trade it
-- makes may trigger waiting stops: they run in this same transaction (private.trigger_stops).
create function public.place_order(
  p_token uuid, p_side text, p_type text, p_amount numeric, p_price numeric default null,
  p_time_in_force text default 'gtc', p_expires_at timestamptz default null, p_post_only boolean default false,
  p_stop_price numeric default null
) returns jsonb language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
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
end $$;
revoke execute on function public.place_order(uuid, text, text, numeric, numeric, text, timestamp with time zone, boolean, numeric) from public, anon;

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

  -- The market hears the levels this order rested at or expired (its trades' levels are read with
  -- them); the accounts whose orders traded, and the person whose fee share came, hear of it.
  perform private.tell_market(tok.id, case when matched.spent_value > 0 then 'trade' else 'book' end,
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
  );
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
      perform private.refuse(format('Fill or kill: %s %s tokens are %s at %s or better right now, fewer than the %s asked, so nothing was placed.',
        offered, tok.name, case when p_side = 'buy' then 'offered' else 'bid for' end, private.money(p_price), p_amount));
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

-- Holds a stop off the book until its trigger (private.trigger_stops), reserving now what it may
-- spend, as a resting order does: a sell its tokens; a stop-limit buy its limit's value and fee; a
-- stop-market buy the value and fee of its amount at the band's edge from the trigger, the most a
-- market buy may pay when the price reaches the trigger (should the price be beyond by then, it
-- fills what that covers and cancels the rest). The stop leg of a pair (p_oco_with) shares its
-- take-profit's tokens and reserves none of its own.
create function private.hold_stop(
  p_user uuid, tok public.tokens, p_side text, p_type text, p_amount bigint, p_price numeric, p_stop numeric,
  p_tif text, p_expires_at timestamptz, p_bps integer, p_oco_with bigint default null
) returns jsonb language plpgsql security definer set search_path = '' as $$
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
  perform private.tell_accounts(array[p_user], 'orders', tok.id); -- a stop waits off the book: the market sees nothing
  return jsonb_build_object('order_id', v_order, 'status', 'pending', 'side', p_side, 'type', p_type,
    'time_in_force', p_tif, 'amount', p_amount, 'filled', 0, 'resting', 0, 'stop_price', p_stop,
    'average_price', null, 'value', 0, 'fee', 0, 'total', 0, 'reserved', cost);
end $$;
revoke execute on function private.hold_stop(uuid, public.tokens, text, text, bigint, numeric, numeric, text, timestamp with time zone, integer, bigint) from public;

-- A stop waits for the price to move to it: a buy stop's trigger above the last price, a sell
-- stop's below (at it, it would trigger at once). A stop-limit's limit lies on the far side of its
-- trigger, so that it can trade once triggered: at or above it for a buy, at or below for a sell.
create function private.check_stop_terms(p_side text, p_type text, p_price numeric, p_stop numeric, last numeric)
returns void language plpgsql stable security definer set search_path = '' as $$
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
end $$;
revoke execute on function private.check_stop_terms(text, text, numeric, numeric, numeric) from public;

-- Runs the book's stops that the last price has reached, in the transaction of the trade that moved
-- it. One at a time, in a fixed order: buy stops before sell stops, the trigger the price crossed
-- first (lowest buy, highest sell), then the oldest; the last price is read again after each, so
-- one stop's fills may trigger the next (a cascade). Each stop enters the book at its trigger's
-- time as its owner's order, through the same engine, fees and band. One that cannot trade then (a
-- market stop facing an empty book or band, a fill-or-kill that cannot fill, funds that changed) is
-- cancelled and its reservation released, without undoing the trade that triggered it. At most
-- 1,000 stops run per transaction; any left wait for the next trade. Returns how many ran.
--
-- A stop's accounts are locked after the accounts of the trade that triggered it, so not in the
-- engine's ascending order: another trade, in another token, may hold one of them and wait for one
-- of ours (a deadlock, which PostgreSQL would end by failing one of the two orders). So a stop
-- waits at most 100 ms for a lock; one that cannot have it is left waiting, the cascade ends, the
-- trade commits, and private.run_due_stops runs the stop within seconds.
create function private.trigger_stops(tok public.tokens, p_bps integer) returns integer
language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
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
end $$;
revoke execute on function private.trigger_stops(public.tokens, integer) from public;

-- Runs the stops whose trigger the last price has reached but that a trade's transaction left
-- waiting (their accounts were busy: private.trigger_stops), each book's lock first. Run every few
-- seconds by the local server's scheduler; on a hosted project by pg_cron (supabase/cron.sql).
create function private.run_due_stops() returns integer
language plpgsql security definer set search_path = '' as $$
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
    if tok.halt_reason is null then n := n + private.trigger_stops(tok, private.fee_bps()); end if;
  end loop;
  return n;
end $$;
revoke execute on function private.run_due_stops() from public;

-- A take-profit and a stop on one holding, one cancelling the other, in one transaction: a sell
-- limit above the last price and a sell stop (market, or limit at p_stop_limit) below it, on one
-- reservation of the tokens, held by the take-profit. When the take-profit fills, the stop is
-- cancelled; when it partly fills, the stop shrinks to what is left (private.oco_follow); when the
-- stop triggers, the take-profit is cancelled; cancelling either cancels both. Holdings are never
-- short, so a pair protects a holding: it sells.
create function public.place_oco(
  p_token uuid, p_amount numeric, p_take_profit numeric, p_stop_price numeric, p_stop_limit numeric default null,
  p_time_in_force text default 'gtc', p_expires_at timestamptz default null
) returns jsonb language plpgsql security definer set search_path = '' as $$
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
end $$;
revoke execute on function public.place_oco(uuid, numeric, numeric, numeric, numeric, text, timestamp with time zone) from public, anon;

-- A pair's take-profit filled: all of it cancels its stop; part of it shrinks the stop to what is
-- left, so the stop never sells tokens the take-profit sold.
create function private.oco_follow() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if new.filled = new.amount then
    update public.orders set status = 'cancelled' where id = new.oco_with and status = 'pending' and triggered_at is null;
  else
    update public.orders set amount = new.amount - new.filled where id = new.oco_with and status = 'pending' and triggered_at is null;
  end if;
  return null;
end $$;
revoke execute on function private.oco_follow() from public;
create trigger orders_oco_follow after update of filled on public.orders
  for each row when (new.oco_with is not null and new.stop_price is null and new.filled > old.filled)
  execute function private.oco_follow();

-- Expires good-til-date orders past their time, each book's lock first, as the engine takes them;
-- their reservations are released. Run every few seconds by the local server's scheduler; on a
-- hosted project by pg_cron (supabase/cron.sql).
create function private.expire_orders() returns integer
language plpgsql security definer set search_path = '' as $$
declare
  o record;
  n integer := 0;
begin
  for o in
    select id, token_id, user_id from public.orders
    where status in ('open', 'pending') and expires_at is not null and expires_at <= now()
    order by expires_at limit 500
  loop
    perform 1 from public.tokens where id = o.token_id for no key update;
    perform private.release_order(o.id, 'expired');
    perform private.tell_market(o.token_id, 'book', private.order_levels(array[o.id]));
    perform private.tell_accounts(array[o.user_id], 'orders', o.token_id);
    n := n + 1;
  end loop;
  return n;
end $$;
revoke execute on function private.expire_orders() from public;

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

-- How long an order lives, whether it may take liquidity, and its trigger: each term on its own,
-- then the terms together.
create function private.check_order_terms(
  settings public.exchange_settings, p_type text, tif text, p_expires_at timestamptz, p_post_only boolean, p_stop_price numeric
) returns void language plpgsql stable security definer set search_path = '' as $$
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
end $$;
revoke execute on function private.check_order_terms(public.exchange_settings, text, text, timestamp with time zone, boolean, numeric) from public;

-- What the caller can spend or sell now: for a sell, the tokens not held back; for a limit buy,
-- enough available cash for its value and fee. Returns the available cash (0 for a sell). Run
-- again after the accounts' locks, so what was read before them still holds.
create function private.check_order_funds(
  p_user uuid, p_token uuid, p_token_name text, p_side text, p_type text, p_amount bigint, p_price numeric, p_bps integer
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
      raise exception 'You have % % tokens available to sell%; this order needs %.', have, p_token_name,
        case when vesting > 0 then format(' (%s more are still vesting)', vesting) else '' end, p_amount using errcode = 'P0001';
    end if;
    return 0;
  end if;
  select coalesce(max(available), 0) into budget from public.cash_accounts where user_id = p_user;
  if p_type = 'limit' and budget < private.buy_cost(p_price, p_amount, p_bps) then
    raise exception 'Insufficient funds: this order needs % (value + % fee) and you have % available.',
      private.money(private.buy_cost(p_price, p_amount, p_bps)),
      trim_scale(p_bps / 100.0)::text || '%', private.money(budget) using errcode = 'P0001';
  end if;
  return budget;
end $$;
revoke execute on function private.check_order_funds(uuid, uuid, text, text, text, bigint, numeric, integer) from public;

-- Matches against the other side of the book, in rank order, locking each resting order as it is
-- reached and stopping when the order is filled. Returns the fills (as JSON for settle_fills), the
-- caller's own orders met (to expire), what is left, the value spent and the makers met (whose
-- accounts place_order locks).
--
-- A market order trades within a band around the last price: a market buy pays at most, and a
-- market sell accepts at least, the token's last price (its issue price before a trade) moved by
-- exchange_settings.market_band_bps, rounded to the cent inward. On a thin book one ask far above
-- the last price would otherwise fill a market buy there, while the order panel's estimate showed
-- the last price. What lies beyond the band is not met.
create function private.match_order(
  p_user uuid, p_token uuid, p_order bigint, p_side text, p_type text, p_amount bigint, p_price numeric,
  p_budget numeric, p_bps integer,
  out fills jsonb, out expire bigint[], out remaining bigint, out spent_value numeric, out makers uuid[]
) language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
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
end $$;
revoke execute on function private.match_order(uuid, uuid, bigint, text, text, bigint, numeric, numeric, integer) from public;

-- Settles all of an order's fills in one statement: one insert into trades, one update of each
-- account's cash, one of the sellers' holdings, one upsert of the buyers', one update of each
-- resting order met. It is the one place money and tokens move in a trade. The taker's own order
-- is written by place_order after it; this returns the fees the taker paid over the fills.
create function private.settle_fills(
  p_token uuid, p_taker_side text, p_fills jsonb, p_at timestamptz default now(), p_bps integer default null
)
returns numeric language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  bps integer := coalesce(p_bps, private.fee_bps()); -- read once: the fees and their record agree
  share_bps integer := (select creator_fee_share_bps from public.exchange_settings);
  taker_fees numeric;
  sellers integer;
  sellers_found integer;
begin
  if exists (select 1 from jsonb_to_recordset(p_fills) b(buyer uuid) join jsonb_to_recordset(p_fills) s(seller uuid) on b.buyer = s.seller) then
    raise exception 'An account cannot trade with itself.' using errcode = 'P0001';
  end if;
  with fill as (
    select f.*, private.trade_value(f.price, f.amount) as value, t.owner_id as creator,
           case when f.seller = private.issuance_account() then coalesce(t.owner_id, f.seller) else f.seller end as payee
    from private.fill_rows(p_fills) as f
    cross join (select owner_id from public.tokens where id = p_token) t
  ),
  priced as (
    select fill.*,
      private.fill_fee(coalesce(bo.filled_value, 0), coalesce(bo.fees_paid, 0),
        coalesce(sum(fill.value) over (partition by coalesce(fill.buy_order, -fill.seq) order by fill.seq
                                       rows between unbounded preceding and 1 preceding), 0), fill.value, bps) as buyer_fee,
      private.fill_fee(coalesce(so.filled_value, 0), coalesce(so.fees_paid, 0),
        coalesce(sum(fill.value) over (partition by coalesce(fill.sell_order, -fill.seq) order by fill.seq
                                       rows between unbounded preceding and 1 preceding), 0), fill.value, bps) as seller_fee
    from fill
    left join public.orders bo on bo.id = fill.buy_order
    left join public.orders so on so.id = fill.sell_order
  ),
  moved as (
    select priced.*,
           case when buyer_reserved = 0 then 0
                when buyer_completes then buyer_reserved
                else least(buyer_reserved, value + buyer_fee) end as release,
           case when creator is null then 0 else round((buyer_fee + seller_fee) * share_bps / 10000.0, 2) end as creator_share
    from priced
  ),
  trade as (
    insert into public.trades (token_id, buy_order_id, sell_order_id, buyer_id, seller_id, price, amount, taker_side,
                               buyer_fee, seller_fee, created_at, proceeds_to, fee_bps, creator_id, creator_share)
    select p_token, buy_order, sell_order, buyer, seller, price, amount, p_taker_side,
           buyer_fee, seller_fee, p_at, nullif(payee, seller), bps, creator, creator_share
    from moved order by seq
  ),
  cash as (
    update public.cash_accounts c
       set available = c.available + m.available, reserved = c.reserved + m.reserved
      from (select user_id, sum(available) as available, sum(reserved) as reserved from (
              select buyer as user_id, release - value - buyer_fee as available, -release as reserved from moved
              union all
              select payee, value - seller_fee, 0 from moved
              union all
              select creator, creator_share, 0 from moved where creator_share > 0) x
            group by user_id) m
     where c.user_id = m.user_id
  ),
  sold as (
    update public.holdings h
       set amount = h.amount - m.amount, reserved = h.reserved - m.reserved
      from (select seller, sum(amount) as amount, sum(case when seller_reserved then amount else 0 end) as reserved
            from moved group by seller) m
     where h.user_id = m.seller and h.token_id = p_token
    returning h.user_id
  ),
  bought as (
    insert into public.holdings (user_id, token_id, amount)
    select buyer, p_token, sum(amount) from moved group by buyer
    on conflict (user_id, token_id) do update set amount = public.holdings.amount + excluded.amount
  ),
  filled as (
    update public.orders o
       set filled = o.filled + m.amount, filled_value = o.filled_value + m.value, fees_paid = o.fees_paid + m.fee,
           reserved = o.reserved - m.release,
           status = case when o.filled + m.amount = o.amount then 'filled' else o.status end
      from (select buy_order as id, sum(amount) as amount, sum(value) as value, sum(buyer_fee) as fee, sum(release) as release
            from moved where buy_order is not null group by buy_order
            union all
            select sell_order, sum(amount), sum(value), sum(seller_fee), 0
            from moved where sell_order is not null group by sell_order) m
     where o.id = m.id
  )
  select (select count(*) from sold), (select count(distinct seller) from moved),
         (select coalesce(sum(case when p_taker_side = 'buy' then buyer_fee else seller_fee end), 0) from moved)
    into sellers_found, sellers, taker_fees;
  if sellers_found < sellers then raise exception 'The seller holds none of these tokens.' using errcode = 'P0001'; end if;
  return taker_fees;
end $$;
revoke execute on function private.settle_fills(uuid, text, jsonb, timestamp with time zone, integer) from public;

-- The fills' JSON as rows. PL/pgSQL, so its plan is kept (a SQL function with this estimate is not inlined).
create function private.fill_rows(p_fills jsonb)
returns table (seq integer, buyer uuid, seller uuid, buy_order bigint, sell_order bigint, price numeric, amount bigint,
               buyer_reserved numeric, buyer_completes boolean, seller_reserved boolean)
language plpgsql immutable rows 4 set search_path = '' as $$
begin
  return query
  select * from jsonb_to_recordset(p_fills) as f(seq integer, buyer uuid, seller uuid, buy_order bigint, sell_order bigint,
    price numeric, amount bigint, buyer_reserved numeric, buyer_completes boolean, seller_reserved boolean);
end $$;
revoke execute on function private.fill_rows(jsonb) from public;

-- What fill `value` of an order costs in fees, the order having filled `base_value` and paid
-- `base_paid` before this statement, and `before` of value in earlier fills of the same statement.
-- Fees are charged on the order's cumulative value (one rounding per order), never below what is
-- paid already (should the fee setting fall while an order is partly filled).
create function private.fill_fee(base_value numeric, base_paid numeric, before numeric, value numeric, bps integer)
returns numeric language sql immutable as $$
  select greatest(base_paid, private.fee(base_value + before + value, bps))
       - case when before = 0 then base_paid else greatest(base_paid, private.fee(base_value + before, bps)) end
$$;
revoke execute on function private.fill_fee(numeric, numeric, numeric, numeric, integer) from public;

-- Closes an open order or a waiting stop (cancelled, or expired) and releases what it held back.
-- Cancelling one order of a take-profit and stop pair cancels the other. The caller holds the
-- book's lock.
create function private.release_order(p_order bigint, p_status text default 'cancelled') returns void
language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
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
end $$;
revoke execute on function private.release_order(bigint, text) from public;

-- The time an order stops being open, whoever closes it.
create function private.stamp_closed() returns trigger
language plpgsql as $$
begin
  if new.status not in ('open', 'pending') and old.status in ('open', 'pending') then new.closed_at := clock_timestamp(); end if;
  return new;
end $$;
revoke execute on function private.stamp_closed() from public;
create trigger orders_closed_at before update of status on public.orders
  for each row execute function private.stamp_closed();

-- Cancels one of the caller's open orders.
create function public.cancel_order(p_order bigint) returns jsonb
language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  uid uuid := auth.uid();
  o public.orders;
  levels jsonb;
begin
  if uid is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_second_step();
  select * into o from public.orders where id = p_order and user_id = uid;
  if not found then raise exception 'You have no order #%.', p_order using errcode = 'P0001'; end if;
  perform 1 from public.tokens where id = o.token_id for no key update; -- the book's lock first
  select * into o from public.orders where id = p_order for update;
  if o.status not in ('open', 'pending') then raise exception 'Order #% is already %.', p_order, o.status using errcode = 'P0001'; end if;
  perform private.release_order(p_order);
  levels := private.order_levels(array[p_order]);
  -- A waiting stop (and a stop-market pair's stop) never was on the book: the market sees nothing.
  if jsonb_array_length(levels) > 0 then perform private.tell_market(o.token_id, 'book', levels); end if;
  perform private.tell_accounts(array[uid], 'orders', o.token_id);
  return jsonb_build_object('order_id', p_order, 'status', 'cancelled', 'released_tokens',
    case when o.side = 'sell' then o.amount - o.filled else 0 end, 'released_cash', o.reserved);
end $$;
revoke execute on function public.cancel_order(bigint) from public, anon;

-- Cancels all of the caller's open orders, or those in one token: every book's lock first, in
-- token order, as the engine takes them.
create function public.cancel_all_orders(p_token uuid default null) returns integer
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := auth.uid();
  books uuid[];
  o bigint;
  released bigint[] := '{}';
  b uuid;
  n integer := 0;
begin
  if uid is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_second_step();
  select coalesce(array_agg(distinct token_id order by token_id), '{}') into books
  from public.orders where user_id = uid and status in ('open', 'pending') and (p_token is null or token_id = p_token);
  perform 1 from public.tokens where id = any (books) order by id for no key update;
  for o in
    select id from public.orders
    where user_id = uid and status in ('open', 'pending') and token_id = any (books)
    order by id for update
  loop
    perform private.release_order(o);
    released := released || o;
    n := n + 1;
  end loop;
  foreach b in array books loop
    perform private.tell_market(b, 'book', private.order_levels(
      array(select r.id from public.orders r where r.id = any (released) and r.token_id = b)));
  end loop;
  if n > 0 then perform private.tell_accounts(array[uid], 'orders', p_token); end if;
  return n;
end $$;
revoke execute on function public.cancel_all_orders(uuid) from public, anon;

-- Edits a resting order or a waiting stop: cancels it and places its new terms, in one
-- transaction. A refused new order (cash, a halt, bad input) leaves the old one as it was; the new
-- one takes the book's time of now and trades at once if it crosses, as replaced orders do on most
-- exchanges. It keeps the old one's time in force and post-only. A stop keeps its type and takes a
-- new trigger (p_stop_price, or its old one); p_price is a stop-limit's limit (none for a
-- stop-market). `p_filled` is what the owner saw filled: if a taker met the order meanwhile,
-- nothing is changed (PostgREST's 409), so an edit never puts back what was taken. A pair's order
-- is not edited on its own: cancelling it cancels both.
create function public.replace_order(
  p_order bigint, p_amount numeric, p_price numeric, p_filled bigint default null, p_stop_price numeric default null
) returns jsonb language plpgsql security definer set search_path = '' as $$
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
end $$;
revoke execute on function public.replace_order(bigint, numeric, numeric, bigint, numeric) from public, anon;

-- The caller's open orders, newest first, all tokens or one, a page at a time. Each case has its
-- own statement and its own index holding the list's whole order, so the kept generic plan walks
-- the index in order and stops at the page's end.
create function public.list_open_orders(p_token uuid default null, p_limit integer default 100, p_offset integer default 0)
returns setof public.orders
language plpgsql stable security invoker set search_path = '' set plan_cache_mode = force_generic_plan as $$
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
end $$;
revoke execute on function public.list_open_orders(uuid, integer, integer) from public, anon;

-- Puts a limit order on the book without matching it, reserving what it may spend: cash
-- (value + fee) for a buy, tokens for a sell. Used by the seed.
create function private.rest_order(
  p_user uuid, p_token uuid, p_side text, p_price numeric, p_amount bigint, p_at timestamptz default now()
) returns bigint language plpgsql security definer set search_path = '' as $$
declare
  order_id bigint;
  cost numeric := private.buy_cost(p_price, p_amount, private.fee_bps());
begin
  if p_side = 'buy' then
    update public.cash_accounts set available = available - cost, reserved = reserved + cost
     where user_id = p_user and available >= cost;
    if not found then raise exception 'Insufficient funds: this order needs %.', cost using errcode = 'P0001'; end if;
  else
    update public.holdings set reserved = reserved + p_amount
     where user_id = p_user and token_id = p_token and amount - reserved >= p_amount;
    if not found then raise exception 'You do not hold enough tokens for this order.' using errcode = 'P0001'; end if;
  end if;
  insert into public.orders (user_id, token_id, side, type, price, amount, reserved, created_at)
  values (p_user, p_token, p_side, 'limit', p_price, p_amount, case when p_side = 'buy' then cost else 0 end, p_at)
  returning id into order_id;
  return order_id;
end $$;
revoke execute on function private.rest_order(uuid, uuid, text, numeric, bigint, timestamp with time zone) from public;

-- One fill between two accounts (the seed and tests use it), through settle_fills.
create function private.settle_trade(
  p_token uuid, p_buyer uuid, p_seller uuid, p_price numeric, p_amount bigint, p_taker_side text,
  p_buy_order bigint default null, p_sell_order bigint default null,
  p_buyer_reserved numeric default 0, p_seller_reserved boolean default false,
  p_at timestamptz default now()
) returns bigint language sql security definer set search_path = '' as $$
  select private.settle_fills(p_token, p_taker_side, jsonb_build_array(jsonb_build_object(
    'seq', 1, 'buyer', p_buyer, 'seller', p_seller, 'buy_order', p_buy_order, 'sell_order', p_sell_order,
    'price', p_price, 'amount', p_amount, 'buyer_reserved', p_buyer_reserved, 'buyer_completes', true,
    'seller_reserved', p_seller_reserved)), p_at)
$$;
revoke execute on function private.settle_trade(uuid, uuid, uuid, numeric, bigint, text, bigint, bigint, numeric, boolean, timestamp with time zone) from public;

-- An admin halts trading in one token, with a reason, as exchanges halt one symbol: while a fraud
-- alert on it is reviewed, or news is pending. New orders on it are refused with the reason (the
-- book's lock is taken first, so an order that arrives during the halt never trades); its resting
-- orders stay on the book and may be cancelled; the rest of the market trades on. Resuming lifts
-- it. Both are audited, mailed to the token's person, and told to the market (realtime.sql),
-- so open trading screens follow at once.
create function public.admin_set_token_halt(p_token uuid, p_halted boolean, p_reason text default null)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  admin uuid := private.require_admin();
  tok public.tokens;
  reason text := nullif(btrim(p_reason), '');
begin
  if p_halted is null then perform private.refuse('Say whether trading in the token is halted.'); end if;
  select * into tok from public.tokens where id = p_token for no key update; -- the book's lock: no order is half through
  if not found then perform private.refuse('There is no such token.'); end if;
  if p_halted and (reason is null or char_length(reason) not between 3 and 200) then
    perform private.refuse('Give a reason of 3 to 200 characters: traders see it.');
  end if;
  if p_halted then perform private.refuse_hidden_characters(reason, 'The reason'); end if;
  if p_halted = (tok.halt_reason is not null) and (not p_halted or reason = tok.halt_reason) then
    perform private.refuse(format('Trading in %s is %s already.', tok.name, case when p_halted then 'halted' else 'open' end));
  end if;
  update public.tokens
     set halt_reason = case when p_halted then reason end,
         halted_at = case when p_halted then coalesce(tok.halted_at, now()) end
   where id = p_token;
  perform private.tell_market(p_token, 'halt');
  if tok.owner_id is not null then
    insert into private.account_mail (user_id, subject, body)
    values (tok.owner_id,
      case when p_halted then 'Trading in your RepX token is halted' else 'Trading in your RepX token has resumed' end,
      case when p_halted
        then format(E'RepX halted trading in your token %s on %s: %s.\n'
                    'Orders already on the book stay there and may be cancelled; no new order is accepted until trading resumes. We will email you when it does.',
               tok.name, to_char(now() at time zone 'UTC', 'Mon FMDD, YYYY, HH24:MI "UTC"'), rtrim(reason, '.'))
        else format('Trading in your token %s resumed on %s: orders are accepted again.',
               tok.name, to_char(now() at time zone 'UTC', 'Mon FMDD, YYYY, HH24:MI "UTC"'))
      end);
    perform pg_notify('repx_mail', '');
  end if;
  perform private.audit(case when p_halted then 'token.halt' else 'token.resume' end, tok.owner_id, tok.name,
    jsonb_build_object('halt_reason', tok.halt_reason), jsonb_build_object('halt_reason', case when p_halted then reason end),
    case when p_halted then reason end);
  return jsonb_build_object('token_id', p_token, 'halted', p_halted, 'halt_reason', case when p_halted then reason end);
end $$;
revoke execute on function public.admin_set_token_halt(uuid, boolean, text) from public, anon;

-- What screens read of the book and the tape. Public aggregates (no account is named) are plain
-- views, which read as their owner; views of one account's data are security_invoker, so
-- row-level security applies to the reader.

-- Open limit orders, aggregated per price level: what an order book shows.
create view public.order_book as
select token_id, side, price, sum(amount - filled)::bigint as amount, count(*)::int as orders
from public.orders
where status = 'open' and type = 'limit'
group by token_id, side, price;
revoke all on public.order_book from anon;
revoke insert, update, delete, truncate on public.order_book from authenticated;

-- The tape: trades without the names of the accounts.
create view public.recent_trades as
select id, token_id, price, amount, value, taker_side as type, created_at from public.trades;
revoke all on public.recent_trades from anon;
revoke insert, update, delete, truncate on public.recent_trades from authenticated;

-- The signed-in account's trades, from its own side: a buy costs value + fee, a sell yields value - fee.
create view public.my_trades with (security_invoker = true) as
select
  tr.id,
  tr.token_id,
  t.name,
  t.username,
  case when tr.buyer_id = auth.uid() then 'buy' else 'sell' end as type,
  tr.amount,
  tr.price,
  tr.value,
  case when tr.buyer_id = auth.uid() then tr.buyer_fee else tr.seller_fee end as fee,
  case when tr.buyer_id = auth.uid() then tr.value + tr.buyer_fee else tr.value - tr.seller_fee end as total,
  tr.created_at
from public.trades tr
join public.tokens t on t.id = tr.token_id
where tr.buyer_id = auth.uid() or tr.seller_id = auth.uid();
revoke all on public.my_trades from anon;
revoke insert, update, delete, truncate on public.my_trades from authenticated;
