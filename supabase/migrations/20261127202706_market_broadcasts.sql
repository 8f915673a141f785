-- market_broadcasts: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

drop policy if exists "market events are visible to signed-in users" on public.market_events;

alter table public.market_events drop constraint if exists "market_events_kind_check";

alter table public.market_events drop constraint if exists "market_events_pkey";

alter table public.market_events drop constraint if exists "market_events_token_id_fkey";

drop index if exists public.market_events_pkey;

drop index if exists public.market_events_time_idx;

drop table public.market_events;

CREATE OR REPLACE FUNCTION private.alerts_on_trades()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  fired integer;
  owners uuid[];
begin
  -- Most settlements meet no armed alert: one probe of their index each.
  if not exists (select 1 from public.price_alerts a where a.fired_at is null
                   and a.token_id in (select n.token_id from new_trades n)) then
    return null;
  end if;
  with moved as (
    select n.token_id, max(n.price) as high, min(n.price) as low,
           (array_agg(n.price order by n.created_at desc, n.id desc))[1] as last
    from new_trades n group by n.token_id
  ),
  hit as (
    update public.price_alerts a
       set fired_at = now(),
           fired_price = case a.kind when 'above' then m.high when 'below' then m.low else m.last end
      from moved m left join private.token_stats s on s.token_id = m.token_id
     where a.token_id = m.token_id and a.fired_at is null
       and case a.kind when 'above' then m.high >= a.price
                       when 'below' then m.low <= a.price
                       else abs(coalesce(s.change_24h, 0)) >= a.move_pct end
    returning a.*
  ),
  mailed as (
    insert into private.account_mail (user_id, subject, body)
    select h.user_id, format('Price alert: %s at %s', t.name, private.money(h.fired_price)),
           private.alert_words(h, t.name) || E'\n\nThe alert stays on your list until you remove it or set it again.'
    from hit h join public.tokens t on t.id = h.token_id
    returning user_id
  )
  select count(*), array_agg(distinct user_id) into fired, owners from mailed;
  if fired > 0 then
    perform pg_notify('repx_mail', ''); -- only when one fired: a notifying commit serializes
    perform private.tell_accounts(owners, 'alert');
  end if;
  return null;
end $function$;

CREATE OR REPLACE FUNCTION private.book_levels(p_token uuid, p_levels jsonb)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select coalesce(jsonb_agg(jsonb_build_object('side', l.side, 'price', l.price, 'amount',
           (select coalesce(sum(o.amount - o.filled), 0) from public.orders o
             where o.token_id = p_token and o.side = l.side and o.status = 'open'
               and (case when o.side = 'buy' then -o.price else o.price end)
                 = (case when l.side = 'buy' then -l.price else l.price end))) order by l.side, l.price), '[]')
  from (select distinct x.side, x.price from jsonb_to_recordset(p_levels) as x (side text, price numeric)
        where x.price is not null) l
$function$;

CREATE OR REPLACE FUNCTION private.close_next_offering()
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  f public.offerings;
  c record;
  tok public.tokens;
  fills jsonb;
  total_sold bigint;
