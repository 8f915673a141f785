-- The engine in named steps, and settlement of all of an order's fills in one statement.
--
--   place_order = check_order_request -> lock the book -> match_order -> lock the accounts ->
--                 settle_fills -> rest what is left -> announce
--
-- settle_fills is the one place money and tokens move in a trade (settle_trade, which the seed
-- uses for one fill, is a call of it). It replaces, per fill, two ledger calls, a fee charge per
-- order and two order updates with one statement over all fills: one insert into trades, one
-- update of each account's cash, one of the sellers' holdings, one upsert of the buyers', one
-- update of each order. place_order no longer catches errors (no subtransaction per order): its
-- checks after the locks make the check constraints a guard that never fires.

-- What a holder can sell now: the tokens not held back for open sell orders. Derived once, as a
-- generated column, so the engine checks it and the trading screen shows it without restating it.
alter table public.holdings add column available bigint generated always as (amount - reserved) stored;

-- What fill `value` of an order costs in fees, the order having filled `base_value` and paid
-- `base_paid` before this statement, and `before` of value in earlier fills of the same statement.
-- Fees are charged on the order's cumulative value (one rounding per order), never below what is
-- paid already (should the fee setting fall while an order is partly filled).
create or replace function private.fill_fee(base_value numeric, base_paid numeric, before numeric, value numeric, bps integer)
returns numeric language sql immutable as $$
  select greatest(base_paid, private.fee(base_value + before + value, bps))
       - case when before = 0 then base_paid else greatest(base_paid, private.fee(base_value + before, bps)) end
$$;

-- Settles fills of one token at once. Each fill (a JSON object): seq, buyer, seller, buy_order,
-- sell_order (null: no order), price, amount; buyer_reserved (what the buy order holds back, 0 when
-- the buyer pays from available cash) and buyer_completes (the fill completes that order: all of
-- its reservation is released); seller_reserved (the tokens were held back for a resting sell).
-- The offering's proceeds go to the token's person. Returns the last trade's id.
create or replace function private.settle_fills(p_token uuid, p_taker_side text, p_fills jsonb, p_at timestamptz default now())
returns bigint language plpgsql security definer set search_path = '' as $$
declare
  bps integer := private.fee_bps(); -- read once: the fees and their record agree
  last_trade bigint;
  sellers integer;
  sellers_found integer;
