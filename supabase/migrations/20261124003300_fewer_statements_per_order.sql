-- Fewer statements per order. Each SQL statement a PL/pgSQL function runs starts and ends an executor
-- of its own, and a profile of PostgreSQL at 32 clients over 32 books put executor start-up near a
-- fifth of the database's CPU: an order ran about 27 statements, foreign-key checks included. Four
-- of them did nothing an order needs (pg_stat_statements, 3,200 orders):
--
-- - place_order expired the caller's own resting orders met while matching with a `perform` over
--   an empty list in 94% of orders: now only when there are some;
-- - the second funds check of a sell ran as `perform` (a query around the call): now an assignment,
--   which PL/pgSQL evaluates without an executor of its own;
-- - settle_fills read the fee rate again, which place_order had read with the exchange's settings:
--   it is passed in (settle_trade, for the seed and tests, still has it read);
-- - check_order_request read the settings and the caller's account status in two statements: one.
--
-- Same checks, same messages, in the same order. Bodies as in 20261124002900 (place_order,
-- settle_fills) and 20261122002000 (check_order_request) but for the above.

create or replace function private.check_order_request(
  p_user uuid, p_side text, p_type text, p_amount numeric, p_price numeric
) returns public.exchange_settings language plpgsql stable security definer set search_path = ''
set plan_cache_mode = force_generic_plan as $$
declare
  settings public.exchange_settings;
  read record;
begin
  if p_user is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  select s as settings, coalesce(p.status <> 'active', false) as suspended into read
    from public.exchange_settings s left join public.profiles p on p.id = p_user;
  settings := read.settings;
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
  if p_type = 'limit' and (select count(*) from public.orders where user_id = p_user and status = 'open') >= settings.max_open_orders then
    raise exception 'You have % open orders, the most allowed. Cancel one before placing another limit order.',
      settings.max_open_orders using errcode = 'P0001';
  end if;
  return settings;
end $$;

drop function private.settle_fills(uuid, text, jsonb, timestamptz);
create function private.settle_fills(
  p_token uuid, p_taker_side text, p_fills jsonb, p_at timestamptz default now(), p_bps integer default null
)
returns numeric language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  bps integer := coalesce(p_bps, private.fee_bps()); -- read once: the fees and their record agree
  taker_fees numeric;
  sellers integer;
  sellers_found integer;
begin
  if exists (select 1 from jsonb_to_recordset(p_fills) b(buyer uuid) join jsonb_to_recordset(p_fills) s(seller uuid) on b.buyer = s.seller) then
    raise exception 'An account cannot trade with itself.' using errcode = 'P0001';
  end if;
  with fill as (
    select f.*, private.trade_value(f.price, f.amount) as value,
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
                else least(buyer_reserved, value + buyer_fee) end as release
    from priced
  ),
  trade as (
    insert into public.trades (token_id, buy_order_id, sell_order_id, buyer_id, seller_id, price, amount, taker_side,
                               buyer_fee, seller_fee, created_at, proceeds_to, fee_bps)
    select p_token, buy_order, sell_order, buyer, seller, price, amount, p_taker_side,
           buyer_fee, seller_fee, p_at, nullif(payee, seller), bps
    from moved order by seq
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
  select (select count(*) from sold), (select count(distinct seller) from moved),
         (select coalesce(sum(case when p_taker_side = 'buy' then buyer_fee else seller_fee end), 0) from moved)
    into sellers_found, sellers, taker_fees;
  if sellers_found < sellers then raise exception 'The seller holds none of these tokens.' using errcode = 'P0001'; end if;
  return taker_fees;
end $$;
revoke all on function private.settle_fills(uuid, text, jsonb, timestamptz, integer) from public, anon, authenticated;

create or replace function public.place_order(
  p_token uuid, p_side text, p_type text, p_amount numeric, p_price numeric default null
) returns jsonb language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
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
  fee_sum numeric := 0;
  book_time timestamptz;
begin
  -- The book's lock: one order at a time per token.
  select id, name, total_supply, owner_id into tok from public.tokens where id = p_token for update;
  if not found then raise exception 'There is no such token.' using errcode = 'P0001'; end if;
  book_time := clock_timestamp(); -- the order's time in the book: after the book's lock, so it follows every order before it
  if p_amount > tok.total_supply then
    raise exception 'The amount cannot exceed the total supply of % tokens.', tok.total_supply using errcode = '22023';
  end if;
  v_amount := p_amount::bigint;
  budget := private.check_order_funds(uid, p_token, tok.name, p_side, p_type, v_amount, p_price, settings.fee_bps);

  -- The order's id, drawn now: its trades name it, and its row is written once it is settled.
  v_order := nextval(pg_get_serial_sequence('public.orders', 'id'));

  matched := private.match_order(uid, p_token, v_order, p_side, p_type, v_amount, p_price, budget, settings.fee_bps);
  if p_type = 'market' and jsonb_array_length(matched.fills) = 0 then
    if exists (select 1 from public.orders where token_id = p_token and status = 'open' and user_id <> uid
                 and side = case when p_side = 'buy' then 'sell' else 'buy' end) then
      raise exception 'Insufficient funds: you cannot afford one % token at the best price.', tok.name using errcode = 'P0001';
    end if;
    raise exception 'There are no % orders for % right now. Place a limit order to wait for a %.',
      case when p_side = 'buy' then 'sell' else 'buy' end, tok.name,
      case when p_side = 'buy' then 'seller' else 'buyer' end using errcode = 'P0001';
  end if;

  -- Every account involved, cash then holdings, in ascending user id (no deadlocks): the caller and
  -- the makers it met; the person behind an offering receives its proceeds, so their cash is locked too.
  perform 1 from public.cash_accounts
   where user_id = any(uid || matched.makers || case when tok.owner_id is not null
                                                      and private.issuance_account() = any(matched.makers)
                                                    then array[tok.owner_id] else '{}' end)
   order by user_id for update;
  perform 1 from public.holdings where token_id = p_token and user_id = any(uid || matched.makers)
   order by user_id for update;

  -- Own resting orders met while matching are expired (self-trade prevention).
  if cardinality(matched.expire) > 0 then
    perform private.release_order(x) from unnest(matched.expire) x;
  end if;

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
    -- An assignment rather than `perform`: no executor of its own. A sell's budget is 0, and unused.
    budget := private.check_order_funds(uid, p_token, tok.name, p_side, p_type, v_amount, p_price, settings.fee_bps);
  end if;

  if jsonb_array_length(matched.fills) > 0 then
    fee_sum := private.settle_fills(p_token, p_side, matched.fills, book_time, settings.fee_bps);
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
  insert into public.orders (id, user_id, token_id, side, type, price, amount, filled, filled_value, fees_paid,
                             reserved, status, created_at, closed_at)
  overriding system value
  values (v_order, uid, p_token, p_side, p_type, p_price, v_amount, v_amount - matched.remaining, matched.spent_value,
          fee_sum, rest_cost, final_status, book_time, case when final_status <> 'open' then clock_timestamp() end);

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
