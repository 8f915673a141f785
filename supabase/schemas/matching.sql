-- Matching an order against the book and settling its fills (trading.sql has the engine's map);
-- and the seed's ways to rest an order and record a fill through the same settlement.

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
--
-- Every order also trades within the volatility band around the token's reference price
-- (auctions.sql): when the next order it would meet lies beyond it, matching stops there and
-- `beyond` is that order's price, `reference` the band's centre; the caller starts a volatility
-- auction. During an auction (p_call) nothing is matched: the caller's own orders that the new one
-- crosses are still expired, so that no account meets itself when the auction uncrosses.
create function private.match_order(
  p_user uuid, p_token uuid, p_order bigint, p_side text, p_type text, p_amount bigint, p_price numeric,
  p_budget numeric, p_bps integer, p_call boolean,
  out fills jsonb, out expire bigint[], out remaining bigint, out spent_value numeric, out makers uuid[],
  out beyond numeric, out reference numeric
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
end $$;
revoke execute on function private.match_order(uuid, uuid, bigint, text, text, bigint, numeric, numeric, integer, boolean) from public;

-- How many of `p_want` tokens at `p_price` a market buy can still pay for, having spent
-- `p_spent` of value already: its value and the fee on the whole order's value within `p_budget`.
-- The one rule for a budget, shared by the engine (match_order) and its quote (quote_order).
create function private.affordable(p_want bigint, p_price numeric, p_spent numeric, p_budget numeric, p_bps integer)
returns bigint language plpgsql immutable set search_path = '' as $$
declare
  n bigint := least(p_want, floor((p_budget - p_spent - private.fee(p_spent, p_bps)) / (p_price * (1 + p_bps / 10000.0)))::bigint);
begin
  while n > 0 and p_spent + private.trade_value(p_price, n) + private.fee(p_spent + private.trade_value(p_price, n), p_bps) > p_budget loop
    n := n - 1;
  end loop;
  return greatest(n, 0);
end $$;
revoke execute on function private.affordable(bigint, numeric, numeric, numeric, integer) from public;

-- Settles all of an order's fills in one statement: one insert into trades, one update of each
-- account's cash, one of the sellers' holdings, one upsert of the buyers', one update of each
-- resting order met. It is the one place money and tokens move in a trade. The taker's own order
-- is written by place_order after it; this returns the fees the taker paid over the fills.
-- The taker pays p_bps (the exchange's taker fee unless told), the resting order the maker fee,
-- at most p_bps: a maker's rebate never exceeds what the same fill's taker pays, so no trade pays
-- out more than it takes.
create function private.settle_fills(
  p_token uuid, p_taker_side text, p_fills jsonb, p_at timestamptz default now(), p_bps integer default null,
  p_maker_bps integer default null
)
returns numeric language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  rules public.exchange_settings := (select e from public.exchange_settings e); -- read once: the fees and their record agree
  bps integer := coalesce(p_bps, rules.fee_bps);
  maker_bps integer := least(coalesce(p_maker_bps, rules.maker_fee_bps), bps);
  share_bps integer := rules.creator_fee_share_bps;
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
  charged as (
    select fill.*,
      private.fill_fee(coalesce(bo.filled_value, 0),
        coalesce(sum(fill.value) over (partition by coalesce(fill.buy_order, -fill.seq) order by fill.seq
                                       rows between unbounded preceding and 1 preceding), 0), fill.value,
        case when p_taker_side = 'buy' then bps else maker_bps end) as buyer_fee,
      private.fill_fee(coalesce(so.filled_value, 0),
        coalesce(sum(fill.value) over (partition by coalesce(fill.sell_order, -fill.seq) order by fill.seq
                                       rows between unbounded preceding and 1 preceding), 0), fill.value,
        case when p_taker_side = 'sell' then bps else maker_bps end) as seller_fee
    from fill
    left join public.orders bo on bo.id = fill.buy_order
    left join public.orders so on so.id = fill.sell_order
  ),
  -- A rebate is at most the same fill's taker fee (each is rounded on its own order's total).
  priced as (
    select c.seq, c.buyer, c.seller, c.buy_order, c.sell_order, c.price, c.amount, c.buyer_reserved, c.buyer_completes,
           c.seller_reserved, c.value, c.creator, c.payee,
           case when p_taker_side = 'sell' then greatest(c.buyer_fee, -c.seller_fee) else c.buyer_fee end as buyer_fee,
           case when p_taker_side = 'buy' then greatest(c.seller_fee, -c.buyer_fee) else c.seller_fee end as seller_fee
    from charged c
  ),
  moved as (
    select priced.*,
           case when buyer_reserved = 0 then 0
                when buyer_completes then buyer_reserved
                else least(buyer_reserved, value + buyer_fee) end as release,
           case when creator is null then 0 else round(greatest(buyer_fee + seller_fee, 0) * share_bps / 10000.0, 2) end as creator_share
    from priced
  ),
  trade as (
    insert into public.trades (token_id, buy_order_id, sell_order_id, buyer_id, seller_id, price, amount, taker_side,
                               buyer_fee, seller_fee, created_at, proceeds_to, fee_bps, maker_fee_bps, creator_id, creator_share)
    select p_token, buy_order, sell_order, buyer, seller, price, amount, p_taker_side,
           buyer_fee, seller_fee, p_at, nullif(payee, seller), bps, maker_bps, creator, creator_share
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
revoke execute on function private.settle_fills(uuid, text, jsonb, timestamp with time zone, integer, integer) from public;

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

-- What fill `value` of an order costs in fees at `bps`, the order having filled `base_value` before
-- this statement and `before` of value in earlier fills of the same statement: the fee on its
-- cumulative value less the fee on what came before, so an order filled in parts at one rate pays
-- what it would pay filled at once (one rounding per order). Negative for a maker's rebate.
create function private.fill_fee(base_value numeric, before numeric, value numeric, bps integer)
returns numeric language sql immutable as $$
  select private.fee(base_value + before + value, bps) - private.fee(base_value + before, bps)
$$;
revoke execute on function private.fill_fee(numeric, numeric, numeric, integer) from public;

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
