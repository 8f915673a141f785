-- An admin can halt trading in one token, with a reason, as exchanges halt one symbol: while a
-- fraud alert on it is reviewed, or news is pending. New orders on it are refused with the
-- reason (the book's lock is taken first, so an order that arrives during the halt never
-- trades); its resting orders stay on the book and may be cancelled; the rest of the market
-- trades on. Resuming lifts it. Both are audited, mailed to the token's person, and announced on
-- the token's market events, so open trading screens follow at once. place_order is
-- 20261124003300's but for the halt's test.

alter table public.tokens
  add column halt_reason text check (char_length(halt_reason) between 3 and 200),
  add column halted_at timestamptz,
  add constraint tokens_halt_whole check ((halt_reason is null) = (halted_at is null));

create or replace function public.admin_set_token_halt(p_token uuid, p_halted boolean, p_reason text default null)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  admin uuid := private.require_admin();
  tok public.tokens;
  reason text := nullif(btrim(p_reason), '');
begin
  if p_halted is null then perform private.refuse('Say whether trading in the token is halted.'); end if;
  select * into tok from public.tokens where id = p_token for update; -- the book's lock: no order is half through
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
  insert into public.market_events (token_id, kind) values (p_token, 'book');
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
  select id, name, total_supply, owner_id, halt_reason into tok from public.tokens where id = p_token for update;
  if not found then raise exception 'There is no such token.' using errcode = 'P0001'; end if;
  if tok.halt_reason is not null then
    raise exception 'Trading in % is halted: %. Cancelling open orders still works.', tok.name, rtrim(tok.halt_reason, '.')
      using errcode = 'P0001';
  end if;
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

revoke execute on function public.admin_set_token_halt(uuid, boolean, text) from public, anon;
