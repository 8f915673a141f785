-- social_discussion_notifications: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

create table public.holders_rooms ();

create table public.posts ();

create table private.post_reactions ();

create table private.post_reports ();

create table public.notification_kinds ();

create table public.notifications ();

create table public.notification_preferences ();

alter table public.holders_rooms add column "token_id" uuid not null;

alter table public.holders_rooms add column "min_tokens" bigint not null;

alter table public.holders_rooms add column "opened_at" timestamp with time zone default now() not null;

alter table public.posts add column "id" bigint generated always as identity;

alter table public.posts add column "token_id" uuid not null;

alter table public.posts add column "room" text default 'public'::text not null;

alter table public.posts add column "author_id" uuid not null;

alter table public.posts add column "reply_to" bigint;

alter table public.posts add column "body" text not null;

alter table public.posts add column "held_then" bigint default 0 not null;

alter table public.posts add column "standing" double precision default 0 not null;

alter table public.posts add column "votes" double precision default 0 not null;

alter table public.posts add column "created_at" timestamp with time zone default now() not null;

alter table public.posts add column "hidden" text;

alter table public.posts add column "hidden_reason" text;

alter table public.posts add column "reviewed_at" timestamp with time zone;

alter table private.post_reactions add column "post_id" bigint not null;

alter table private.post_reactions add column "user_id" uuid not null;

alter table private.post_reactions add column "kind" text not null;

alter table private.post_reactions add column "weight" double precision not null;

alter table private.post_reactions add column "created_at" timestamp with time zone default now() not null;

alter table private.post_reports add column "post_id" bigint not null;

alter table private.post_reports add column "user_id" uuid not null;

alter table private.post_reports add column "reason" text not null;

alter table private.post_reports add column "weight" double precision not null;

alter table private.post_reports add column "created_at" timestamp with time zone default now() not null;

alter table public.notification_kinds add column "kind" text not null;

alter table public.notification_kinds add column "label" text not null;

alter table public.notification_kinds add column "description" text not null;

alter table public.notification_kinds add column "default_channel" text not null;

alter table public.notification_kinds add column "always_on" boolean default false not null;

alter table public.notification_kinds add column "position" integer not null;

alter table public.notifications add column "id" bigint generated always as identity;

alter table public.notifications add column "user_id" uuid not null;

alter table public.notifications add column "kind" text not null;

alter table public.notifications add column "title" text not null;

alter table public.notifications add column "body" text not null;

alter table public.notifications add column "link" text;

alter table public.notifications add column "created_at" timestamp with time zone default now() not null;

alter table public.notifications add column "read_at" timestamp with time zone;

alter table public.notification_preferences add column "user_id" uuid not null;

alter table public.notification_preferences add column "kind" text not null;

alter table public.notification_preferences add column "channel" text not null;

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
  told as (
    select h.user_id, private.notify(h.user_id, 'alert', format('Price alert: %s at %s', t.name, private.money(h.fired_price)),
             private.alert_words(h, t.name) || E'\n\nThe alert stays on your list until you remove it or set it again.',
             '/trading/' || h.token_id) as notice
    from hit h join public.tokens t on t.id = h.token_id
  )
  select count(*), array_agg(distinct user_id) into fired, owners from told;
  if fired > 0 then perform private.tell_accounts(owners, 'alert'); end if;
  return null;
end $function$;

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
  select * into tok from public.tokens where id = f.token_id for no key update;
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
    perform private.settle_fills(f.token_id, 'buy', fills, now(), f.fee_bps, f.fee_bps);
  end if;
  -- Every other reservation (bids below the price, or of suspended accounts) goes back.
  update public.cash_accounts ca set available = ca.available + b.reserved, reserved = ca.reserved - b.reserved
    from public.offering_bids b
   where b.offering_id = f.id and b.user_id = ca.user_id and b.allocated = 0;
  update public.offering_bids set reserved = 0 where offering_id = f.id;
  update public.offerings set closed_at = now(), clearing_price = case when total_sold > 0 then c.price end, sold = total_sold
   where id = f.id;

  perform private.notify(b.user_id, 'offering',
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
         end, '/trading/' || f.token_id)
    from public.offering_bids b where b.offering_id = f.id;
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
    -- Its owner placed it long before: the notice tells them what it did (notifications.sql).
    if matched.spent_value > 0 then
      perform private.notify(p_user, 'fill', w.title, w.body, '/trading/' || tok.id) from private.fill_words(v_order) w;
    end if;
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

CREATE OR REPLACE FUNCTION private.fill_words(p_order bigint)
 RETURNS TABLE(title text, body text, token_id uuid)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select
    case when o.triggered_at is not null and o.stop_price is not null then 'Stop Triggered'
         when o.filled = o.amount then 'Order Filled' else 'Order Partly Filled' end,
    case
      when o.triggered_at is not null and o.stop_price is not null then
        format('The price reached %s: your stop to %s %s triggered%s: %s %s at an average %s%s',
          private.money(o.stop_price), o.side, private.tokens_of(o.amount, t.name),
          case when o.status = 'filled' then ' and filled' else '' end,
          to_char(o.filled, 'FM999,999,999,990'), case when o.side = 'buy' then 'bought' else 'sold' end,
          private.money(round(o.filled_value / nullif(o.filled, 0), 2)),
          case when o.status = 'filled' then '.'
               when o.status = 'open' then format(', %s on the book at %s.', to_char(o.amount - o.filled, 'FM999,999,999,990'), private.money(o.price))
               else '; the rest could not fill and was cancelled.' end)
      when o.filled = o.amount then
        format('Your limit order to %s %s at %s has filled.', o.side, private.tokens_of(o.amount, t.name), private.money(o.price))
      else
        format('Your limit order to %s %s at %s: %s %s so far, %s still on the book.', o.side, private.tokens_of(o.amount, t.name),
          private.money(o.price), to_char(o.filled, 'FM999,999,999,990'), case when o.side = 'buy' then 'bought' else 'sold' end,
          to_char(o.amount - o.filled, 'FM999,999,999,990'))
    end,
    o.token_id
  from public.orders o join public.tokens t on t.id = o.token_id where o.id = p_order
$function$;

CREATE OR REPLACE FUNCTION private.fire_cancel_after()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$;

CREATE OR REPLACE FUNCTION private.in_holders_room(p_token uuid, p_user uuid)
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return exists (select 1 from public.holders_rooms r where r.token_id = p_token)
     and (exists (select 1 from public.tokens t where t.id = p_token and t.owner_id = p_user)
          or private.is_admin()
          or exists (select 1 from public.holdings h join public.holders_rooms r on r.token_id = h.token_id
                      where h.token_id = p_token and h.user_id = p_user and h.amount >= r.min_tokens));
end $function$;

CREATE OR REPLACE FUNCTION private.mail_new_browser()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  key text := private.browser_key(new.user_agent);
  sign_up boolean;
  added integer;