begin
  select o.* into f from public.offerings o
   where o.closed_at is null and o.closes_at <= now()
     and not (select trading_halted from public.exchange_settings)
     and not exists (select 1 from public.tokens t where t.id = o.token_id and t.halt_reason is not null)
   order by o.closes_at
   limit 1 for update of o skip locked;
  if f.id is null then return false; end if;
  select * into tok from public.tokens where id = f.token_id for update;
  if tok.halt_reason is not null then return false; end if;
  perform 1 from public.cash_accounts
   where user_id in (select b.user_id from public.offering_bids b where b.offering_id = f.id) or user_id = tok.owner_id
   order by user_id for update;
  perform 1 from public.holdings
   where token_id = f.token_id
     and (user_id in (select b.user_id from public.offering_bids b where b.offering_id = f.id) or user_id = private.issuance_account())
   order by user_id for update;

  select * into c from private.offering_clearing(f.id);
  update public.offering_bids b set allocated = a.allocated
    from private.offering_allocations(f.id) a where b.offering_id = f.id and b.user_id = a.user_id;
  update public.offering_bids set allocated = 0 where offering_id = f.id and allocated is null; -- suspended accounts
  select coalesce(sum(b.allocated), 0) into total_sold from public.offering_bids b where b.offering_id = f.id;

  -- Each allocation is a trade: the bid's whole reservation is released, its value and fee paid.
  select jsonb_agg(jsonb_build_object('seq', n, 'buyer', user_id, 'seller', private.issuance_account(),
           'price', c.price, 'amount', allocated, 'buyer_reserved', reserved, 'buyer_completes', true,
           'seller_reserved', false) order by n)
    into fills
    from (select b.*, row_number() over (order by b.user_id) as n
            from public.offering_bids b where b.offering_id = f.id and b.allocated > 0) x;
  if fills is not null then
    perform private.settle_fills(f.token_id, 'buy', fills, now(), f.fee_bps);
  end if;
  -- Every other reservation (bids below the price, or of suspended accounts) goes back.
  update public.cash_accounts ca set available = ca.available + b.reserved, reserved = ca.reserved - b.reserved
    from public.offering_bids b
   where b.offering_id = f.id and b.user_id = ca.user_id and b.allocated = 0;
  update public.offering_bids set reserved = 0 where offering_id = f.id;
  update public.offerings set closed_at = now(), clearing_price = case when total_sold > 0 then c.price end, sold = total_sold
   where id = f.id;

  insert into private.account_mail (user_id, subject, body)
  select b.user_id,
         format('%s offering: %s', tok.name, case when b.allocated > 0 then format('%s tokens at %s', to_char(b.allocated, 'FM999,999,999,990'), private.money(c.price))
                                                 else 'no tokens' end),
         case when b.allocated > 0
              then format('The offering of %s closed at %s a token. Your bid for %s at %s received %s tokens; you paid %s plus the fee, and the rest of what your bid held back is available again.',
                          tok.name, private.money(c.price), to_char(b.amount, 'FM999,999,999,990'), private.money(b.price),
                          to_char(b.allocated, 'FM999,999,999,990'),
                          private.money(private.trade_value(c.price, b.allocated)))
              else format('The offering of %s closed%s. Your bid for %s at %s received no tokens, and all it held back is available again.',
                          tok.name, case when total_sold > 0 then ' at ' || private.money(c.price) || ' a token' else '' end,
                          to_char(b.amount, 'FM999,999,999,990'), private.money(b.price))
         end
    from public.offering_bids b where b.offering_id = f.id;
  perform pg_notify('repx_mail', '');
  perform private.tell_market(f.token_id, 'offering');
  perform private.tell_accounts(array(select b.user_id from public.offering_bids b where b.offering_id = f.id), 'fills', f.token_id);
  perform private.tell_accounts(array[tok.owner_id], 'cash', f.token_id);
  return true;
end $function$;

CREATE OR REPLACE FUNCTION private.execute_order(p_user uuid, tok public.tokens, p_order bigint, p_side text, p_type text, p_amount bigint, p_price numeric, p_tif text, p_expires_at timestamp with time zone, p_post_only boolean, p_bps integer, p_budget numeric)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
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
end $function$;

CREATE OR REPLACE FUNCTION private.expire_orders()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  o record;
  n integer := 0;
begin
  for o in
    select id, token_id, user_id from public.orders
    where status in ('open', 'pending') and expires_at is not null and expires_at <= now()
    order by expires_at limit 500
  loop
    perform 1 from public.tokens where id = o.token_id for update;
    perform private.release_order(o.id, 'expired');
    perform private.tell_market(o.token_id, 'book', private.order_levels(array[o.id]));
    perform private.tell_accounts(array[o.user_id], 'orders', o.token_id);
    n := n + 1;
  end loop;
  return n;
end $function$;

CREATE OR REPLACE FUNCTION private.hold_stop(p_user uuid, tok public.tokens, p_side text, p_type text, p_amount bigint, p_price numeric, p_stop numeric, p_tif text, p_expires_at timestamp with time zone, p_bps integer, p_oco_with bigint DEFAULT NULL::bigint)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$;

