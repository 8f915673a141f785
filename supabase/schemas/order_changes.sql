-- Changing what is on the book: releasing, cancelling one order or all, replacing one, and a
-- token's trading halt (trading.sql has the engine's map).

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
  perform private.require_scope('trade');
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

-- Cancels all of the caller's open orders, or those in one token. Returns how many.
create function public.cancel_all_orders(p_token uuid default null) returns integer
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := auth.uid();
begin
  if uid is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_second_step();
  perform private.require_scope('trade');
  return private.cancel_all_of(uid, p_token);
end $$;
revoke execute on function public.cancel_all_orders(uuid) from public, anon;

-- Cancels all of an account's open orders (or those in one token): every book's lock first, in
-- token order, as the engine takes them; the market and the owner's screens are told.
create function private.cancel_all_of(p_user uuid, p_token uuid) returns integer
language plpgsql security definer set search_path = '' as $$
declare
  books uuid[];
  o bigint;
  released bigint[] := '{}';
  b uuid;
  n integer := 0;
begin
  select coalesce(array_agg(distinct token_id order by token_id), '{}') into books
  from public.orders where user_id = p_user and status in ('open', 'pending') and (p_token is null or token_id = p_token);
  perform 1 from public.tokens where id = any (books) order by id for no key update;
  for o in
    select id from public.orders
    where user_id = p_user and status in ('open', 'pending') and token_id = any (books)
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
  if n > 0 then perform private.tell_accounts(array[p_user], 'orders', p_token); end if;
  return n;
end $$;
revoke execute on function private.cancel_all_of(uuid, uuid) from public;

-- Cancels several of the caller's orders (up to 100), each on its own: one that cannot be
-- cancelled (unknown, already filled) is reported with why, and the others are cancelled all the
-- same. Books are locked in token order, as the engine takes them. Returns one result per id, in
-- the order given: cancel_order's, or {order_id, error}.
create function public.cancel_orders(p_orders bigint[]) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := auth.uid();
  results jsonb := '{}';
  o record;
begin
  if uid is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_scope('trade');
  if p_orders is null or cardinality(p_orders) not between 1 and 100 then
    perform private.refuse('Name 1 to 100 orders to cancel.');
  end if;
  for o in
    select distinct x.id, r.token_id from unnest(p_orders) x (id) left join public.orders r on r.id = x.id and r.user_id = uid
    order by r.token_id nulls first, x.id
  loop
    begin
      results := results || jsonb_build_object(o.id::text, public.cancel_order(o.id));
    exception when others then
      results := results || jsonb_build_object(o.id::text, jsonb_build_object('order_id', o.id, 'error', sqlerrm));
    end;
  end loop;
  return (select jsonb_agg(results -> x::text order by i) from unnest(p_orders) with ordinality u (x, i));
end $$;
revoke execute on function public.cancel_orders(bigint[]) from public, anon;

-- The dead-man's switch, as Kraken has it: cancel_all_after(60) arms it, and if it is not called
-- again within 60 seconds every open order of the account is cancelled (private.fire_cancel_after,
-- every second) and the owner is told. A bot calls it as a heartbeat, so a crash or a lost
-- connection leaves no stale quotes; 0 turns it off. Returns when it fires (null: off).
create table private.cancel_after (
  user_id uuid primary key references public.profiles (id) on delete cascade,
  deadline timestamptz not null,
  seconds integer not null
);
create index cancel_after_deadline_idx on private.cancel_after (deadline);

create function public.cancel_all_after(p_seconds integer) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.trading_caller();
  at timestamptz;
begin
  if p_seconds is null or p_seconds not between 0 and 86400 then
    perform private.refuse('Give the seconds to wait, 1 to 86400, or 0 to turn the switch off.');
  end if;
  if p_seconds = 0 then
    delete from private.cancel_after where user_id = uid;
    return jsonb_build_object('armed', false, 'deadline', null);
  end if;
  insert into private.cancel_after (user_id, deadline, seconds) values (uid, now() + make_interval(secs => p_seconds), p_seconds)
  on conflict (user_id) do update set deadline = excluded.deadline, seconds = excluded.seconds
  returning deadline into at;
  return jsonb_build_object('armed', true, 'deadline', at, 'seconds', p_seconds);
end $$;
revoke execute on function public.cancel_all_after(integer) from public, anon;

-- Fires the switches whose time has come: each account's open orders cancelled, and the owner
-- mailed. Each account in its own subtransaction, so one that fails waits for the next run.
create function private.fire_cancel_after() returns integer
language plpgsql security definer set search_path = '' as $$
declare
  due private.cancel_after;
  n integer;
  fired integer := 0;
begin
  for due in
    delete from private.cancel_after where user_id in
      (select user_id from private.cancel_after where deadline <= now() order by deadline limit 100 for update skip locked)
    returning *
  loop
    begin
      n := private.cancel_all_of(due.user_id, null);
      perform private.notify(due.user_id, 'orders', 'Your orders were cancelled by your dead-man''s switch',
        format(E'Your API client had not called cancel_all_after within %s seconds (by %s UTC), so RepX '
               'cancelled your %s open order%s, as you asked. Call cancel_all_after again to re-arm it.',
               due.seconds, to_char(due.deadline at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS'), n, case when n = 1 then '' else 's' end),
        '/dashboard');
      fired := fired + 1;
    exception when others then
      insert into private.cancel_after values (due.user_id, now() + interval '1 second', due.seconds);
    end;
  end loop;
  return fired;
end $$;
revoke execute on function private.fire_cancel_after() from public;

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
  perform private.require_scope('trade');
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
    perform private.notify(tok.owner_id, 'token',
      case when p_halted then 'Trading in your RepX token is halted' else 'Trading in your RepX token has resumed' end,
      case when p_halted
        then format(E'RepX halted trading in your token %s on %s: %s.\n'
                    'Orders already on the book stay there and may be cancelled; no new order is accepted until trading resumes. We will email you when it does.',
               tok.name, to_char(now() at time zone 'UTC', 'Mon FMDD, YYYY, HH24:MI "UTC"'), rtrim(reason, '.'))
        else format('Trading in your token %s resumed on %s: orders are accepted again.',
               tok.name, to_char(now() at time zone 'UTC', 'Mon FMDD, YYYY, HH24:MI "UTC"'))
      end, '/trading/' || p_token);
  end if;
  perform private.audit(case when p_halted then 'token.halt' else 'token.resume' end, tok.owner_id, tok.name,
    jsonb_build_object('halt_reason', tok.halt_reason), jsonb_build_object('halt_reason', case when p_halted then reason end),
    case when p_halted then reason end);
  return jsonb_build_object('token_id', p_token, 'halted', p_halted, 'halt_reason', case when p_halted then reason end);
end $$;
revoke execute on function public.admin_set_token_halt(uuid, boolean, text) from public, anon;