begin
  if exists (select 1 from jsonb_to_recordset(p_fills) b(buyer uuid) join jsonb_to_recordset(p_fills) s(seller uuid) on b.buyer = s.seller) then
    raise exception 'An account cannot trade with itself.' using errcode = 'P0001';
  end if;
  with fill as (
    select f.*, private.trade_value(f.price, f.amount) as value,
           case when f.seller = private.issuance_account() then coalesce(t.owner_id, f.seller) else f.seller end as payee
    from jsonb_to_recordset(p_fills) as f(seq integer, buyer uuid, seller uuid, buy_order bigint, sell_order bigint, price numeric,
                                          amount bigint, buyer_reserved numeric, buyer_completes boolean, seller_reserved boolean)
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
                else least(buyer_reserved, value + buyer_fee) end as release
    from priced
  ),
  trade as (
    insert into public.trades (token_id, buy_order_id, sell_order_id, buyer_id, seller_id, price, amount, taker_side,
                               buyer_fee, seller_fee, created_at, proceeds_to, fee_bps)
    select p_token, buy_order, sell_order, buyer, seller, price, amount, p_taker_side,
           buyer_fee, seller_fee, p_at, nullif(payee, seller), bps
    from moved order by seq
    returning id
  ),
  cash as (
    update public.cash_accounts c
       set available = c.available + m.available, reserved = c.reserved + m.reserved
      from (select user_id, sum(available) as available, sum(reserved) as reserved from (
              select buyer as user_id, release - value - buyer_fee as available, -release as reserved from moved
              union all
              select payee, value - seller_fee, 0 from moved) x
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
  select (select max(id) from trade), (select count(*) from sold), (select count(distinct seller) from moved)
    into last_trade, sellers_found, sellers;
  if sellers_found < sellers then raise exception 'The seller holds none of these tokens.' using errcode = 'P0001'; end if;
  return last_trade;
end $$;

-- One fill between two accounts, as before (the seed and tests use it), through settle_fills.
create or replace function private.settle_trade(
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

-- The request itself: shape, the account, the exchange's settings. Returns the settings.
create or replace function private.check_order_request(
  p_user uuid, p_side text, p_type text, p_amount numeric, p_price numeric
) returns public.exchange_settings language plpgsql stable security definer set search_path = '' as $$
declare
  settings public.exchange_settings;
begin
  if p_user is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  select * into settings from public.exchange_settings;
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
    if p_price > settings.max_price then
      raise exception 'The limit price cannot exceed %.', private.money(settings.max_price) using errcode = '22023';
    end if;
  elsif p_price is not null then
    raise exception 'A market order takes no price: it trades at the best prices in the book.' using errcode = '22023';
  end if;
  if exists (select 1 from public.profiles where id = p_user and status <> 'active') then
    raise exception 'Your account is suspended: trading is disabled.' using errcode = '42501';
  end if;
  if settings.trading_halted then
    raise exception 'Trading is halted%. Cancelling open orders still works.',
      coalesce(': ' || nullif(settings.halt_reason, ''), '') using errcode = 'P0001';
  end if;
  if p_amount < settings.min_order_amount then
    raise exception 'The minimum order is % tokens.', settings.min_order_amount using errcode = '22023';
  end if;
  if p_type = 'limit' and (select count(*) from public.orders where user_id = p_user and status = 'open') >= settings.max_open_orders then
    raise exception 'You have % open orders, the most allowed. Cancel one before placing another limit order.',
      settings.max_open_orders using errcode = 'P0001';
  end if;
  return settings;
end $$;

-- What the caller can spend or sell now: for a sell, the tokens not held back; for a limit buy,
-- enough available cash for its value and fee. Returns the available cash (0 for a sell).
create or replace function private.check_order_funds(
  p_user uuid, p_token uuid, p_token_name text, p_side text, p_type text, p_amount bigint, p_price numeric, p_bps integer
) returns numeric language plpgsql stable security definer set search_path = '' as $$
declare
  have numeric;
  budget numeric;
begin
  if p_side = 'sell' then
    select coalesce(max(available), 0) into have from public.holdings where user_id = p_user and token_id = p_token;
    if have < p_amount then
      raise exception 'You have % % tokens available to sell; this order needs %.', have, p_token_name, p_amount using errcode = 'P0001';
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

-- Walks the other side of the book, best price first, oldest first, locking the orders it meets,
-- and returns the fills for settle_fills, the caller's own resting orders it met (to expire), and
-- what is left. A market buy never takes more than `p_budget` can pay, its fee counted on the
-- order's cumulative value, as it will be charged.
create or replace function private.match_order(
  p_user uuid, p_token uuid, p_order bigint, p_side text, p_type text, p_amount bigint, p_price numeric,
  p_budget numeric, p_bps integer,
  out fills jsonb, out expire bigint[], out remaining bigint, out spent_value numeric
) language plpgsql security definer set search_path = '' as $$
declare
  maker record;
  n bigint;
  seq integer := 0;
begin
  fills := '[]';
  expire := '{}';
  remaining := p_amount;
  spent_value := 0;
  for maker in
    select o.id, o.user_id, o.price, o.amount - o.filled as open_amount, o.reserved
    from public.orders o
    where o.token_id = p_token and o.status = 'open' and o.side <> p_side
      and (p_type = 'market' or (p_side = 'buy' and o.price <= p_price) or (p_side = 'sell' and o.price >= p_price))
    order by case when p_side = 'buy' then o.price end asc, case when p_side = 'sell' then o.price end desc, o.created_at, o.id
    for update
  loop
    exit when remaining = 0;
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
  end loop;
end $$;

create or replace function public.place_order(
  p_token uuid, p_side text, p_type text, p_amount numeric, p_price numeric default null
) returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := auth.uid();
  settings public.exchange_settings := private.check_order_request(auth.uid(), p_side, p_type, p_amount, p_price);
  tok record;
  v_amount bigint;
  v_order bigint;
  budget numeric;
  matched record;
  spent numeric;
  rest_cost numeric := 0;
  final_status text;
  fee_sum numeric;
begin
  -- The book's lock: one order at a time per token.
  select id, name, total_supply, owner_id into tok from public.tokens where id = p_token for update;
  if not found then raise exception 'There is no such token.' using errcode = 'P0001'; end if;
  if p_amount > tok.total_supply then
    raise exception 'The amount cannot exceed the total supply of % tokens.', tok.total_supply using errcode = '22023';
  end if;
  v_amount := p_amount::bigint;
  budget := private.check_order_funds(uid, p_token, tok.name, p_side, p_type, v_amount, p_price, settings.fee_bps);

  insert into public.orders (user_id, token_id, side, type, price, amount)
  values (uid, p_token, p_side, p_type, p_price, v_amount) returning id into v_order;

  matched := private.match_order(uid, p_token, v_order, p_side, p_type, v_amount, p_price, budget, settings.fee_bps);
  if p_type = 'market' and jsonb_array_length(matched.fills) = 0 then
    if exists (select 1 from public.orders where token_id = p_token and status = 'open' and side <> p_side and user_id <> uid) then
      raise exception 'Insufficient funds: you cannot afford one % token at the best price.', tok.name using errcode = 'P0001';
    end if;
    raise exception 'There are no % orders for % right now. Place a limit order to wait for a %.',
      case when p_side = 'buy' then 'sell' else 'buy' end, tok.name,
      case when p_side = 'buy' then 'seller' else 'buyer' end using errcode = 'P0001';
  end if;

  -- Every account involved, cash then holdings, in ascending user id (no deadlocks); the person
  -- behind an offering receives its proceeds, so their cash is locked too.
  perform 1 from public.cash_accounts
   where user_id in (select uid union select (x ->> 'seller')::uuid from jsonb_array_elements(matched.fills) x
                     union select (x ->> 'buyer')::uuid from jsonb_array_elements(matched.fills) x
                     union select tok.owner_id where tok.owner_id is not null and exists (
                       select 1 from jsonb_array_elements(matched.fills) x where (x ->> 'seller')::uuid = private.issuance_account()))
   order by user_id for update;
  perform 1 from public.holdings
   where token_id = p_token
     and user_id in (select uid union select (x ->> 'seller')::uuid from jsonb_array_elements(matched.fills) x
                     union select (x ->> 'buyer')::uuid from jsonb_array_elements(matched.fills) x)
   order by user_id for update;

  -- Own resting orders met while matching are expired (self-trade prevention).
  perform private.release_order(x) from unnest(matched.expire) x;

  -- What was read before the locks still holds.
  spent := matched.spent_value + private.fee(matched.spent_value, settings.fee_bps);
  if p_side = 'buy' then
    rest_cost := case when p_type = 'limit' and matched.remaining > 0
      then private.trade_value(p_price, matched.remaining) + private.fee(matched.spent_value + private.trade_value(p_price, matched.remaining), settings.fee_bps)
           - private.fee(matched.spent_value, settings.fee_bps) else 0 end;
    if (select available from public.cash_accounts where user_id = uid) < spent + rest_cost then
      raise exception 'Insufficient funds: your available cash changed while the order was placed. Please try again.' using errcode = 'P0001';
    end if;
  else
    perform private.check_order_funds(uid, p_token, tok.name, p_side, p_type, v_amount, p_price, settings.fee_bps);
  end if;

  if jsonb_array_length(matched.fills) > 0 then
    perform private.settle_fills(p_token, p_side, matched.fills);
  end if;

  -- What is left of a limit order rests on the book, its cost or tokens held back.
  if p_type = 'limit' and matched.remaining > 0 then
    if p_side = 'buy' then
      update public.cash_accounts set available = available - rest_cost, reserved = reserved + rest_cost where user_id = uid;
    else
      update public.holdings set reserved = reserved + matched.remaining where user_id = uid and token_id = p_token;
    end if;
    final_status := 'open';
  else
    final_status := case when matched.remaining = 0 then 'filled' else 'cancelled' end;
  end if;
  update public.orders set status = final_status, reserved = rest_cost where id = v_order
  returning fees_paid into fee_sum;

  insert into public.market_events (token_id, kind)
  values (p_token, case when matched.spent_value > 0 then 'trade' else 'book' end);

  return jsonb_build_object(
    'order_id', v_order,
    'status', final_status,
    'side', p_side,
    'type', p_type,
    'amount', v_amount,
    'filled', v_amount - matched.remaining,
    'resting', case when final_status = 'open' then matched.remaining else 0 end,
    'average_price', case when v_amount > matched.remaining then round(matched.spent_value / (v_amount - matched.remaining), 2) end,
    'value', matched.spent_value,
    'fee', fee_sum,
    'total', case when p_side = 'buy' then matched.spent_value + fee_sum else matched.spent_value - fee_sum end
  );
end $$;

revoke all on function private.fill_fee(numeric, numeric, numeric, numeric, integer),
  private.settle_fills(uuid, text, jsonb, timestamptz),
  private.settle_trade(uuid, uuid, uuid, numeric, bigint, text, bigint, bigint, numeric, boolean, timestamptz),
  private.check_order_request(uuid, text, text, numeric, numeric),
  private.check_order_funds(uuid, uuid, text, text, text, bigint, numeric, integer),
  private.match_order(uuid, uuid, bigint, text, text, bigint, numeric, numeric, integer) from public, anon, authenticated;
revoke execute on function public.place_order(uuid, text, text, numeric, numeric) from public, anon;
grant execute on function public.place_order(uuid, text, text, numeric, numeric) to authenticated;