CREATE OR REPLACE FUNCTION private.order_levels(p_orders bigint[])
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select coalesce(jsonb_agg(jsonb_build_object('side', o.side, 'price', o.price)), '[]')
  from public.orders o
  where o.price is not null and (o.id = any (p_orders) or o.oco_with = any (p_orders))
$function$;

CREATE OR REPLACE FUNCTION private.prune()
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  sessions integer;
  tokens integer;
  mail integer;
  browsers integer;
  unconfirmed integer := 0;
  stale uuid;
begin
  delete from auth.sessions where coalesce(refreshed_at, created_at) < now() - interval '30 days';
  get diagnostics sessions = row_count;
  delete from auth.refresh_tokens where revoked and updated_at < now() - interval '1 day';
  get diagnostics tokens = row_count;
  delete from private.account_mail where sent_at < now() - interval '7 days';
  get diagnostics mail = row_count;
  delete from private.known_browsers where last_seen < now() - interval '1 year';
  get diagnostics browsers = row_count;
  for stale in
    -- A person's sign-up (a password, a user's profile): never the offering's system account.
    select u.id from auth.users u join public.profiles p on p.id = u.id
     where u.email_confirmed_at is null and u.created_at < now() - interval '1 day'
       and u.encrypted_password is not null and p.role = 'user'
  loop
    begin
      delete from auth.users where id = stale;
      unconfirmed := unconfirmed + 1;
    exception when foreign_key_violation then
      null; -- kept: the audit log or another record names it
    end;
  end loop;
  return jsonb_build_object('sessions', sessions, 'refresh_tokens', tokens,
    'account_mail', mail, 'known_browsers', browsers, 'unconfirmed_sign_ups', unconfirmed);
end $function$;

CREATE OR REPLACE FUNCTION private.record_index_levels()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  h timestamptz;
  d date;
  value numeric;
  n integer := 0;
begin
  if not pg_try_advisory_xact_lock(hashtext('private.record_index_levels')) then return 0; end if;
  h := coalesce((select max(l.at) + interval '1 hour' from public.index_levels l where l.period = 'hour'),
                date_trunc('day', (select min(tr.created_at) from public.trades tr), 'UTC'));
  -- A bounded catch-up per run: a long history is written over a few runs.
  while h <= now() and n < 2000 loop
    d := (h at time zone 'UTC')::date;
    if not private.rebalance_index(d) then
      h := (d + 1)::timestamp at time zone 'UTC'; -- not started yet: try the next day
      continue;
    end if;
    value := round(private.index_value(d, h), 4);
    insert into public.index_levels (period, at, level) values ('hour', h, value) on conflict do nothing;
    if h = d::timestamp at time zone 'UTC' then
      insert into public.index_levels (period, at, level) values ('day', h, value) on conflict do nothing;
    end if;
    n := n + 1;
    h := h + interval '1 hour';
  end loop;
  -- Open market screens read the index again: a new hour's level, perhaps a new day's basket.
  if n > 0 then perform realtime.send(jsonb_build_object('kind', 'index', 'levels', n), 'index', 'market', true); end if;
  return n;
end $function$;

CREATE OR REPLACE FUNCTION private.slide_token_stats()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  tid uuid;
  before jsonb;
  n integer := 0;
begin
  -- The batch due first, locked in token order, as the hourly rescoring locks tokens: two
  -- transactions that lock several tokens in one order cannot deadlock.
  for tid in select x.token_id from (select d.token_id from private.token_stats d where d.slides_at <= now()
                                     order by d.slides_at limit 500) x order by x.token_id loop
    perform 1 from public.tokens where id = tid for update;
    before := (select jsonb_build_object('market_cap', s.market_cap, 'volume_24h', s.volume_24h)
                 from private.token_stats s where s.token_id = tid);
    perform private.refresh_token_stats(tid);
    perform private.tell_market(tid, 'stats', '[]', null, before);
    n := n + 1;
  end loop;
  return n;
end $function$;

