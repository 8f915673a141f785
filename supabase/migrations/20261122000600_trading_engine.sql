-- The trading engine: place, cancel and list orders, each call one transaction.
--
-- Matching is price-time priority against the token's book, at the resting order's price.
-- Fees (spec section 9): 2% of value on each side; the buyer pays value + fee, the seller
-- receives value - fee; both are the exchange's revenue, recorded on the trade row.
--
-- Locking, always in this order, so there are no deadlocks:
--   1. the token row (one book at a time: two orders for one token never take the same liquidity),
--   2. the resting orders of that book,
--   3. the cash accounts, then the holdings, of every account involved, in ascending user id.
--
-- Self-trade policy (expire maker, as common exchanges and nodejs-order-book define it): an order
-- never trades with its owner's own resting orders; each one the order meets while matching is
-- cancelled, its reservation released, and matching goes on. The book never crosses.
--
-- Market orders are immediate-or-cancel: they take the best prices until filled or the book is
-- empty, and never spend more than the buyer's available cash; what cannot fill is cancelled.
-- A market order that cannot fill at all is refused and changes nothing.

-- A public signal that a book or the tape changed: it names no account, so any signed-in user may
-- follow it (Supabase Realtime on a hosted project; the local server relays its NOTIFY).
create table public.market_events (
  id bigint generated always as identity primary key,
  token_id uuid not null references public.tokens (id) on delete cascade,
  kind text not null check (kind in ('trade', 'book')),
  created_at timestamptz not null default now()
);
create index market_events_time_idx on public.market_events (created_at);
alter table public.market_events enable row level security;
create policy "market events are visible to signed-in users" on public.market_events
  for select to authenticated using (true);
revoke all on public.market_events from anon;
revoke insert, update, delete, truncate on public.market_events from authenticated;

