-- Matching reads the book in its own order and stops when the order is filled. The book's index was
-- (token, side, price, created_at), but the match asked for `side <> p_side` and a sort key built
-- from `case` expressions, so it read every open order of the token on either side within the
-- price, dropped the taker's own side by filter, and sorted what was left: an order cost more the
-- deeper the book (about 0.6 ms at 1,500 open orders on PostgreSQL), whether it matched or not.
--
-- The index now holds each side best first: rank is the price for asks and minus the price for
-- bids, then oldest first, then id (price-time priority, as the engine has always matched). The
-- match scans the other side in that order, locking each order as it reaches it, and the price
-- limit bounds the scan. The order book view and the market check read the same index.
--
-- The match also returns the makers it traded with, so place_order locks their accounts from that
-- list rather than by reading the fills' JSON five times.

create index orders_book_rank_idx on public.orders
  (token_id, side, (case when side = 'buy' then -price else price end), created_at, id) where status = 'open';
drop index public.orders_book_idx;

drop function private.match_order(uuid, uuid, bigint, text, text, bigint, numeric, numeric, integer);
create function private.match_order(
  p_user uuid, p_token uuid, p_order bigint, p_side text, p_type text, p_amount bigint, p_price numeric,
  p_budget numeric, p_bps integer,
  out fills jsonb, out expire bigint[], out remaining bigint, out spent_value numeric, out makers uuid[]
) language plpgsql security definer set search_path = '' as $$
declare
  other text := case when p_side = 'buy' then 'sell' else 'buy' end;
  -- The worst rank the order accepts: its limit price, as ranked on the other side; none at market.
  worst numeric := case when p_type = 'market' then 'Infinity'::numeric
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
end $$;
revoke all on function private.match_order(uuid, uuid, bigint, text, text, bigint, numeric, numeric, integer)
  from public, anon, authenticated;

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