CREATE OR REPLACE FUNCTION private.tell_accounts(p_accounts uuid[], p_what text, p_token uuid DEFAULT NULL::uuid)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
begin
  perform realtime.send(jsonb_build_object('what', p_what, 'token_id', p_token), 'account', 'account:' || x.a::text, true)
     from (select distinct a from unnest(p_accounts) a where a is not null) x;
end $function$;

CREATE OR REPLACE FUNCTION private.tell_market(p_token uuid, p_kind text, p_levels jsonb DEFAULT '[]'::jsonb, p_trades_at timestamp with time zone DEFAULT NULL::timestamp with time zone, p_before jsonb DEFAULT NULL::jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  s private.token_stats;
  trades jsonb := '[]';
  levels jsonb := coalesce(p_levels, '[]');
begin
  select * into s from private.token_stats where token_id = p_token;
  if p_trades_at is not null then
    select coalesce(jsonb_agg(jsonb_build_object('id', t.id, 'price', t.price, 'amount', t.amount, 'value', t.value,
                                                 'type', t.taker_side, 'created_at', t.created_at)
                              order by t.id desc), '[]'),
           levels || coalesce(jsonb_agg(jsonb_build_object('side', case when t.taker_side = 'buy' then 'sell' else 'buy' end,
                                                           'price', t.price)), '[]')
      into trades, levels
      from public.trades t where t.token_id = p_token and t.created_at = p_trades_at;
  end if;
  perform realtime.send(jsonb_build_object(
    'token_id', p_token, 'kind', p_kind,
    'price', s.price, 'change_24h', s.change_24h, 'volume_24h', s.volume_24h, 'market_cap', s.market_cap,
    'market_cap_change', coalesce(s.market_cap - (p_before->>'market_cap')::numeric, 0),
    'volume_change', coalesce(s.volume_24h - (p_before->>'volume_24h')::numeric, 0), 'holders', s.holders, 'halted', s.halted,
    'best_bid', (select o.price from public.orders o where o.token_id = p_token and o.side = 'buy' and o.status = 'open'
                  order by o.token_id, o.side, (case when o.side = 'buy' then -o.price else o.price end), o.created_at, o.id limit 1),
    'best_ask', (select o.price from public.orders o where o.token_id = p_token and o.side = 'sell' and o.status = 'open'
                  order by o.token_id, o.side, (case when o.side = 'buy' then -o.price else o.price end), o.created_at, o.id limit 1),
    'levels', private.book_levels(p_token, levels),
    'trades', trades), 'token', 'market', true);
end $function$;

CREATE OR REPLACE FUNCTION public.admin_approve_application(p_id bigint, p_total_supply bigint DEFAULT NULL::bigint, p_issue_price numeric DEFAULT NULL::numeric)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  admin uuid := private.require_admin();
  s public.exchange_settings;
  app public.token_applications;
  owner public.profiles;
  supply bigint;
  price numeric;
  founder bigint;
  tok uuid;
  offering_closes timestamptz;
begin
  select * into app from public.token_applications where id = p_id for update;
  if not found then perform private.refuse('There is no such application.'); end if;
  if app.status <> 'pending' then perform private.refuse(format('This application was already %s.', app.status)); end if;
  select * into owner from public.profiles where id = app.user_id for update;
  if owner.status <> 'active' then perform private.refuse('The applicant''s account is suspended.'); end if;
  if exists (select 1 from public.tokens where owner_id = app.user_id) then perform private.refuse('The applicant already has a token.'); end if;
  select * into s from public.exchange_settings;
  supply := coalesce(p_total_supply, s.token_supply);
  price := coalesce(p_issue_price, s.token_issue_price);
  if supply < 1000 or supply > 1000000000 then perform private.refuse('The total supply must be between 1,000 and 1,000,000,000 tokens.'); end if;
  -- No higher than anyone may ask on the market.
  if price <= 0 or price > s.max_price or price <> round(price, 2) then
    perform private.refuse(format('The issue price must be between $0.01 and %s, in cents.', private.money(s.max_price)));
  end if;
  if exists (select 1 from public.tokens where lower(username) = lower(owner.username)) then
    perform private.refuse(format('A token named @%s already exists.', owner.username));
  end if;
  founder := floor(supply * s.token_founder_bps / 10000.0)::bigint;

  insert into public.tokens (owner_id, name, username, category, reputation_score, total_supply, issue_price, avatar_url, verified)
  values (app.user_id, app.display_name, owner.username, app.category, 0, supply, price, owner.avatar_url, owner.verified)
  returning id into tok;
  if founder > 0 then
    perform private.issue_tokens(tok, app.user_id, founder);
    -- The founder's allocation vests (a zero-month period releases it at once).
    insert into public.vesting_grants (token_id, user_id, total, cliff_months, months)
    values (tok, app.user_id, founder, least(s.founder_cliff_months, s.founder_vesting_months), s.founder_vesting_months);
    update public.holdings h set locked = h.amount - private.vested(g, now())
      from public.vesting_grants g where g.token_id = tok and h.token_id = tok and h.user_id = app.user_id;
  end if;
  -- Its first score, by the formula (reputation.sql), and the month's history point.
  update public.tokens set reputation_score = (public.reputation_components(tok) ->> 'score')::numeric where id = tok;
  insert into public.reputation_history (token_id, month, score)
  select tok, date_trunc('month', now())::date, reputation_score from public.tokens where id = tok;
  -- The rest is offered by batch auction (offerings.sql); trading opens when it closes.
  if supply > founder then
    perform private.issue_tokens(tok, private.issuance_account(), supply - founder);
    offering_closes := (private.open_offering(tok, supply - founder, price)).closes_at;
  end if;
  update public.token_applications set status = 'approved', token_id = tok, decided_by = admin, decided_at = now() where id = p_id
  returning * into app;
  perform private.tell_market(tok, 'listed');
  perform private.audit('application.approve', app.user_id, 'application ' || p_id, jsonb_build_object('status', 'pending'),
    jsonb_build_object('status', 'approved', 'token_id', tok, 'total_supply', supply, 'issue_price', price, 'founder_allocation', founder));
  return jsonb_build_object('application', to_jsonb(app), 'token_id', tok, 'total_supply', supply, 'issue_price', price,
    'founder_allocation', founder, 'offering', supply - founder, 'offering_closes_at', offering_closes);
end $function$;

CREATE OR REPLACE FUNCTION public.admin_offer_unsold(p_token uuid, p_price numeric DEFAULT NULL::numeric)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  admin uuid := private.require_admin();
  tok public.tokens;
  unsold bigint;
  price numeric;
  f public.offerings;
begin
  select * into tok from public.tokens where id = p_token for update;
  if tok.id is null then perform private.refuse('There is no such token.'); end if;
  if exists (select 1 from public.offerings where token_id = p_token and closed_at is null) then
    perform private.refuse(format('An offering of %s is open already.', tok.name));
  end if;
  if tok.halt_reason is not null then perform private.refuse(format('Trading in %s is halted: resume it first.', tok.name)); end if;
  select h.amount - h.reserved into unsold from public.holdings h
   where h.token_id = p_token and h.user_id = private.issuance_account() for update;
  if coalesce(unsold, 0) <= 0 then
    perform private.refuse(format('Nothing of %s is left to offer: the issuance account holds none.', tok.name));
  end if;
  price := coalesce(p_price, private.last_price(p_token));
  if price <= 0 or price <> round(price, 2) or price > (select max_price from public.exchange_settings) then
    perform private.refuse(format('The lowest bid must be between $0.01 and %s, in cents.',
      private.money((select max_price from public.exchange_settings))));
  end if;
  f := private.open_offering(p_token, unsold, price);
  -- Its trading state changed: open screens read the token's offering again.
  perform private.tell_market(p_token, 'offering');
  perform private.audit('offering.open', tok.owner_id, tok.name, null,
    jsonb_build_object('offering', f.id, 'supply', f.supply, 'reserve_price', f.reserve_price, 'closes_at', f.closes_at));
  return to_jsonb(f);
end $function$;

CREATE OR REPLACE FUNCTION public.admin_set_account_status(p_user uuid, p_status text, p_reason text DEFAULT NULL::text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  admin uuid := private.require_admin();
  target public.profiles;
  o record;
  dropped record;
  cancelled integer := 0;
  bids integer := 0;
  sessions integer;
begin
  if p_status is null or p_status not in ('active', 'suspended') then perform private.refuse('Status must be active or suspended.'); end if;
  if p_status = 'suspended' and char_length(trim(coalesce(p_reason, ''))) not between 3 and 500 then
    perform private.refuse('Give a reason of 3 to 500 characters for the suspension.');
  end if;
  target := private.managed_account(p_user);
  if target.status = p_status then perform private.refuse(format('The account is already %s.', p_status)); end if;
  update public.profiles set status = p_status where id = p_user;
  if p_status = 'suspended' then
    -- Locks as everyone takes them: the open offerings bid in first (as a bid and a close do),
    -- then every book the account has an order in, in token order, before its cash account (as
    -- the engine: a book, then cash), so that a trade on one of them cannot wait on this while it
    -- waits on that trade. The loop locks again a book an order placed meanwhile rests in.
    perform 1 from public.offerings f
     where f.closed_at is null and f.id in (select b.offering_id from public.offering_bids b where b.user_id = p_user)
     order by f.id for update;
    perform 1 from public.tokens k
     where k.id in (select r.token_id from public.orders r where r.user_id = p_user and r.status in ('open', 'pending'))
     order by k.id for update;
    for o in select id, token_id from public.orders where user_id = p_user and status in ('open', 'pending') order by token_id, id loop
      perform 1 from public.tokens where id = o.token_id for update;
      perform private.release_order(o.id);
      perform private.tell_market(o.token_id, 'book', private.order_levels(array[o.id]));
      cancelled := cancelled + 1;
    end loop;
    perform 1 from public.cash_accounts where user_id = p_user for update;
    for dropped in delete from public.offering_bids x using public.offerings f
              where x.user_id = p_user and f.id = x.offering_id and f.closed_at is null
              returning x.reserved, f.token_id loop
      update public.cash_accounts set available = available + dropped.reserved, reserved = reserved - dropped.reserved
       where user_id = p_user;
      perform private.tell_market(dropped.token_id, 'offering');
      bids := bids + 1;
    end loop;
    delete from auth.sessions where user_id = p_user;
    get diagnostics sessions = row_count;
  end if;
  perform private.audit(case p_status when 'suspended' then 'account.suspend' else 'account.reinstate' end, p_user, target.username,
    jsonb_build_object('status', target.status),
    jsonb_build_object('status', p_status, 'orders_cancelled', cancelled, 'bids_cancelled', bids, 'sessions_ended', coalesce(sessions, 0)),
    nullif(trim(coalesce(p_reason, '')), ''));
  return jsonb_build_object('status', p_status, 'orders_cancelled', cancelled, 'bids_cancelled', bids,
                            'sessions_ended', coalesce(sessions, 0));
end $function$;

CREATE OR REPLACE FUNCTION public.admin_set_token_halt(p_token uuid, p_halted boolean, p_reason text DEFAULT NULL::text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$;

CREATE OR REPLACE FUNCTION public.cancel_all_orders(p_token uuid DEFAULT NULL::uuid)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
  perform 1 from public.tokens where id = any (books) order by id for update;
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
end $function$;

CREATE OR REPLACE FUNCTION public.cancel_offering_bid(p_token uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := auth.uid();
  f public.offerings;
  was public.offering_bids;
begin
  if uid is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_second_step();
  select * into f from public.offerings where token_id = p_token and closed_at is null for update;
  if f.id is null or clock_timestamp() >= f.closes_at then
    perform private.refuse('This offering has closed; its bids are settled.');
  end if;
  perform 1 from public.cash_accounts where user_id = uid for update;
  delete from public.offering_bids where offering_id = f.id and user_id = uid returning * into was;
  if was.user_id is null then perform private.refuse('You have no bid in this offering.'); end if;
  update public.cash_accounts set available = available + was.reserved, reserved = reserved - was.reserved where user_id = uid;
  perform private.tell_market(p_token, 'offering');
  return jsonb_build_object('released', was.reserved);
end $function$;

CREATE OR REPLACE FUNCTION public.cancel_order(p_order bigint)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  uid uuid := auth.uid();
  o public.orders;
  levels jsonb;
begin
  if uid is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_second_step();
  select * into o from public.orders where id = p_order and user_id = uid;
  if not found then raise exception 'You have no order #%.', p_order using errcode = 'P0001'; end if;
  perform 1 from public.tokens where id = o.token_id for update; -- the book's lock first
  select * into o from public.orders where id = p_order for update;
  if o.status not in ('open', 'pending') then raise exception 'Order #% is already %.', p_order, o.status using errcode = 'P0001'; end if;
  perform private.release_order(p_order);
  levels := private.order_levels(array[p_order]);
  -- A waiting stop (and a stop-market pair's stop) never was on the book: the market sees nothing.
  if jsonb_array_length(levels) > 0 then perform private.tell_market(o.token_id, 'book', levels); end if;
  perform private.tell_accounts(array[uid], 'orders', o.token_id);
  return jsonb_build_object('order_id', p_order, 'status', 'cancelled', 'released_tokens',
    case when o.side = 'sell' then o.amount - o.filled else 0 end, 'released_cash', o.reserved);
end $function$;

CREATE OR REPLACE FUNCTION public.place_offering_bid(p_token uuid, p_price numeric, p_amount numeric)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := auth.uid();
  settings public.exchange_settings := private.check_order_request(uid, 'buy', 'limit', p_amount, p_price);
  f public.offerings := private.lock_open_offering(p_token);
  tok public.tokens;
  was public.offering_bids;
  bid public.offering_bids;
  cost numeric := private.buy_cost(p_price, p_amount, f.fee_bps);
begin
  select * into tok from public.tokens where id = p_token;
  if tok.owner_id = uid then perform private.refuse('You cannot bid in your own token''s offering.'); end if;
  if p_price < f.reserve_price then
    perform private.refuse(format('Bids start at the issue price, %s.', private.money(f.reserve_price)));
  end if;
  if p_amount > f.account_cap then
    perform private.refuse(format('One account may bid for at most %s tokens in this offering.',
      to_char(f.account_cap, 'FM999,999,999,990')));
  end if;
  perform 1 from public.cash_accounts where user_id = uid for update;
  select * into was from public.offering_bids where offering_id = f.id and user_id = uid for update;
  if was.user_id is not null then
    update public.cash_accounts set available = available + was.reserved, reserved = reserved - was.reserved where user_id = uid;
  end if;
  perform private.check_order_funds(uid, p_token, tok.name, 'buy', 'limit', p_amount::bigint, p_price, f.fee_bps);
  update public.cash_accounts set available = available - cost, reserved = reserved + cost where user_id = uid;
  insert into public.offering_bids (offering_id, user_id, price, amount, reserved)
  values (f.id, uid, p_price, p_amount, cost)
  on conflict (offering_id, user_id) do update
    set price = excluded.price, amount = excluded.amount, reserved = excluded.reserved,
        placed_at = case when excluded.price = was.price and excluded.amount <= was.amount then was.placed_at
                         else excluded.placed_at end
  returning * into bid;
  perform private.tell_market(p_token, 'offering');
  return jsonb_build_object('price', bid.price, 'amount', bid.amount, 'reserved', bid.reserved, 'placed_at', bid.placed_at,
                            'closes_at', f.closes_at);
end $function$;

create policy "people hear their own account" on realtime.messages as permissive for select to authenticated
  using ((( SELECT realtime.topic() AS topic) = ('account:'::text || (( SELECT auth.uid() AS uid))::text)));

create policy "signed-in users hear the market" on realtime.messages as permissive for select to authenticated
  using ((( SELECT realtime.topic() AS topic) = 'market'::text));

revoke all on routine private.book_levels(uuid,jsonb) from public;

revoke all on routine private.order_levels(bigint[]) from public;

revoke all on routine private.tell_accounts(uuid[],text,uuid) from public;

revoke all on routine private.tell_market(uuid,text,jsonb,timestamp with time zone,jsonb) from public;