begin
  -- The sign-up's session: no browser known yet, on an account whose address was confirmed (by the
  -- code mailed at sign-up, in this session's transaction) minutes ago.
  sign_up := not exists (select from private.known_browsers where user_id = new.user_id)
    and exists (select from auth.users where id = new.user_id and email_confirmed_at > now() - interval '10 minutes');
  -- Two sign-ins at once from the same new browser: the key's row lets one of them mail.
  insert into private.known_browsers (user_id, browser) values (new.user_id, key) on conflict do nothing;
  get diagnostics added = row_count;
  if added = 0 then
    update private.known_browsers set last_seen = now() where user_id = new.user_id and browser = key;
  elsif not sign_up then
    perform private.notify(new.user_id, 'security', 'A new sign-in to your RepX account',
      format(E'Your RepX account was signed in from a browser it had not used before, on %s%s.\n'
             'If it was you, there is nothing to do. If it was not, reset your password now with Forgot password? on the sign-in page, then sign the other sessions out under Profile, Settings, See where you are signed in.',
        to_char(new.created_at at time zone 'UTC', 'Mon FMDD, YYYY, HH24:MI "UTC"'),
        coalesce(', from the address ' || host(new.ip), '')), '/profile');
  end if;
  return new;
end $function$;

CREATE OR REPLACE FUNCTION private.moderate_post(p_post bigint, p_hide boolean, p_reason text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  p public.posts;
  reason text := btrim(p_reason);
begin
  perform private.require_admin();
  perform private.require_reason(reason, 'Give a reason of 3 to 500 characters: it is kept in the audit log.');
  select * into p from public.posts where id = p_post for update;
  if not found then perform private.refuse('That post does not exist.'); end if;
  update public.posts
     set hidden = case when p_hide then 'admin' end, hidden_reason = case when p_hide then reason end, reviewed_at = now()
   where id = p_post;
  perform private.audit(case when p_hide then 'post.hide' else 'post.restore' end, p.author_id, p.id::text,
    jsonb_build_object('hidden', p.hidden), jsonb_build_object('hidden', case when p_hide then 'admin' end), reason);
  return jsonb_build_object('id', p.id, 'hidden', p_hide);
end $function$;

CREATE OR REPLACE FUNCTION private.notice_channel(p_user uuid, p_kind text)
 RETURNS text
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  k public.notification_kinds;
begin
  select * into k from public.notification_kinds where kind = p_kind;
  if k.always_on then return 'mail'; end if;
  return coalesce((select channel from public.notification_preferences where user_id = p_user and kind = p_kind),
                  k.default_channel);
end $function$;

CREATE OR REPLACE FUNCTION private.notify(p_user uuid, p_kind text, p_title text, p_body text, p_link text DEFAULT NULL::text)
 RETURNS bigint
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  channel text := private.notice_channel(p_user, p_kind);
  made bigint;
begin
  if p_user is null or channel = 'off' or p_user = private.issuance_account() then return null; end if;
  insert into public.notifications (user_id, kind, title, body, link)
  values (p_user, p_kind, left(p_title, 200), left(p_body, 2000), p_link)
  returning id into made;
  if channel = 'mail' then
    insert into private.account_mail (user_id, subject, body) values (p_user, p_title, p_body);
    perform pg_notify('repx_mail', ''); -- only when mailed: a notifying commit serializes
  end if;
  perform private.tell_accounts(array[p_user], 'notice');
  return made;
end $function$;

CREATE OR REPLACE FUNCTION private.notify_fills()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  r record;
begin
  for r in
    select o.user_id, count(*) as n, min(o.id) as one
      from public.orders o
     where o.id in (select case when n.taker_side = 'buy' then n.sell_order_id else n.buy_order_id end from new_trades n)
       and o.user_id <> private.issuance_account()
     group by o.user_id
  loop
    if r.n > 1 then
      perform private.notify(r.user_id, 'fill', 'Orders Filled',
        format('%s of your limit orders traded. Your dashboard has the details.', r.n), '/dashboard');
    else
      perform private.notify(r.user_id, 'fill', w.title, w.body, '/trading/' || w.token_id)
         from private.fill_words(r.one) w;
    end if;
  end loop;
  -- The person behind each token hears of the fee share the settlement credited them.
  for r in
    select n.creator_id, n.token_id, sum(n.creator_share) as share, count(*) as trades
      from new_trades n where n.creator_id is not null and n.creator_share > 0
     group by n.creator_id, n.token_id
  loop
    perform private.notify(r.creator_id, 'fee_share', 'Fee share credited',
      format('%s trade%s in %s credited you %s.', r.trades, case when r.trades = 1 then '' else 's' end,
             (select name from public.tokens where id = r.token_id), private.money(r.share)), '/wallet');
  end loop;
  return null;
end $function$;

CREATE OR REPLACE FUNCTION private.post_json(p public.posts, p_caller uuid, p_replies boolean)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select private.posts_json(array[p.id], p_caller, p_replies) -> 0
$function$;

CREATE OR REPLACE FUNCTION private.post_limit()
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE
AS $function$select 10$function$;

CREATE OR REPLACE FUNCTION private.post_visible(p public.posts, p_user uuid)
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if p.author_id = p_user or private.is_admin() then return true; end if;
  return p.hidden is null
     and not exists (select 1 from public.profiles a where a.id = p.author_id and a.status <> 'active')
     and (p.room = 'public' or private.in_holders_room(p.token_id, p_user));
end $function$;

CREATE OR REPLACE FUNCTION private.posts_json(p_ids bigint[], p_caller uuid, p_replies boolean)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select coalesce(jsonb_agg(jsonb_build_object(
    'id', p.id, 'token_id', p.token_id, 'room', p.room, 'reply_to', p.reply_to, 'body', p.body, 'created_at', p.created_at,
    'hidden', p.hidden,
    'author', jsonb_build_object('id', a.id, 'username', a.username, 'full_name', a.full_name, 'avatar_url', a.avatar_url,
      'verified', a.verified, 'reputation', own.reputation_score,
      'trust', round((case when trust.off then 1 else coalesce(tr.weight, 0) end)::numeric, 2)),
    'is_person', tok.owner_id = p.author_id,
    'position', jsonb_build_object('then', p.held_then, 'now', coalesce(h.amount, 0),
      'badge', case when coalesce(h.amount, 0) = 0 then null
                    when h.amount::numeric / tok.total_supply >= 0.01 then 'Whale'
                    when h.amount::numeric / tok.total_supply >= 0.001 then 'Large holder' else 'Holder' end,
      'sold_since', coalesce(h.amount, 0) < p.held_then),
    'reactions', jsonb_build_object('like', rx.likes, 'insightful', rx.insightful, 'disagree', rx.disagree, 'mine', rx.mine),
    'replies', case when p_replies then private.posts_json(array(
        select c.id from public.posts c
         where c.reply_to = p.id
           and (c.author_id = p_caller
                or (c.hidden is null and not exists (select 1 from public.profiles au where au.id = c.author_id and au.status <> 'active')))
         order by c.created_at, c.id limit 50), p_caller, false) end,
    'reply_count', case when p_replies then (select count(*) from public.posts c where c.reply_to = p.id and c.hidden is null) end
  ) order by x.ord), '[]')
  from unnest(p_ids) with ordinality as x (id, ord)
  join public.posts p on p.id = x.id
  join public.profiles a on a.id = p.author_id
  join public.tokens tok on tok.id = p.token_id
  cross join (select not exists (select 1 from private.account_trust) as off) trust
  left join public.holdings h on h.user_id = p.author_id and h.token_id = p.token_id
  left join public.tokens own on own.owner_id = a.id
  left join private.account_trust tr on tr.user_id = a.id
  cross join lateral (
    select count(*) filter (where r.kind = 'like') as likes, count(*) filter (where r.kind = 'insightful') as insightful,
           count(*) filter (where r.kind = 'disagree') as disagree,
           coalesce(jsonb_agg(r.kind) filter (where r.user_id = p_caller), '[]') as mine
      from private.post_reactions r where r.post_id = p.id) rx
$function$;

CREATE OR REPLACE FUNCTION private.reaction_limit()
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE
AS $function$select 60$function$;

CREATE OR REPLACE FUNCTION private.release_vesting()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  n integer;
begin
  with due as (
    select h.user_id, h.token_id, h.locked as was, g.total - private.vested(g, now()) as locked, g.total
      from public.holdings h join public.vesting_grants g on h.token_id = g.token_id and h.user_id = g.user_id
     where h.locked > g.total - private.vested(g, now())
       for update of h
  ),
  released as (
    update public.holdings h set locked = d.locked from due d
     where h.user_id = d.user_id and h.token_id = d.token_id
    returning h.user_id
  ),
  -- Tokens vest by the minute; their owner hears of the cliff and of the end.
  told as (
    select private.notify(d.user_id, 'vesting', 'Founder tokens vested',
             format(case when d.locked = 0 then 'All %2$s of yours have vested: every one is yours to sell.'
                         else '%1$s of your %2$s have vested at the cliff; the rest vest day by day.' end,
                    to_char(d.total - d.locked, 'FM999,999,999,990'), private.tokens_of(d.total, t.name)),
             '/trading/' || d.token_id)
      from due d join public.tokens t on t.id = d.token_id
     where d.was = d.total or d.locked = 0
  )
  select (select count(*) from released) + 0 * (select count(*) from told) into n;
  return n;
end $function$;

CREATE OR REPLACE FUNCTION private.report_limit()
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE
AS $function$select 20$function$;

CREATE OR REPLACE FUNCTION private.report_weight_to_hide()
 RETURNS double precision
 LANGUAGE sql
 IMMUTABLE
AS $function$select 1.5::double precision$function$;

CREATE OR REPLACE FUNCTION private.require_room(p_token uuid, p_room text, p_user uuid)
 RETURNS void
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  need bigint := (select min_tokens from public.holders_rooms where token_id = p_token);
begin
  if p_room is null or p_room not in ('public', 'holders') then
    perform private.refuse('A discussion''s room is public or holders.');
  end if;
  if p_room = 'holders' and not private.in_holders_room(p_token, p_user) then
    if need is null then perform private.refuse('This token has no holders'' room.'); end if;
    perform private.refuse(format('The holders'' room is for holders of at least %s: hold that many to read and post here.',
      private.tokens_of(need, (select name from public.tokens where id = p_token))));
  end if;
end $function$;

CREATE OR REPLACE FUNCTION private.revoke_key(p_id uuid, p_by uuid, p_reason text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  k private.api_keys;
begin
  update private.api_keys set revoked_at = now(), revoked_by = p_by
   where id = p_id and revoked_at is null returning * into k;
  if not found then
    select * into k from private.api_keys where id = p_id;
    return private.api_key_row(k);
  end if;
  -- Realtime ends the channels joined with it (REST refuses it from the next request on).
  perform pg_notify('repx_api_key_revoked', k.id::text);
  perform private.audit('api_key.revoke', k.user_id, k.id::text, jsonb_build_object('status', 'active'),
    jsonb_build_object('status', 'revoked', 'name', k.name, 'prefix', k.prefix), p_reason);
  perform private.notify(k.user_id, 'security', 'An API key on your RepX account was revoked',
    format(E'The API key "%s" (%s…) was revoked%s. Requests made with it are refused from now on.',
           k.name, k.prefix, case when p_by = k.user_id then '' else ' by RepX: ' || p_reason end), '/profile');
  return private.api_key_row(k);
end $function$;

CREATE OR REPLACE FUNCTION private.run_plan(p public.invest_plans, p_period date)
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  run_id bigint;
  cash numeric;
  target record;
  result jsonb;
  bought integer := 0;
  tried integer := 0;
  first_reason text;
  total_spent numeric := 0;
  total_fees numeric := 0;
  run public.invest_runs;
  what text := coalesce((select t.name from public.tokens t where t.id = p.token_id), 'the RepX index');
begin
  update public.invest_plans
     set next_run_on = private.plan_date_on_or_after(p.frequency, p.run_day, p_period + 1)
   where id = p.id;
  insert into public.invest_runs (plan_id, user_id, period, amount, status)
  values (p.id, p.user_id, p_period, p.amount, 'running')
  on conflict (plan_id, period) do nothing
  returning id into run_id;
  if run_id is null then return false; end if;

  -- The books the run may buy from, in token order, before the person's cash: every path takes
  -- books before cash (docs/database.md), and an order on any of them may be moving this cash.
  perform 1 from public.tokens
   where id = p.token_id or (p.token_id is null and id in (select b.token_id from public.index_basket b))
   order by id for no key update;
  -- The person's cash, held for the run, so what is checked here still holds at each buy.
  select available into cash from public.cash_accounts where user_id = p.user_id for update;
  if coalesce(cash, 0) < p.amount then
    first_reason := format('Not enough cash: the plan buys %s and %s was available.', private.money(p.amount), private.money(coalesce(cash, 0)));
  elsif p.token_id is null and not exists (select 1 from public.index_basket) then
    first_reason := 'The RepX index has no members yet.';
  else
    -- The targets in token order, so two runs lock the books in the same order.
    for target in
      select p.token_id as token_id, p.amount as budget where p.token_id is not null
      union all
      select x.token_id, x.budget from private.index_split(p.user_id, p.amount) x where p.token_id is null
      order by 1
    loop
      tried := tried + 1;
      begin
        result := private.invest_buy(p.user_id, target.token_id, target.budget);
        insert into public.invest_run_buys (run_id, token_id, budget, order_id, tokens, value, fee, average_price)
        values (run_id, target.token_id, target.budget, (result->>'order_id')::bigint, (result->>'filled')::bigint,
                (result->>'value')::numeric, (result->>'fee')::numeric, (result->>'average_price')::numeric);
        bought := bought + 1;
        total_spent := total_spent + (result->>'total')::numeric;
        total_fees := total_fees + (result->>'fee')::numeric;
      exception when others then
        insert into public.invest_run_buys (run_id, token_id, budget, reason) values (run_id, target.token_id, target.budget, sqlerrm);
        first_reason := coalesce(first_reason, sqlerrm);
      end;
    end loop;
  end if;

  if tried = 0 and first_reason is null then
    first_reason := format('%s buys no whole token of the RepX index''s members at their best prices with the fee.',
      private.money(p.amount));
  end if;
  update public.invest_runs
     set status = case when bought = 0 then 'skipped' when bought < tried then 'partial' else 'bought' end,
         spent = total_spent, fees = total_fees, reason = case when bought < tried or tried = 0 then first_reason end
   where id = run_id
  returning * into run;
  perform private.notify(p.user_id, 'auto_invest',
          case when run.status = 'skipped' then format('Auto-Invest skipped: %s', what)
               else format('Auto-Invest bought %s', what) end,
          case when run.status = 'skipped' then format('Your %s plan for %s did not buy on %s: %s', private.money(p.amount), what, p_period, run.reason)
               else format('Your %s plan for %s spent %s on %s, fees included.', private.money(p.amount), what, private.money(run.spent), p_period)
                    || case when run.status = 'partial' then E'\n\nPart of it did not buy: ' || run.reason else '' end
          end || E'\n\nThe next run is on ' || (select next_run_on::text from public.invest_plans where id = p.id) || ' (UTC).',
          '/auto-invest');
  return true;
end $function$;

CREATE OR REPLACE FUNCTION private.trust_weight(p_user uuid)
 RETURNS double precision
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if not exists (select 1 from private.account_trust) then return 1; end if;
  return coalesce((select weight from private.account_trust where user_id = p_user), 0);
end $function$;

CREATE OR REPLACE FUNCTION public.add_payout_destination(p_label text, p_account_number text)
 RETURNS uuid
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.person_caller('add a bank account');
  digits text := regexp_replace(coalesce(p_account_number, ''), '[\s-]', '', 'g');
  d public.payout_destinations;
begin
  if coalesce(trim(p_label), '') = '' or char_length(trim(p_label)) > 40 then
    perform private.refuse('Name the account in 1 to 40 characters.');
  end if;
  if digits !~ '^[0-9]{6,17}$' then perform private.refuse('Enter an account number of 6 to 17 digits.'); end if;
  -- The caller's saved accounts, locked, so that two requests at once count each other.
  perform 1 from public.cash_accounts where user_id = uid for update;
  if (select count(*) from public.payout_destinations where user_id = uid and removed_at is null) >= 5 then
    perform private.refuse('You can save up to 5 accounts. Remove one to add another.');
  end if;
  -- Removing and adding again must not mail the owner without end.
  if (select count(*) from public.payout_destinations where user_id = uid and created_at > now() - interval '24 hours') >= 5 then
    perform private.refuse('You can add up to 5 accounts a day. Try again tomorrow.');
  end if;
  insert into public.payout_destinations (user_id, label, account_last4, usable_from)
  values (uid, trim(p_label), right(digits, 4), now() + private.new_bank_account_hold())
  returning * into d;
  perform private.notify(uid, 'security', 'A bank account was added to your RepX account',
    format(E'The bank account %s •••• %s was added to your RepX account. For your security, it can receive withdrawals from %s.\n'
           'If it was not you, reset your password now with Forgot password? on the sign-in page, then remove the account in your Wallet.',
      d.label, d.account_last4, to_char(d.usable_from at time zone 'UTC', 'Mon FMDD, YYYY, HH24:MI "UTC"')), '/wallet');
  return d.id;
end $function$;

CREATE OR REPLACE FUNCTION public.admin_hide_post(p_post bigint, p_reason text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return private.moderate_post(p_post, true, p_reason);
end $function$;

CREATE OR REPLACE FUNCTION public.admin_post_reports(p_limit integer DEFAULT 100)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  perform private.require_admin();
  return (
    select coalesce(jsonb_agg(x.post order by x.reports desc, x.last desc), '[]')
    from (
      select private.post_json(p, auth.uid(), false) || jsonb_build_object(
               'token_name', t.name, 'hidden_reason', p.hidden_reason,
               'reports', count(r.*), 'last_report', max(r.created_at),
               'reasons', jsonb_agg(jsonb_build_object('reason', r.reason, 'by', u.username, 'at', r.created_at) order by r.created_at)) as post,
             count(r.*) as reports, max(r.created_at) as last
        from public.posts p
        join private.post_reports r on r.post_id = p.id
        join public.tokens t on t.id = p.token_id
        join public.profiles u on u.id = r.user_id
       where p.reviewed_at is null or r.created_at > p.reviewed_at
       group by p.id, p.*, t.name
       order by count(r.*) desc, max(r.created_at) desc
       limit least(greatest(coalesce(p_limit, 100), 1), 500)
    ) x);
end $function$;

CREATE OR REPLACE FUNCTION public.admin_restore_post(p_post bigint, p_reason text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return private.moderate_post(p_post, false, p_reason);
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
end $function$;

CREATE OR REPLACE FUNCTION public.create_api_key(p_name text, p_scopes text[], p_allowed_ips text[] DEFAULT NULL::text[], p_expires_at timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid;
  key text;
  ips inet[];
  made private.api_keys;
begin
  perform private.require_session('create another API key');
  uid := private.active_caller();
  if char_length(trim(coalesce(p_name, ''))) not between 1 and 60 then
    perform private.refuse('Name the key (1 to 60 characters), so you can tell it from your others.');
  end if;
  perform private.refuse_hidden_characters(p_name, 'A key''s name');
  if p_scopes is null or cardinality(p_scopes) = 0 or not (p_scopes <@ array['read', 'trade']) then
    perform private.refuse('A key''s scopes are read, or read and trade.');
  end if;
  if p_expires_at is not null and (p_expires_at <= now() + interval '1 hour' or p_expires_at > now() + interval '2 years') then
    perform private.refuse('A key expires between an hour and two years from now, or never.');
  end if;
  if p_allowed_ips is not null then
    if cardinality(p_allowed_ips) not between 1 and 20 then
      perform private.refuse('List 1 to 20 addresses the key may be used from, or none for any.');
    end if;
    begin
      ips := array(select distinct trim(a)::inet from unnest(p_allowed_ips) a);
    exception when invalid_text_representation then
      perform private.refuse('Each allowed address must be an IP address or a network, as 203.0.113.7 or 2001:db8::/32.');
    end;
  end if;
  perform private.require_recent_sign_in('create an API key');
  perform 1 from public.profiles where id = uid for no key update;
  if (select count(*) from private.api_keys k
       where k.user_id = uid and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())) >= private.max_api_keys() then
    perform private.refuse(format('You have %s live API keys, the most an account may hold: revoke one first.', private.max_api_keys()));
  end if;
  key := 'repx_' || translate(encode(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()), 'base64'), '+/=', '-_');
  insert into private.api_keys (user_id, name, scopes, allowed_ips, key_hash, prefix, expires_at)
  values (uid, trim(p_name), array(select distinct s from unnest(array['read'] || p_scopes) s order by s), ips,
          sha256(convert_to(key, 'UTF8')), left(key, 12), p_expires_at)
  returning * into made;
  perform private.audit('api_key.create', uid, made.id::text, null,
    jsonb_build_object('name', made.name, 'scopes', made.scopes, 'prefix', made.prefix, 'expires_at', made.expires_at));
  perform private.notify(uid, 'security', 'A new API key on your RepX account',
    format(E'An API key named "%s" (%s…) was created on your account, with the scopes %s%s.\n\n'
           'It can %s, but never move money or change your account. If this was not you, revoke it in '
           'Profile › Settings › API keys and change your password.',
           made.name, made.prefix, array_to_string(made.scopes, ' and '),
           coalesce(', expiring ' || to_char(made.expires_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI') || ' UTC', ''),
           case when 'trade' = any (made.scopes) then 'read your account and place and cancel orders' else 'read your account' end),
    '/profile');
  return jsonb_build_object('id', made.id, 'key', key);
end $function$;

CREATE OR REPLACE FUNCTION public.create_post(p_token uuid, p_body text, p_reply_to bigint DEFAULT NULL::bigint, p_room text DEFAULT 'public'::text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.person_caller('post');
  tok public.tokens;
  parent public.posts;
  body text := btrim(p_body);
  room text := p_room;
  held bigint;
  w double precision := private.trust_weight(uid);
  made public.posts;
  named text;
  post jsonb;
begin
  select * into tok from public.tokens where id = p_token;
  if not found then perform private.refuse('That token does not exist.'); end if;
  if body is null or body = '' then perform private.refuse('Write something to post.'); end if;
  if char_length(body) > 1000 then
    perform private.refuse(format('A post is at most 1,000 characters; this one has %s.', to_char(char_length(body), 'FM999,990')));
  end if;
  perform private.refuse_hidden_characters(body, 'A post', true);
  if p_reply_to is not null then
    select * into parent from public.posts where id = p_reply_to;
    if not found or parent.token_id <> p_token or not private.post_visible(parent, uid) or parent.hidden is not null then
      perform private.refuse('The post you reply to is not there any more.');
    end if;
    if parent.reply_to is not null then perform private.refuse('Reply to the post itself: replies have no replies.'); end if;
    room := parent.room;
  end if;
  perform private.require_room(p_token, room, uid);
  perform 1 from public.profiles where id = uid for no key update; -- one post at a time per account: the limit holds
  if (select count(*) from public.posts where author_id = uid and created_at > now() - interval '10 minutes') >= private.post_limit() then
    perform private.refuse(format('You can post %s times in 10 minutes. Wait a few minutes and post again.', private.post_limit()));
  end if;
  held := coalesce((select amount from public.holdings where user_id = uid and token_id = p_token), 0);
  insert into public.posts (token_id, room, author_id, reply_to, body, held_then, standing)
  values (p_token, room, uid, p_reply_to, body, held,
          w * (2 + coalesce((select reputation_score from public.tokens where owner_id = uid), 0) / 50
                 + log(1 + held * coalesce((select price from private.token_stats where token_id = p_token), tok.issue_price)) / 2))
  returning * into made;

  -- The replied-to author, and up to five people named with @username, hear of it.
  if parent.id is not null and parent.author_id <> uid then
    perform private.notify(parent.author_id, 'reply', format('%s replied to your post', (select full_name from public.profiles where id = uid)),
      left(body, 300), '/trading/' || p_token);
  end if;
  for named in
    select distinct lower(m[1]) from regexp_matches(body, '(?:^|[^A-Za-z0-9_.-])@([A-Za-z0-9_.-]{2,30})', 'g') m limit 5
  loop
    perform private.notify(p.id, 'reply', format('%s mentioned you', (select full_name from public.profiles where id = uid)),
      left(body, 300), '/trading/' || p_token)
      from public.profiles p
     where lower(p.username) = named and p.id <> uid and p.id is distinct from parent.author_id
       and (room = 'public' or private.in_holders_room(p_token, p.id));
  end loop;

  post := private.post_json(made, uid, made.reply_to is null);
  if room = 'public' then
    perform realtime.send(post - 'reactions' || jsonb_build_object('reactions',
      jsonb_build_object('like', 0, 'insightful', 0, 'disagree', 0, 'mine', '[]'::jsonb)), 'post', 'discussion:' || p_token, true);
  else
    perform realtime.send(jsonb_build_object('id', made.id, 'reply_to', made.reply_to), 'post', 'holders:' || p_token, true);
  end if;
  return post;
end $function$;

CREATE OR REPLACE FUNCTION public.create_withdrawal(p_amount numeric, p_destination uuid, p_idempotency_key text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.person_caller('withdraw money');
  s public.exchange_settings;
  d public.payout_destinations;
  cash public.cash_accounts;
  today numeric;
  w public.wallet_transactions;
  earlier jsonb;
  held_until timestamptz;
begin
  earlier := private.replayed(uid, p_idempotency_key, 'withdrawal', p_amount);
  if earlier is not null then return earlier; end if;
  held_until := private.withdrawals_held_until(uid);
  if held_until is not null then
    perform private.refuse(format('For your security, withdrawals open 24 hours after a password or email change: from %s.',
      to_char(held_until at time zone 'UTC', 'Mon FMDD, YYYY, HH24:MI "UTC"')));
  end if;
  select * into d from public.payout_destinations where id = p_destination and user_id = uid and removed_at is null;
  if not found then perform private.refuse('Choose one of your saved accounts to withdraw to.'); end if;
  if d.usable_from > now() then
    perform private.refuse(format('For your security, a new bank account receives withdrawals %s after it is added: %s •••• %s from %s.',
      private.hours(private.new_bank_account_hold()), d.label, d.account_last4,
      to_char(d.usable_from at time zone 'UTC', 'Mon FMDD, YYYY, HH24:MI "UTC"')));
  end if;
  perform private.require_recent_sign_in('withdraw');
  select * into s from public.exchange_settings;
  perform private.check_amount(p_amount, 'withdrawal', s.withdrawal_min, s.withdrawal_daily_limit);
  select * into cash from public.cash_accounts where user_id = uid for update;
  earlier := private.replayed(uid, p_idempotency_key, 'withdrawal', p_amount); -- a concurrent replay that held the lock first
  if earlier is not null then return earlier; end if;
  select coalesce(sum(amount), 0) into today from public.wallet_transactions
   where user_id = uid and type = 'withdrawal' and status not in ('failed', 'cancelled') and created_at > now() - interval '24 hours';
  if today + p_amount > s.withdrawal_daily_limit then
    perform private.refuse(format('This would exceed your daily withdrawal limit of %s: you can withdraw %s more today.',
      private.money(s.withdrawal_daily_limit), private.money(greatest(s.withdrawal_daily_limit - today, 0))));
  end if;
  if cash.available < p_amount then
    perform private.refuse(format('Insufficient funds: you have %s available to withdraw.', private.money(cash.available)));
  end if;
  update public.cash_accounts set available = available - p_amount, pending_withdrawal = pending_withdrawal + p_amount where user_id = uid;
  insert into public.wallet_transactions (user_id, type, amount, status, idempotency_key, provider, method, destination_id)
  values (uid, 'withdrawal', p_amount, 'pending', p_idempotency_key, 'simulated', d.label || ' •••• ' || d.account_last4, d.id)
  on conflict (user_id, idempotency_key) where idempotency_key is not null do nothing
  returning * into w;
  if not found then perform private.refuse('This withdrawal is already being processed.'); end if;
  perform private.notify(uid, 'security', 'A withdrawal was requested from your RepX account',
    format(E'A withdrawal of %s to %s was requested from your RepX account.\n'
           'If it was not you, cancel it in your Wallet while it is pending, then reset your password with Forgot password? on the sign-in page.',
      private.money(p_amount), w.method), '/wallet');
  perform pg_notify('repx_payments', w.reference::text);
  return private.payment_json(w);
end $function$;

CREATE OR REPLACE FUNCTION public.hide_room_reply(p_post bigint, p_hidden boolean DEFAULT true)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.person_caller('hide a reply');
  p public.posts;
begin
  select * into p from public.posts where id = p_post for update;
  if not found or (select owner_id from public.tokens where id = p.token_id) is distinct from uid then
    perform private.refuse('Only the token''s own person hides replies in its holders'' room.');
  end if;
  if p.room <> 'holders' or p.reply_to is null then
    perform private.refuse('You can hide replies in your holders'' room only; in the public discussion, report a post instead.');
  end if;
  if p.hidden is not null and p.hidden <> 'owner' then perform private.refuse('An admin has this reply under review.'); end if;
  update public.posts set hidden = case when p_hidden then 'owner' end,
                          hidden_reason = case when p_hidden then 'Hidden by the token''s person.' end
   where id = p_post;
  return jsonb_build_object('id', p.id, 'hidden', p_hidden);
end $function$;

CREATE OR REPLACE FUNCTION public.mark_notifications_read(p_id bigint DEFAULT NULL::bigint)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.person_caller('mark notices read');
  n integer;
begin
  if p_id is not null and not exists (select 1 from public.notifications where id = p_id and user_id = uid) then
    perform private.refuse('That notice is not yours, or no longer exists.');
  end if;
  update public.notifications set read_at = now()
   where user_id = uid and read_at is null and (p_id is null or id = p_id);
  get diagnostics n = row_count;
  if n > 0 then perform private.tell_accounts(array[uid], 'notice'); end if;
  return n;
end $function$;

CREATE OR REPLACE FUNCTION public.open_holders_room(p_token uuid, p_min_tokens integer)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.person_caller('open a holders'' room');
  tok public.tokens;
  room public.holders_rooms;
begin
  select * into tok from public.tokens where id = p_token;
  if not found then perform private.refuse('That token does not exist.'); end if;
  if tok.owner_id is distinct from uid then perform private.refuse('Only the token''s own person opens its holders'' room.'); end if;
  if p_min_tokens is null or p_min_tokens < 1 or p_min_tokens > tok.total_supply then
    perform private.refuse(format('The minimum is a whole number of tokens from 1 to %s.', to_char(tok.total_supply, 'FM999,999,999,990')));
  end if;
  insert into public.holders_rooms (token_id, min_tokens) values (p_token, p_min_tokens)
  on conflict (token_id) do update set min_tokens = excluded.min_tokens
  returning * into room;
  return to_jsonb(room);
end $function$;

CREATE OR REPLACE FUNCTION public.react_to_post(p_post bigint, p_kind text)
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.person_caller('react to a post');
  p public.posts;
  gone private.post_reactions;
  w double precision;
begin
  if p_kind is null or p_kind not in ('like', 'insightful', 'disagree') then
    perform private.refuse('React with like, insightful or disagree.');
  end if;
  select * into p from public.posts where id = p_post;
  if not found or not private.post_visible(p, uid) or p.hidden is not null then
    perform private.refuse('That post is not there any more.');
  end if;
  delete from private.post_reactions where post_id = p_post and user_id = uid and kind = p_kind returning * into gone;
  if found then
    if gone.kind <> 'disagree' then update public.posts set votes = greatest(votes - gone.weight, 0) where id = p_post; end if;
    return false;
  end if;
  if p.author_id = uid then perform private.refuse('You cannot react to your own post.'); end if;
  if (select count(*) from private.post_reactions where user_id = uid and created_at > now() - interval '10 minutes') >= private.reaction_limit() then
    perform private.refuse(format('You can react %s times in 10 minutes. Wait a few minutes and react again.', private.reaction_limit()));
  end if;
  w := private.trust_weight(uid);
  insert into private.post_reactions (post_id, user_id, kind, weight) values (p_post, uid, p_kind, w)
  on conflict do nothing;
  if found and p_kind <> 'disagree' then update public.posts set votes = votes + w where id = p_post; end if;
  return true;
end $function$;

CREATE OR REPLACE FUNCTION public.report_post(p_post bigint, p_reason text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.person_caller('report a post');
  p public.posts;
  reason text := btrim(p_reason);
  total double precision;
begin
  select * into p from public.posts where id = p_post;
  if not found or not private.post_visible(p, uid) then perform private.refuse('That post is not there any more.'); end if;
  if p.author_id = uid then perform private.refuse('You cannot report your own post.'); end if;
  perform private.require_reason(reason, 'Say in 3 to 500 characters what is wrong with the post.');
  perform private.refuse_hidden_characters(reason, 'The reason');
  if exists (select 1 from private.post_reports where post_id = p_post and user_id = uid) then
    perform private.refuse('You have reported this post already: an admin will look at it.');
  end if;
  if (select count(*) from private.post_reports where user_id = uid and created_at > now() - interval '1 day') >= private.report_limit() then
    perform private.refuse(format('You can report %s posts a day. Try again tomorrow.', private.report_limit()));
  end if;
  insert into private.post_reports (post_id, user_id, reason, weight) values (p_post, uid, reason, private.trust_weight(uid));
  select sum(weight) into total from private.post_reports where post_id = p_post;
  if p.hidden is null and p.reviewed_at is null and total >= private.report_weight_to_hide() then
    update public.posts set hidden = 'reported', hidden_reason = 'Reported by several people; an admin will review it.'
     where id = p_post;
    return jsonb_build_object('reported', true, 'hidden', true);
  end if;
  return jsonb_build_object('reported', true, 'hidden', p.hidden is not null);
end $function$;

CREATE OR REPLACE FUNCTION public.set_notification_preference(p_kind text, p_channel text)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.person_caller('change notification preferences');
  k public.notification_kinds;
begin
  select * into k from public.notification_kinds where kind = p_kind;
  if not found then perform private.refuse(format('There is no kind of notice called "%s".', left(p_kind, 40))); end if;
  if p_channel is null or p_channel not in ('app', 'mail', 'off') then
    perform private.refuse('Choose In the app, Also by mail or Off.');
  end if;
  if k.always_on then
    perform private.refuse(format('%s notices are always on, in the app and by mail: they protect your account.', k.label));
  end if;
  insert into public.notification_preferences (user_id, kind, channel) values (uid, p_kind, p_channel)
  on conflict (user_id, kind) do update set channel = excluded.channel;
end $function$;

CREATE OR REPLACE FUNCTION public.token_posts(p_token uuid, p_order text DEFAULT 'top'::text, p_limit integer DEFAULT 20, p_offset integer DEFAULT 0, p_room text DEFAULT 'public'::text)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := auth.uid();
begin
  if uid is null then perform private.refuse('Sign in first.'); end if;
  if p_order is null or p_order not in ('top', 'new') then perform private.refuse('Order a discussion by top or new.'); end if;
  if p_limit is null or p_limit not between 1 and 100 then perform private.refuse('Ask for 1 to 100 posts at a time.'); end if;
  if p_offset is null or p_offset < 0 then perform private.refuse('The offset is 0 or more.'); end if;
  perform private.require_room(p_token, p_room, uid);
  return private.posts_json(array(
    select p.id
      from public.posts p
     where p.token_id = p_token and p.room = p_room and p.reply_to is null
       and (p.hidden is null or p.author_id = uid)
       and not exists (select 1 from public.profiles a where a.id = p.author_id and a.status <> 'active' and a.id <> uid)
     order by case when p_order = 'top'
                then (1 + p.standing + p.votes) / power(extract(epoch from now() - p.created_at)::float8 / 3600 + 2, 1.5::float8) end desc nulls last,
              p.created_at desc, p.id desc
     limit p_limit offset p_offset), uid, true);
end $function$;

CREATE OR REPLACE FUNCTION public.unread_notifications()
 RETURNS integer
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select count(*)::integer from public.notifications where user_id = (select auth.uid()) and read_at is null
$function$;

alter table private.post_reactions add constraint "post_reactions_kind_check" CHECK ((kind = ANY (ARRAY['like'::text, 'insightful'::text, 'disagree'::text])));

alter table private.post_reactions add constraint "post_reactions_pkey" PRIMARY KEY (post_id, user_id, kind);

alter table private.post_reports add constraint "post_reports_pkey" PRIMARY KEY (post_id, user_id);

alter table public.holders_rooms add constraint "holders_rooms_min_tokens_check" CHECK (((min_tokens >= 1) AND (min_tokens <= 1000000000)));

alter table public.holders_rooms add constraint "holders_rooms_pkey" PRIMARY KEY (token_id);

alter table public.notification_kinds add constraint "notification_kinds_default_channel_check" CHECK ((default_channel = ANY (ARRAY['app'::text, 'mail'::text, 'off'::text])));

alter table public.notification_kinds add constraint "notification_kinds_pkey" PRIMARY KEY (kind);

alter table public.notification_kinds add constraint "notification_kinds_position_key" UNIQUE ("position");

alter table public.notification_preferences add constraint "notification_preferences_channel_check" CHECK ((channel = ANY (ARRAY['app'::text, 'mail'::text, 'off'::text])));

alter table public.notification_preferences add constraint "notification_preferences_pkey" PRIMARY KEY (user_id, kind);

alter table public.notifications add constraint "notifications_body_check" CHECK ((char_length(body) <= 2000));

alter table public.notifications add constraint "notifications_link_check" CHECK ((link ~ '^/[A-Za-z0-9/_.?=&-]*$'::text));

alter table public.notifications add constraint "notifications_pkey" PRIMARY KEY (id);

alter table public.notifications add constraint "notifications_title_check" CHECK (((char_length(title) >= 1) AND (char_length(title) <= 200)));

alter table public.posts add constraint "posts_body_check" CHECK (((char_length(body) >= 1) AND (char_length(body) <= 1000)));

alter table public.posts add constraint "posts_hidden_check" CHECK ((hidden = ANY (ARRAY['reported'::text, 'admin'::text, 'owner'::text])));

alter table public.posts add constraint "posts_pkey" PRIMARY KEY (id);

alter table public.posts add constraint "posts_room_check" CHECK ((room = ANY (ARRAY['public'::text, 'holders'::text])));

alter table private.post_reactions add constraint "post_reactions_post_id_fkey" FOREIGN KEY (post_id) REFERENCES posts(id) ON DELETE CASCADE;

alter table private.post_reactions add constraint "post_reactions_user_id_fkey" FOREIGN KEY (user_id) REFERENCES profiles(id) ON DELETE CASCADE;

alter table private.post_reports add constraint "post_reports_post_id_fkey" FOREIGN KEY (post_id) REFERENCES posts(id) ON DELETE CASCADE;

alter table private.post_reports add constraint "post_reports_user_id_fkey" FOREIGN KEY (user_id) REFERENCES profiles(id) ON DELETE CASCADE;

alter table public.holders_rooms add constraint "holders_rooms_token_id_fkey" FOREIGN KEY (token_id) REFERENCES tokens(id) ON DELETE CASCADE;

alter table public.notification_preferences add constraint "notification_preferences_kind_fkey" FOREIGN KEY (kind) REFERENCES notification_kinds(kind);

alter table public.notification_preferences add constraint "notification_preferences_user_id_fkey" FOREIGN KEY (user_id) REFERENCES profiles(id) ON DELETE CASCADE;

alter table public.notifications add constraint "notifications_kind_fkey" FOREIGN KEY (kind) REFERENCES notification_kinds(kind);

alter table public.notifications add constraint "notifications_user_id_fkey" FOREIGN KEY (user_id) REFERENCES profiles(id) ON DELETE CASCADE;

alter table public.posts add constraint "posts_author_id_fkey" FOREIGN KEY (author_id) REFERENCES profiles(id) ON DELETE CASCADE;

alter table public.posts add constraint "posts_reply_to_fkey" FOREIGN KEY (reply_to) REFERENCES posts(id) ON DELETE CASCADE;

alter table public.posts add constraint "posts_token_id_fkey" FOREIGN KEY (token_id) REFERENCES tokens(id) ON DELETE CASCADE;

CREATE INDEX post_reactions_user_idx ON private.post_reactions USING btree (user_id, created_at DESC);

CREATE INDEX post_reports_user_idx ON private.post_reports USING btree (user_id, created_at DESC);

CREATE INDEX notifications_unread_idx ON public.notifications USING btree (user_id) WHERE (read_at IS NULL);

CREATE INDEX notifications_user_idx ON public.notifications USING btree (user_id, id DESC);

CREATE INDEX posts_author_idx ON public.posts USING btree (author_id, created_at DESC);

CREATE INDEX posts_replies_idx ON public.posts USING btree (reply_to, created_at) WHERE (reply_to IS NOT NULL);

CREATE INDEX posts_token_idx ON public.posts USING btree (token_id, room, created_at DESC) WHERE (reply_to IS NULL);

CREATE TRIGGER trades_notify_fills AFTER INSERT ON public.trades REFERENCING NEW TABLE AS new_trades FOR EACH STATEMENT EXECUTE FUNCTION private.notify_fills();

create policy "holders' rooms are visible to signed-in users" on public.holders_rooms as permissive for select to authenticated
  using (true);

create policy "notification kinds are visible to signed-in users" on public.notification_kinds as permissive for select to authenticated
  using (true);

create policy "own notification preferences" on public.notification_preferences as permissive for select to authenticated
  using ((user_id = ( SELECT auth.uid() AS uid)));

create policy "own notifications" on public.notifications as permissive for select to authenticated
  using ((user_id = ( SELECT auth.uid() AS uid)));

create policy "posts as their room and moderation allow" on public.posts as permissive for select to authenticated
  using (private.post_visible(posts.*, ( SELECT auth.uid() AS uid)));

create policy "holders hear their room" on realtime.messages as permissive for select to authenticated
  using (((( SELECT realtime.topic() AS topic) ~~ 'holders:%'::text) AND ( SELECT private.in_holders_room((substr(realtime.topic(), 9))::uuid, auth.uid()) AS in_holders_room)));

create policy "signed-in people hear a token's discussion" on realtime.messages as permissive for select to authenticated
  using ((( SELECT realtime.topic() AS topic) ~~ 'discussion:%'::text));

alter table public.holders_rooms enable row level security;

alter table public.notification_kinds enable row level security;

alter table public.notification_preferences enable row level security;

alter table public.notifications enable row level security;

alter table public.posts enable row level security;

revoke all on routine private.fill_words(bigint) from public;

grant execute on routine private.in_holders_room(uuid,uuid) to authenticated;

revoke all on routine private.moderate_post(bigint,boolean,text) from public;

revoke all on routine private.notice_channel(uuid,text) from public;

revoke all on routine private.notify(uuid,text,text,text,text) from public;

revoke all on routine private.notify_fills() from public;

revoke all on routine private.post_json(public.posts,uuid,boolean) from public;

grant execute on routine private.post_limit() to authenticated;

grant execute on routine private.post_visible(public.posts,uuid) to authenticated;

revoke all on routine private.posts_json(bigint[],uuid,boolean) from public;

grant execute on routine private.reaction_limit() to authenticated;

grant execute on routine private.report_limit() to authenticated;

revoke all on routine private.require_room(uuid,text,uuid) from public;

revoke all on routine private.trust_weight(uuid) from public;

revoke all on routine public.admin_hide_post(bigint,text) from anon;
revoke all on routine public.admin_hide_post(bigint,text) from public;

revoke all on routine public.admin_post_reports(integer) from anon;
revoke all on routine public.admin_post_reports(integer) from public;

revoke all on routine public.admin_restore_post(bigint,text) from anon;
revoke all on routine public.admin_restore_post(bigint,text) from public;

revoke all on routine public.create_post(uuid,text,bigint,text) from anon;
revoke all on routine public.create_post(uuid,text,bigint,text) from public;

revoke all on routine public.hide_room_reply(bigint,boolean) from anon;
revoke all on routine public.hide_room_reply(bigint,boolean) from public;

revoke all on routine public.mark_notifications_read(bigint) from anon;
revoke all on routine public.mark_notifications_read(bigint) from public;

revoke all on routine public.open_holders_room(uuid,integer) from anon;
revoke all on routine public.open_holders_room(uuid,integer) from public;

revoke all on routine public.react_to_post(bigint,text) from anon;
revoke all on routine public.react_to_post(bigint,text) from public;

revoke all on routine public.report_post(bigint,text) from anon;
revoke all on routine public.report_post(bigint,text) from public;

revoke all on routine public.set_notification_preference(text,text) from anon;
revoke all on routine public.set_notification_preference(text,text) from public;

revoke all on routine public.token_posts(uuid,text,integer,integer,text) from anon;
revoke all on routine public.token_posts(uuid,text,integer,integer,text) from public;

revoke all on routine public.unread_notifications() from anon;
revoke all on routine public.unread_notifications() from public;

revoke all on table public.holders_rooms from anon;
revoke insert, update, delete, truncate on table public.holders_rooms from authenticated;

revoke all on table public.notification_kinds from anon;
revoke insert, update, delete, truncate on table public.notification_kinds from authenticated;

revoke all on table public.notification_preferences from anon;
revoke insert, update, delete, truncate on table public.notification_preferences from authenticated;

revoke all on table public.notifications from anon;
revoke insert, update, delete, truncate on table public.notifications from authenticated;

revoke all on table public.posts from anon;
revoke insert, update, delete, truncate on table public.posts from authenticated;

-- The kinds' reference rows (the generator writes no data).
insert into public.notification_kinds (kind, label, description, default_channel, always_on, position) values
  ('fill', 'Fills', 'A resting order of yours traded, or a stop of yours triggered.', 'app', false, 1),
  ('alert', 'Price alerts', 'A price alert you set fired.', 'mail', false, 2),
  ('auto_invest', 'Auto-Invest', 'An Auto-Invest plan of yours ran.', 'mail', false, 3),
  ('offering', 'Offerings and bids', 'An offering you bid in closed.', 'mail', false, 4),
  ('reply', 'Replies and mentions', 'Someone replied to your post or mentioned you.', 'app', false, 5),
  ('fee_share', 'Fee share', 'Trades in your token credited you its fee share.', 'app', false, 6),
  ('vesting', 'Vesting', 'Founder tokens of yours vested.', 'app', false, 7),
  ('token', 'Your token', 'Trading in your token was halted or resumed.', 'mail', false, 8),
  ('orders', 'Order safety', 'Your dead-man''s switch cancelled your orders.', 'mail', false, 9),
  ('security', 'Security', 'A new sign-in browser, API key, bank account or withdrawal.', 'mail', true, 10);
