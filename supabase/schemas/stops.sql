-- Stops (held off the book until their trigger), take-profit and stop pairs, and the expiry of
-- good-til-date orders (trading.sql has the engine's map).

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
-- 1,000 stops run per transaction; any left wait for the next trade. None runs while the token is
-- in a volatility auction. Returns how many ran.
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
  beyond text;
  centre text;
begin
  perform set_config('lock_timeout', '100ms', true);
  while n < cap loop
    -- A stop that met the volatility band started an auction: the cascade ends at its boundary, and
    -- the stops left are checked against the auction's price when it uncrosses (auctions.sql).
    exit when (select t.auction_until from public.tokens t where t.id = tok.id) is not null;
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
      -- A stop-market that met the volatility band first: it waits again, and the auction starts.
      when sqlstate 'RXV01' then
        get stacked diagnostics beyond = pg_exception_detail, centre = pg_exception_hint;
        perform private.start_volatility_auction(tok, s.id, beyond::numeric, centre::numeric);
        perform private.tell_market(tok.id, 'auction');
        exit;
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
    if tok.halt_reason is null and tok.auction_until is null then n := n + private.trigger_stops(tok, private.fee_bps()); end if;
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
  perform private.check_take_profit(p_take_profit, private.last_price(p_token));
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

-- A pair's take-profit waits above the market: at or below the last price it would sell at once.
create function private.check_take_profit(p_take_profit numeric, last numeric)
returns void language plpgsql immutable security definer set search_path = '' as $$
begin
  if p_take_profit <= last then
    perform private.refuse(format('A take-profit sells above the last price of %s: set it higher, or sell now with a market or limit order.',
      private.money(last)));
  end if;
end $$;
revoke execute on function private.check_take_profit(numeric, numeric) from public;

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