create or replace function private.notify_realtime() returns trigger
language plpgsql as $$
begin
  perform pg_notify('repx_realtime', json_build_object(
    'schema', tg_table_schema, 'table', tg_table_name, 'type', tg_op,
    'commit_timestamp', to_char(now() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'record', to_jsonb(new))::text);
  return null;
end $$;
create trigger market_events_notify after insert on public.market_events
  for each row execute function private.notify_realtime();

do $$
begin
  if exists (select 1 from pg_publication where pubname = 'supabase_realtime') then
    execute 'alter publication supabase_realtime add table public.market_events';
  end if;
end $$;

-- Money in messages: $30,600.00
create or replace function private.money(n numeric) returns text
language sql immutable as $$ select '$' || to_char(n, 'FM999,999,999,990.00') $$;

-- Cost of buying `amount` at `price`: value + fee, in cents.
create or replace function private.buy_cost(price numeric, amount bigint) returns numeric
language sql immutable as $$ select round(price * amount, 2) + private.fee(round(price * amount, 2)) $$;

-- Cancels an open order and releases what it held back.
create or replace function private.release_order(p_order bigint) returns void
language plpgsql security definer set search_path = '' as $$
declare
  o public.orders;
begin
  select * into o from public.orders where id = p_order for update;
  if o.status <> 'open' then return; end if;
  if o.side = 'buy' then
    update public.cash_accounts set reserved = reserved - o.reserved, available = available + o.reserved where user_id = o.user_id;
  else
    update public.holdings set reserved = reserved - (o.amount - o.filled) where user_id = o.user_id and token_id = o.token_id;
  end if;
  update public.orders set status = 'cancelled', reserved = 0 where id = p_order;
end $$;

create or replace function public.place_order(
  p_token uuid, p_side text, p_type text, p_amount numeric, p_price numeric default null
) returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := auth.uid();
  tok record;
  v_amount bigint;
  v_order bigint;
  opposite text;
  remaining bigint;
  budget numeric := 0;
  spent numeric := 0;
  maker record;
  n bigint;
  fills jsonb := '[]';
  expire bigint[] := '{}';
  f jsonb;
  involved uuid[];
  release numeric;
  value_sum numeric := 0;
  fee_sum numeric := 0;
  fill_value numeric;
  rest_cost numeric;
  final_status text;
  have numeric;
begin
  if uid is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  if p_side is null or p_side not in ('buy', 'sell') then
    raise exception 'The side must be buy or sell.' using errcode = '22023';
  end if;
  if p_type is null or p_type not in ('market', 'limit') then
    raise exception 'The order type must be market or limit.' using errcode = '22023';
  end if;
  if p_amount is null or p_amount < 1 or p_amount <> trunc(p_amount) then
    raise exception 'The amount must be a whole number of tokens, at least 1.' using errcode = '22023';
  end if;
  if p_type = 'limit' then
    if p_price is null or p_price <= 0 then raise exception 'A limit order needs a price above $0.00.' using errcode = '22023'; end if;
    if p_price <> round(p_price, 2) then raise exception 'The limit price has at most two decimals.' using errcode = '22023'; end if;
    if p_price > 1000000 then raise exception 'The limit price cannot exceed $1,000,000.00.' using errcode = '22023'; end if;
  elsif p_price is not null then
    raise exception 'A market order takes no price: it trades at the best prices in the book.' using errcode = '22023';
  end if;
  if exists (select 1 from public.profiles where id = uid and status <> 'active') then
    raise exception 'Your account is suspended: trading is disabled.' using errcode = '42501';
  end if;

  -- 1. The book's lock.
  select id, name, total_supply into tok from public.tokens where id = p_token for update;
  if not found then raise exception 'There is no such token.' using errcode = 'P0001'; end if;
  if p_amount > tok.total_supply then
    raise exception 'The amount cannot exceed the total supply of % tokens.', tok.total_supply using errcode = '22023';
  end if;
  v_amount := p_amount::bigint;
  opposite := case when p_side = 'buy' then 'sell' else 'buy' end;

  if p_side = 'sell' then
    select coalesce(max(amount - reserved), 0) into have from public.holdings where user_id = uid and token_id = p_token;
    if have < v_amount then
      raise exception 'You have % % tokens available to sell; this order needs %.', have, tok.name, v_amount using errcode = 'P0001';
    end if;
  else
    select coalesce(max(available), 0) into budget from public.cash_accounts where user_id = uid;
    if p_type = 'limit' and budget < private.buy_cost(p_price, v_amount) then
      raise exception 'Insufficient funds: this order needs % (value + 2%% fee) and you have % available.',
        private.money(private.buy_cost(p_price, v_amount)), private.money(budget) using errcode = 'P0001';
    end if;
  end if;

  insert into public.orders (user_id, token_id, side, type, price, amount)
  values (uid, p_token, p_side, p_type, p_price, v_amount) returning id into v_order;

  -- 2. Walk the other side of the book, best price first, oldest first; compute the fills.
  remaining := v_amount;
  for maker in
    select o.id, o.user_id, o.price, o.amount - o.filled as open_amount, o.reserved
    from public.orders o
    where o.token_id = p_token and o.status = 'open' and o.side = opposite
      and (p_type = 'market' or (p_side = 'buy' and o.price <= p_price) or (p_side = 'sell' and o.price >= p_price))
    order by case when p_side = 'buy' then o.price end asc, case when p_side = 'sell' then o.price end desc, o.created_at, o.id
    for update
  loop
    exit when remaining = 0;
    if maker.user_id = uid then
      expire := expire || maker.id; -- met one's own order: expire it, go on
      continue;
    end if;
    n := least(remaining, maker.open_amount);
    if p_side = 'buy' and p_type = 'market' then
      -- Never spend more than the cash available: as many tokens as it affords at this price.
      n := least(n, floor((budget - spent) / (maker.price * 1.02))::bigint);
      while n > 0 and private.buy_cost(maker.price, n) > budget - spent loop n := n - 1; end loop;
      exit when n <= 0;
    end if;
    fills := fills || jsonb_build_object('order', maker.id, 'user', maker.user_id, 'price', maker.price,
      'amount', n, 'open', maker.open_amount, 'reserved', maker.reserved);
    spent := spent + private.buy_cost(maker.price, n);
    remaining := remaining - n;
  end loop;

  if p_type = 'market' and jsonb_array_length(fills) = 0 then
    if exists (select 1 from public.orders where token_id = p_token and status = 'open' and side = opposite and user_id <> uid) then
      raise exception 'Insufficient funds: you cannot afford one % token at the best price.', tok.name using errcode = 'P0001';
    end if;
    raise exception 'There are no % orders for % right now. Place a limit order to wait for a %.',
      opposite, tok.name, case when p_side = 'buy' then 'seller' else 'buyer' end using errcode = 'P0001';
  end if;

  -- 3. Lock every account involved, cash then holdings, in ascending user id.
  involved := array(select distinct u from (select uid as u union all select (x ->> 'user')::uuid from jsonb_array_elements(fills) x) s order by u);
  perform 1 from public.cash_accounts where user_id = any (involved) order by user_id for update;
  perform 1 from public.holdings where token_id = p_token and user_id = any (involved) order by user_id for update;

  -- Own resting orders met while matching are expired (self-trade prevention).
  perform private.release_order(x) from unnest(expire) x;

  -- Re-check what was read before the locks.
  if p_side = 'buy' then
    select available into budget from public.cash_accounts where user_id = uid;
    if budget < spent + (case when p_type = 'limit' then private.buy_cost(p_price, remaining) else 0 end) then
      raise exception 'Insufficient funds: your available cash changed while the order was placed. Please try again.' using errcode = 'P0001';
    end if;
  else
    select coalesce(max(amount - reserved), 0) into have from public.holdings where user_id = uid and token_id = p_token;
    if have < v_amount then
      raise exception 'You have % % tokens available to sell; this order needs %.', have, tok.name, v_amount using errcode = 'P0001';
    end if;
  end if;

  -- 4. Settle each fill at the resting order's price.
  for f in select * from jsonb_array_elements(fills) loop
    n := (f ->> 'amount')::bigint;
    fill_value := round((f ->> 'price')::numeric * n, 2);
    if p_side = 'buy' then
      perform private.settle_trade(p_token, uid, (f ->> 'user')::uuid, (f ->> 'price')::numeric, n, 'buy',
        v_order, (f ->> 'order')::bigint, 0, true);
    else
      -- The resting buyer pays from its reservation; a completed order releases all of it.
      release := case when n = (f ->> 'open')::bigint then (f ->> 'reserved')::numeric
                      else least((f ->> 'reserved')::numeric, private.buy_cost((f ->> 'price')::numeric, n)) end;
      perform private.settle_trade(p_token, (f ->> 'user')::uuid, uid, (f ->> 'price')::numeric, n, 'sell',
        (f ->> 'order')::bigint, v_order, release, false);
      update public.orders set reserved = reserved - release where id = (f ->> 'order')::bigint;
    end if;
    update public.orders
       set filled = filled + n, status = case when filled + n = amount then 'filled' else 'open' end
     where id = (f ->> 'order')::bigint;
    value_sum := value_sum + fill_value;
    fee_sum := fee_sum + private.fee(fill_value);
  end loop;

  -- 5. What is left of a limit order rests on the book, its cost or tokens held back.
  if p_type = 'limit' and remaining > 0 then
    if p_side = 'buy' then
      rest_cost := private.buy_cost(p_price, remaining);
      update public.cash_accounts set available = available - rest_cost, reserved = reserved + rest_cost where user_id = uid;
      update public.orders set reserved = rest_cost where id = v_order;
    else
      update public.holdings set reserved = reserved + remaining where user_id = uid and token_id = p_token;
    end if;
    final_status := 'open';
  else
    final_status := case when remaining = 0 then 'filled' else 'cancelled' end;
  end if;
  update public.orders set filled = v_amount - remaining, status = final_status where id = v_order;

  insert into public.market_events (token_id, kind) values (p_token, case when value_sum > 0 then 'trade' else 'book' end);
  if v_order % 500 = 0 then delete from public.market_events where created_at < now() - interval '1 hour'; end if;

  return jsonb_build_object(
    'order_id', v_order,
    'status', final_status,
    'side', p_side,
    'type', p_type,
    'amount', v_amount,
    'filled', v_amount - remaining,
    'resting', case when final_status = 'open' then remaining else 0 end,
    'average_price', case when v_amount > remaining then round(value_sum / (v_amount - remaining), 2) end,
    'value', value_sum,
    'fee', fee_sum,
    'total', case when p_side = 'buy' then value_sum + fee_sum else value_sum - fee_sum end
  );
exception
  when check_violation then
    raise exception 'Insufficient funds or tokens for this order.' using errcode = 'P0001';
end $$;

create or replace function public.cancel_order(p_order bigint) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := auth.uid();
  o public.orders;
begin
  if uid is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  select * into o from public.orders where id = p_order and user_id = uid;
  if not found then raise exception 'You have no order #%.', p_order using errcode = 'P0001'; end if;
  perform 1 from public.tokens where id = o.token_id for update; -- the book's lock first
  select * into o from public.orders where id = p_order for update;
  if o.status <> 'open' then raise exception 'Order #% is already %.', p_order, o.status using errcode = 'P0001'; end if;
  perform private.release_order(p_order);
  insert into public.market_events (token_id, kind) values (o.token_id, 'book');
  return jsonb_build_object('order_id', p_order, 'status', 'cancelled', 'released_tokens',
    case when o.side = 'sell' then o.amount - o.filled else 0 end, 'released_cash', o.reserved);
end $$;

-- The signed-in user's open orders, newest first (row-level security applies).
create or replace function public.list_open_orders(p_token uuid default null) returns setof public.orders
language sql stable security invoker set search_path = '' as $$
  select * from public.orders
  where user_id = auth.uid() and status = 'open' and (p_token is null or token_id = p_token)
  order by created_at desc, id desc
$$;

revoke execute on function public.place_order(uuid, text, text, numeric, numeric), public.cancel_order(bigint),
  public.list_open_orders(uuid) from public, anon;
grant execute on function public.place_order(uuid, text, text, numeric, numeric), public.cancel_order(bigint),
  public.list_open_orders(uuid) to authenticated;
revoke all on function private.release_order(bigint), private.buy_cost(numeric, bigint), private.money(numeric),
  private.notify_realtime() from public;
