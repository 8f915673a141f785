-- api_keys_and_feed: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

drop function if exists public.place_order(uuid,text,text,numeric,numeric,text,timestamp with time zone,boolean,numeric,numeric);

create table private.client_orders ();

create table private.cancel_after ();

create table private.api_keys ();

create table private.book_feed ();

alter table private.client_orders add column "user_id" uuid not null;

alter table private.client_orders add column "client_order_id" text not null;

alter table private.client_orders add column "answer" jsonb;

alter table private.client_orders add column "created_at" timestamp with time zone default now() not null;

alter table private.cancel_after add column "user_id" uuid not null;

alter table private.cancel_after add column "deadline" timestamp with time zone not null;

alter table private.cancel_after add column "seconds" integer not null;

alter table private.api_keys add column "id" uuid default gen_random_uuid() not null;

alter table private.api_keys add column "user_id" uuid not null;

alter table private.api_keys add column "name" text not null;

alter table private.api_keys add column "scopes" text[] not null;

alter table private.api_keys add column "allowed_ips" inet[];

alter table private.api_keys add column "key_hash" bytea not null;

alter table private.api_keys add column "prefix" text not null;

alter table private.api_keys add column "created_at" timestamp with time zone default now() not null;

alter table private.api_keys add column "expires_at" timestamp with time zone;

alter table private.api_keys add column "last_used_at" timestamp with time zone;

alter table private.api_keys add column "revoked_at" timestamp with time zone;

alter table private.api_keys add column "revoked_by" uuid;

alter table private.book_feed add column "token_id" uuid not null;

alter table private.book_feed add column "book_seq" bigint default 0 not null;

alter table private.book_feed add column "trade_seq" bigint default 0 not null;

CREATE OR REPLACE FUNCTION private.account_api_keys(p_user uuid)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select coalesce(jsonb_agg(private.api_key_row(k) order by k.created_at desc), '[]')
  from private.api_keys k where k.user_id = p_user
$function$;

CREATE OR REPLACE FUNCTION private.api_key()
 RETURNS uuid
 LANGUAGE plpgsql
 STABLE
AS $function$
begin
  return nullif(auth.jwt() ->> 'api_key_id', '')::uuid;
end $function$;

CREATE OR REPLACE FUNCTION private.api_key_by_hash(p_hash bytea)
 RETURNS TABLE(id uuid, user_id uuid, scopes text[], allowed_ips text[], expires_at timestamp with time zone, revoked_at timestamp with time zone)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select k.id, k.user_id, k.scopes, k.allowed_ips::text[], k.expires_at, k.revoked_at
  from private.api_keys k where k.key_hash = p_hash
$function$;

CREATE OR REPLACE FUNCTION private.api_key_row(k private.api_keys)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select jsonb_build_object('id', k.id, 'name', k.name, 'scopes', k.scopes, 'prefix', k.prefix,
    'allowed_ips', (select array_agg(host(a) || case when masklen(a) < case when family(a) = 4 then 32 else 128 end
                                                     then '/' || masklen(a) else '' end) from unnest(k.allowed_ips) a),
    'created_at', k.created_at, 'expires_at', k.expires_at, 'last_used_at', k.last_used_at, 'revoked_at', k.revoked_at,
    'status', case when k.revoked_at is not null then 'revoked' when k.expires_at <= now() then 'expired' else 'active' end)
$function$;

CREATE OR REPLACE FUNCTION private.cancel_all_of(p_user uuid, p_token uuid)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$;

CREATE OR REPLACE FUNCTION private.check_order_request(p_user uuid, p_side text, p_type text, p_amount numeric, p_price numeric, p_tif text DEFAULT 'gtc'::text, p_expires_at timestamp with time zone DEFAULT NULL::timestamp with time zone, p_post_only boolean DEFAULT false, p_stop_price numeric DEFAULT NULL::numeric)
 RETURNS public.exchange_settings
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  settings public.exchange_settings;
  read record;
  tif text := coalesce(p_tif, 'gtc');
begin
  if p_user is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_second_step();
  perform private.require_scope('trade');
  select s as settings, coalesce(p.status <> 'active', false) as suspended into read
    from public.exchange_settings s left join public.profiles p on p.id = p_user;
  settings := read.settings;
  if p_side is null or p_side not in ('buy', 'sell') then
    raise exception 'The side must be buy or sell.' using errcode = '22023';
  end if;
  if p_type is null or p_type not in ('market', 'limit') then
    raise exception 'The order type must be market or limit.' using errcode = '22023';
  end if;
  if p_amount is null or p_amount = 'NaN' or p_amount < 1 or p_amount <> trunc(p_amount) then
    raise exception 'The amount must be a whole number of tokens, at least 1.' using errcode = '22023';
  end if;
  if p_type = 'limit' then
    if p_price is null or p_price = 'NaN' or p_price <= 0 then raise exception 'A limit order needs a price above $0.00.' using errcode = '22023'; end if;
    if p_price <> round(p_price, 2) then raise exception 'The limit price has at most two decimals.' using errcode = '22023'; end if;
    if p_price > settings.max_price then
      raise exception 'The limit price cannot exceed %.', private.money(settings.max_price) using errcode = '22023';
    end if;
  elsif p_price is not null then
    raise exception 'A market order takes no price: it trades at the best prices in the book.' using errcode = '22023';
  end if;
  if tif <> 'gtc' or p_expires_at is not null or p_post_only or p_stop_price is not null then -- a plain order skips the call
    perform private.check_order_terms(settings, p_type, tif, p_expires_at, p_post_only, p_stop_price);
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
  if p_type = 'limit' or p_stop_price is not null then
    -- The person's row, before any book: two orders at once cannot both pass the count.
    perform 1 from public.profiles where id = p_user for no key update;
  end if;
  if (p_type = 'limit' or p_stop_price is not null)
     and (select count(*) from public.orders where user_id = p_user and status in ('open', 'pending')) >= settings.max_open_orders then
    raise exception 'You have % open orders, the most allowed. Cancel one before placing another limit or stop order.',
      settings.max_open_orders using errcode = 'P0001';
  end if;
  return settings;
end $function$;

CREATE OR REPLACE FUNCTION private.claim_client_order(p_id text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := auth.uid();
  earlier jsonb;
begin
  if uid is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_scope('trade');
  if char_length(p_id) not between 1 and 64 or p_id !~ '^[A-Za-z0-9._:-]+$' then
    perform private.refuse('A client order id has 1 to 64 letters, digits or . _ : -');
  end if;
  delete from private.client_orders where user_id = uid and client_order_id = p_id and created_at < now() - interval '24 hours';
  insert into private.client_orders (user_id, client_order_id) values (uid, p_id) on conflict do nothing;
  if found then return null; end if;
  select answer into earlier from private.client_orders where user_id = uid and client_order_id = p_id;
  return earlier || jsonb_build_object('replayed', true);
end $function$;

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
      insert into private.account_mail (user_id, subject, body)
      values (due.user_id, 'Your orders were cancelled by your dead-man''s switch',
        format(E'Your API client had not called cancel_all_after within %s seconds (by %s UTC), so RepX '
               'cancelled your %s open order%s, as you asked. Call cancel_all_after again to re-arm it.',
               due.seconds, to_char(due.deadline at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS'), n, case when n = 1 then '' else 's' end));
      fired := fired + 1;
    exception when others then
      insert into private.cancel_after values (due.user_id, now() + interval '1 second', due.seconds);
    end;
  end loop;
  return fired;
end $function$;

CREATE OR REPLACE FUNCTION private.is_admin()
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  -- An admin's API key is not an admin: keys act only as a trader (api_keys.sql).
  if private.api_key() is not null
     or not exists (select 1 from public.profiles where id = auth.uid() and role = 'admin' and status = 'active') then
    return false;
  end if;
  return not private.second_step_due() and not private.admin_two_step_missing();
end $function$;

CREATE OR REPLACE FUNCTION private.max_api_keys()
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE
AS $function$select 10$function$;

CREATE OR REPLACE FUNCTION private.person_caller(p_what text)
 RETURNS uuid
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  perform private.require_session(p_what);
  return private.active_caller();
end $function$;

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
  delete from private.client_orders where created_at < now() - interval '1 day';
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

CREATE OR REPLACE FUNCTION private.refuse_api_key_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  if current_user = 'authenticated' then perform private.require_session(tg_argv[0]); end if;
  return null;
end $function$;

CREATE OR REPLACE FUNCTION private.require_admin()
 RETURNS uuid
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  perform private.require_session('make an admin call');
  if not private.is_admin() then
    if private.admin_two_step_missing()
       and exists (select 1 from public.profiles where id = auth.uid() and role = 'admin' and status = 'active') then
      raise exception 'Administrators must use two-step verification: turn it on in Profile › Settings, then sign in at the admin page again.'
        using errcode = '42501', hint = 'admin_two_step_required';
    end if;
    raise exception 'Admin privileges required.' using errcode = '42501';
  end if;
  return auth.uid();
end $function$;

CREATE OR REPLACE FUNCTION private.require_recent_sign_in(p_what text)
 RETURNS void
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if private.signed_in_within(interval '15 minutes') then return; end if;
  if private.has_app(auth.uid()) then
    raise exception 'For your security, enter a code from your authenticator app to %.', p_what
      using errcode = 'P0001', hint = 'reauthenticate';
  end if;
  raise exception 'For your security, confirm your password to %.', p_what using errcode = 'P0001', hint = 'reauthenticate';
end $function$;

CREATE OR REPLACE FUNCTION private.require_scope(p_scope text)
 RETURNS void
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  key uuid := private.api_key();
begin
  if key is null then return; end if;
  if not exists (select from private.api_keys k where k.id = key and p_scope = any (k.scopes)) then
    raise exception 'This API key may only read. Placing, editing and cancelling orders and alerts needs a key with the trade scope.'
      using errcode = '42501', hint = 'api_key_scope';
  end if;
end $function$;

CREATE OR REPLACE FUNCTION private.require_session(p_what text)
 RETURNS void
 LANGUAGE plpgsql
 STABLE
AS $function$
begin
  if private.api_key() is not null then
    raise exception 'An API key cannot %. Sign in to RepX to do it.', p_what
      using errcode = '42501', hint = 'api_key_refused';
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
  insert into private.account_mail (user_id, subject, body)
  values (k.user_id, 'An API key on your RepX account was revoked',
    format(E'The API key "%s" (%s…) was revoked%s. Requests made with it are refused from now on.',
           k.name, k.prefix, case when p_by = k.user_id then '' else ' by RepX: ' || p_reason end));
  return private.api_key_row(k);
end $function$;

CREATE OR REPLACE FUNCTION private.tell_feed(p_token uuid, p_levels jsonb, p_trades jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  book_change integer := case when jsonb_array_length(p_levels) > 0 then 1 else 0 end;
  traded integer := jsonb_array_length(p_trades);
  seqs record;
begin
  if book_change = 0 and traded = 0 then return; end if;
  insert into private.book_feed as f (token_id, book_seq, trade_seq) values (p_token, book_change, traded)
  on conflict (token_id) do update set book_seq = f.book_seq + book_change, trade_seq = f.trade_seq + traded
  returning f.book_seq, f.trade_seq into seqs;
  if book_change = 1 then
    perform realtime.send(jsonb_build_object('seq', seqs.book_seq,
      'bids', coalesce((select jsonb_agg(jsonb_build_object('price', l -> 'price', 'amount', (l ->> 'amount')::bigint) order by (l ->> 'price')::numeric desc)
                        from jsonb_array_elements(p_levels) l where l ->> 'side' = 'buy'), '[]'),
      'asks', coalesce((select jsonb_agg(jsonb_build_object('price', l -> 'price', 'amount', (l ->> 'amount')::bigint) order by (l ->> 'price')::numeric)
                        from jsonb_array_elements(p_levels) l where l ->> 'side' = 'sell'), '[]')),
      'book', 'book:' || p_token::text, true);
  end if;
  if traded > 0 then
    -- The tape's trades come newest first: the feed numbers them oldest first.
    perform realtime.send(jsonb_build_object('seq', seqs.trade_seq,
      'trades', (select jsonb_agg(t.value || jsonb_build_object('seq', seqs.trade_seq - traded + t.n) order by t.n)
                 from (select value, row_number() over (order by (value ->> 'id')::bigint) as n from jsonb_array_elements(p_trades)) t)),
      'trades', 'trades:' || p_token::text, true);
  end if;
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
  changed jsonb;
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
  changed := private.book_levels(p_token, levels);
  perform realtime.send(jsonb_build_object(
    'token_id', p_token, 'kind', p_kind,
    'price', s.price, 'change_24h', s.change_24h, 'volume_24h', s.volume_24h, 'market_cap', s.market_cap,
    'market_cap_change', coalesce(s.market_cap - (p_before->>'market_cap')::numeric, 0),
    'volume_change', coalesce(s.volume_24h - (p_before->>'volume_24h')::numeric, 0), 'holders', s.holders, 'halted', s.halted,
    'best_bid', (select o.price from public.orders o where o.token_id = p_token and o.side = 'buy' and o.status = 'open'
                  order by o.token_id, o.side, (case when o.side = 'buy' then -o.price else o.price end), o.created_at, o.id limit 1),
    'best_ask', (select o.price from public.orders o where o.token_id = p_token and o.side = 'sell' and o.status = 'open'
                  order by o.token_id, o.side, (case when o.side = 'buy' then -o.price else o.price end), o.created_at, o.id limit 1),
    'levels', changed,
    'trades', trades), 'token', 'market', true);
  perform private.tell_feed(p_token, changed, trades);
end $function$;

CREATE OR REPLACE FUNCTION private.touch_api_key(p_id uuid)
 RETURNS void
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
  update private.api_keys set last_used_at = now() where id = p_id and (last_used_at is null or last_used_at < now() - interval '1 minute')
$function$;

CREATE OR REPLACE FUNCTION private.trading_caller()
 RETURNS uuid
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  perform private.require_scope('trade');
  return private.active_caller();
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
  insert into private.account_mail (user_id, subject, body)
  values (uid, 'A bank account was added to your RepX account',
    format(E'The bank account %s •••• %s was added to your RepX account. For your security, it can receive withdrawals from %s.\n'
           'If it was not you, reset your password now with Forgot password? on the sign-in page, then remove the account in your Wallet.',
      d.label, d.account_last4, to_char(d.usable_from at time zone 'UTC', 'Mon FMDD, YYYY, HH24:MI "UTC"')));
  perform pg_notify('repx_mail', '');
  return d.id;
end $function$;

CREATE OR REPLACE FUNCTION public.admin_account_details(p_user uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  p public.profiles;
begin
  perform private.require_admin();
  select * into p from public.profiles where id = p_user and role <> 'system';
  if not found then perform private.refuse('There is no such account.'); end if;
  return jsonb_build_object(
    'profile', to_jsonb(p) || jsonb_build_object('email', (select email from auth.users where id = p_user),
      'last_sign_in_at', (select last_sign_in_at from auth.users where id = p_user),
      'two_step', private.has_app(p_user)),
    'cash', (select to_jsonb(c) - 'user_id' from public.cash_accounts c where c.user_id = p_user),
    'holdings', coalesce((select jsonb_agg(jsonb_build_object('token', k.name, 'token_id', k.id, 'amount', h.amount, 'reserved', h.reserved) order by h.amount desc)
      from public.holdings h join public.tokens k on k.id = h.token_id where h.user_id = p_user and h.amount > 0), '[]'),
    'open_orders', coalesce((select jsonb_agg(jsonb_build_object('id', o.id, 'token', k.name, 'side', o.side, 'price', o.price, 'stop_price', o.stop_price, 'amount', o.amount - o.filled, 'created_at', o.created_at) order by o.created_at desc)
      from public.orders o join public.tokens k on k.id = o.token_id where o.user_id = p_user and o.status in ('open', 'pending')), '[]'),
    'trades', coalesce((select jsonb_agg(x order by x.created_at desc) from (
      select t.id, k.name as token, case when t.buyer_id = p_user then 'buy' else 'sell' end as side, t.price, t.amount, t.created_at
      from public.trades t join public.tokens k on k.id = t.token_id where t.buyer_id = p_user or t.seller_id = p_user
      order by t.created_at desc limit 20) x), '[]'),
    'payments', coalesce((select jsonb_agg(x order by x.created_at desc) from (
      select w.id, w.type, w.amount, w.status, w.method, w.message, w.created_at from public.wallet_transactions w where w.user_id = p_user
      order by w.created_at desc limit 20) x), '[]'),
    'bank_accounts', coalesce((select jsonb_agg(jsonb_build_object('id', d.id, 'label', d.label, 'account_last4', d.account_last4,
        'created_at', d.created_at, 'usable_from', d.usable_from, 'removed_at', d.removed_at) order by d.created_at desc)
      from public.payout_destinations d where d.user_id = p_user), '[]'),
    'sessions', coalesce((select jsonb_agg(jsonb_build_object('id', s.id, 'created_at', s.created_at, 'refreshed_at', s.refreshed_at,
        'user_agent', s.user_agent, 'ip', host(s.ip)) order by s.created_at desc)
      from auth.sessions s where s.user_id = p_user), '[]'),
    'api_keys', private.account_api_keys(p_user),
    'activity', coalesce((select jsonb_agg(x order by x.created_at desc) from (
      select l.created_at, a.username as actor, l.action, l.reason from public.audit_log l left join public.profiles a on a.id = l.actor_id
      where l.target_user = p_user order by l.created_at desc limit 50) x), '[]')
  );
end $function$;

CREATE OR REPLACE FUNCTION public.admin_revoke_api_key(p_id uuid, p_reason text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  admin uuid := private.require_admin();
begin
  perform private.require_reason(p_reason, 'Give a reason of 3 to 500 characters: it is mailed to the key''s owner.');
  if not exists (select from private.api_keys where id = p_id) then perform private.refuse('There is no such API key.'); end if;
  return private.revoke_key(p_id, admin, trim(p_reason));
end $function$;

CREATE OR REPLACE FUNCTION public.apply_for_token(p_display_name text, p_category text, p_bio text DEFAULT ''::text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.person_caller('apply for a token');
  app public.token_applications;
begin
  perform 1 from public.profiles where id = uid for no key update; -- one application at a time per person
  if exists (select 1 from public.tokens where owner_id = uid) then perform private.refuse('You already have a token.'); end if;
  if exists (select 1 from public.token_applications where user_id = uid and status = 'pending') then
    perform private.refuse('Your application is already waiting for review.');
  end if;
  if char_length(trim(coalesce(p_display_name, ''))) not between 2 and 80 then
    perform private.refuse('The display name needs 2 to 80 characters.');
  end if;
  if not exists (select 1 from public.categories where name = p_category) then
    perform private.refuse('Choose one of the categories.');
  end if;
  if char_length(coalesce(p_bio, '')) > 500 then perform private.refuse('The bio has at most 500 characters.'); end if;
  insert into public.token_applications (user_id, display_name, category, bio, socials)
  values (uid, trim(p_display_name), p_category, coalesce(trim(p_bio), ''),
          coalesce((select jsonb_agg(jsonb_build_object('platform', a.platform, 'handle', a.handle,
                                                        'url', private.social_url(a.platform, a.handle), 'followers', a.followers)
                                     order by a.platform)
                      from public.social_accounts a where a.user_id = uid and a.status = 'connected'), '[]'))
  returning * into app;
  return to_jsonb(app);
end $function$;

CREATE OR REPLACE FUNCTION public.book_snapshot(p_token uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if auth.uid() is null then raise exception 'Sign in to read the feed.' using errcode = '42501'; end if;
  if not exists (select from public.tokens k where k.id = p_token) then perform private.refuse('There is no such token.'); end if;
  return (
    select jsonb_build_object('token_id', p_token,
      'seq', coalesce((select f.book_seq from private.book_feed f where f.token_id = p_token), 0),
      'trade_seq', coalesce((select f.trade_seq from private.book_feed f where f.token_id = p_token), 0),
      'bids', coalesce((select jsonb_agg(jsonb_build_object('price', l.price, 'amount', l.amount) order by l.price desc)
                        from (select o.price, sum(o.amount - o.filled)::bigint as amount from public.orders o
                              where o.token_id = p_token and o.side = 'buy' and o.status = 'open' group by o.price) l), '[]'),
      'asks', coalesce((select jsonb_agg(jsonb_build_object('price', l.price, 'amount', l.amount) order by l.price)
                        from (select o.price, sum(o.amount - o.filled)::bigint as amount from public.orders o
                              where o.token_id = p_token and o.side = 'sell' and o.status = 'open' group by o.price) l), '[]')));
end $function$;

CREATE OR REPLACE FUNCTION public.cancel_all_after(p_seconds integer)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$;

CREATE OR REPLACE FUNCTION public.cancel_all_orders(p_token uuid DEFAULT NULL::uuid)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := auth.uid();
begin
  if uid is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_second_step();
  perform private.require_scope('trade');
  return private.cancel_all_of(uid, p_token);
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
  perform private.require_scope('trade');
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
end $function$;

CREATE OR REPLACE FUNCTION public.cancel_orders(p_orders bigint[])
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$;

CREATE OR REPLACE FUNCTION public.cancel_withdrawal(p_id bigint)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.person_caller('cancel a withdrawal');
  w public.wallet_transactions;
begin
  select * into w from public.wallet_transactions where id = p_id and user_id = uid and type = 'withdrawal' for update;
  if not found then perform private.refuse('You have no such withdrawal.'); end if;
  if w.status <> 'pending' then
    perform private.refuse(format('This withdrawal is %s and can no longer be cancelled.', w.status));
  end if;
  perform 1 from public.cash_accounts where user_id = uid for update;
  update public.cash_accounts set available = available + w.amount, pending_withdrawal = pending_withdrawal - w.amount where user_id = uid;
  update public.wallet_transactions set status = 'cancelled', updated_at = now() where id = p_id returning * into w;
  return private.payment_json(w);
end $function$;

CREATE OR REPLACE FUNCTION public.check_social_connection(p_platform text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.person_caller('change your connected accounts');
  account public.social_accounts;
begin
  select * into account from public.social_accounts where user_id = uid and platform = p_platform for update;
  if account.id is null then perform private.refuse(format('Start connecting your %s account first.', coalesce(private.platform_name(p_platform), 'social'))); end if;
  if account.status = 'connected' then perform private.refuse('This account is connected already.'); end if;
  if (select count(*) from private.social_attempts where user_id = uid and at > now() - interval '1 hour')
     >= (public.social_method() ->> 'proofs_per_hour')::integer then
    perform private.refuse('Too many checks in the last hour: try again later.');
  end if;
  insert into private.social_attempts (user_id) values (uid);
  update public.social_accounts set status = 'checking', message = null, due_at = now(), claimed_until = null
   where id = account.id returning * into account;
  perform pg_notify('repx_social', '');
  return jsonb_build_object('platform', account.platform, 'handle', account.handle, 'status', account.status);
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
  insert into private.account_mail (user_id, subject, body)
  values (uid, 'A new API key on your RepX account',
    format(E'An API key named "%s" (%s…) was created on your account, with the scopes %s%s.\n\n'
           'It can %s, but never move money or change your account. If this was not you, revoke it in '
           'Profile › Settings › API keys and change your password.',
           made.name, made.prefix, array_to_string(made.scopes, ' and '),
           coalesce(', expiring ' || to_char(made.expires_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI') || ' UTC', ''),
           case when 'trade' = any (made.scopes) then 'read your account and place and cancel orders' else 'read your account' end));
  return jsonb_build_object('id', made.id, 'key', key);
end $function$;

CREATE OR REPLACE FUNCTION public.create_deposit(p_amount numeric, p_card text, p_idempotency_key text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.person_caller('deposit money');
  s public.exchange_settings;
  last4 text;
  w public.wallet_transactions;
  earlier jsonb;
begin
  earlier := private.replayed(uid, p_idempotency_key, 'deposit', p_amount);
  if earlier is not null then return earlier; end if;
  select * into s from public.exchange_settings;
  perform private.check_amount(p_amount, 'deposit', s.deposit_min, s.deposit_max);
  last4 := private.card_last4(p_card);
  insert into public.wallet_transactions (user_id, type, amount, status, idempotency_key, provider, method)
  values (uid, 'deposit', p_amount, 'pending', p_idempotency_key, 'simulated', 'Card •••• ' || last4)
  on conflict (user_id, idempotency_key) where idempotency_key is not null do nothing
  returning * into w;
  if not found then return private.replayed(uid, p_idempotency_key, 'deposit', p_amount); end if; -- a concurrent replay won
  perform pg_notify('repx_payments', w.reference::text);
  return private.payment_json(w);
end $function$;

CREATE OR REPLACE FUNCTION public.create_invest_plan(p_amount numeric, p_frequency text, p_day integer DEFAULT NULL::integer, p_token uuid DEFAULT NULL::uuid)
 RETURNS public.invest_plans
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  me uuid := private.person_caller('change an Auto-Invest plan');
  day smallint := private.check_invest_plan(p_amount, p_frequency, p_day, p_token);
  most integer := (select auto_invest_max_plans from public.exchange_settings);
  plan public.invest_plans;
begin
  perform private.require_second_step();
  -- One plan at a time per person, so two tabs cannot pass the limit together.
  perform 1 from public.profiles where id = me for no key update;
  if (select count(*) from public.invest_plans where user_id = me) >= most then
    perform private.refuse(format('You have %s plans, the most allowed. Delete one before adding another.', most));
  end if;
  insert into public.invest_plans (user_id, token_id, amount, frequency, run_day, next_run_on)
  values (me, p_token, p_amount, p_frequency, day, private.plan_date_on_or_after(p_frequency, day, private.plan_today()))
  returning * into plan;
  return plan;
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
  insert into private.account_mail (user_id, subject, body)
  values (uid, 'A withdrawal was requested from your RepX account',
    format(E'A withdrawal of %s to %s was requested from your RepX account.\n'
           'If it was not you, cancel it in your Wallet while it is pending, then reset your password with Forgot password? on the sign-in page.',
      private.money(p_amount), w.method));
  perform pg_notify('repx_mail', '');
  perform pg_notify('repx_payments', w.reference::text);
  return private.payment_json(w);
end $function$;

CREATE OR REPLACE FUNCTION public.delete_invest_plan(p_plan bigint)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.person_caller('change an Auto-Invest plan');
begin
  delete from public.invest_plans where id = p_plan and user_id = uid;
  if not found then perform private.refuse(format('You have no plan #%s.', p_plan)); end if;
end $function$;

CREATE OR REPLACE FUNCTION public.delete_price_alert(p_alert bigint)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.trading_caller();
begin
  delete from public.price_alerts where id = p_alert and user_id = uid;
  if not found then perform private.refuse(format('You have no price alert #%s.', p_alert)); end if;
end $function$;

CREATE OR REPLACE FUNCTION public.disconnect_social_account(p_platform text)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.person_caller('change your connected accounts');
begin
  delete from public.social_accounts where user_id = uid and platform = p_platform;
  if not found then perform private.refuse(format('No %s account is connected.', coalesce(private.platform_name(p_platform), 'social'))); end if;
  perform private.record_social_score(uid);
end $function$;

CREATE OR REPLACE FUNCTION public.end_my_session(p_session uuid)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.person_caller('sign out a session');
begin
  delete from auth.sessions where id = p_session and user_id = uid;
  if not found then perform private.refuse('That session has already ended.'); end if;
end $function$;

CREATE OR REPLACE FUNCTION public.list_api_keys()
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.active_caller();
begin
  return coalesce((select jsonb_agg(private.api_key_row(k)
                     order by (k.revoked_at is null and (k.expires_at is null or k.expires_at > now())) desc, k.created_at desc)
                   from private.api_keys k where k.user_id = uid), '[]');
end $function$;

CREATE OR REPLACE FUNCTION public.place_order(p_token uuid, p_side text, p_type text, p_amount numeric, p_price numeric DEFAULT NULL::numeric, p_time_in_force text DEFAULT 'gtc'::text, p_expires_at timestamp with time zone DEFAULT NULL::timestamp with time zone, p_post_only boolean DEFAULT false, p_stop_price numeric DEFAULT NULL::numeric, p_max_total numeric DEFAULT NULL::numeric, p_client_order_id text DEFAULT NULL::text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  settings public.exchange_settings;
  tok public.tokens;
  result jsonb;
begin
  if p_client_order_id is not null then
    result := private.claim_client_order(p_client_order_id);
    if result is not null then return result; end if;
  end if;
  settings := private.check_order_request(auth.uid(), p_side, p_type, p_amount, p_price,
    p_time_in_force, p_expires_at, p_post_only, p_stop_price);
  tok := private.lock_book(p_token, p_amount);
  if p_max_total is not null then
    if p_side <> 'buy' or p_type <> 'market' or p_stop_price is not null then
      perform private.refuse('A spending limit (p_max_total) is for market buys only.');
    elsif p_max_total = 'NaN' or p_max_total <= 0 or p_max_total <> round(p_max_total, 2) then
      perform private.refuse('The amount to spend must be above $0.00, with at most two decimals.');
    end if;
  end if;
  if p_stop_price is not null then
    result := private.hold_stop(auth.uid(), tok, p_side, p_type, p_amount::bigint, p_price, p_stop_price,
      coalesce(p_time_in_force, 'gtc'), p_expires_at, settings.fee_bps);
  else
    result := private.execute_order(auth.uid(), tok, null, p_side, p_type, p_amount::bigint, p_price,
      coalesce(p_time_in_force, 'gtc'), p_expires_at, coalesce(p_post_only, false), settings.fee_bps, p_max_total);
    -- Stops run after a trade, where the book has any (one probe of the waiting stops' index).
    if (result->>'value')::numeric > 0 and exists (select 1 from public.orders o where o.token_id = p_token and o.status = 'pending') then
      perform private.trigger_stops(tok, settings.fee_bps);
    end if;
  end if;
  if p_client_order_id is not null then
    result := result || jsonb_build_object('client_order_id', p_client_order_id);
    update private.client_orders set answer = result
     where user_id = auth.uid() and client_order_id = p_client_order_id;
  end if;
  return result;
end $function$;

CREATE OR REPLACE FUNCTION public.place_orders(p_orders jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  o record;
  results jsonb := '{}';
begin
  if auth.uid() is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_scope('trade');
  if jsonb_typeof(p_orders) is distinct from 'array' or jsonb_array_length(p_orders) not between 1 and 20 then
    perform private.refuse('Send 1 to 20 orders, as a JSON array.');
  end if;
  for o in select e.value as v, e.i from jsonb_array_elements(p_orders) with ordinality e (value, i)
           order by (case when jsonb_typeof(e.value) = 'object' then e.value ->> 'token' end) nulls first, e.i
  loop
    begin
      if jsonb_typeof(o.v) <> 'object' then perform private.refuse('Each order is a JSON object.'); end if;
      results := results || jsonb_build_object(o.i::text, public.place_order(
        (o.v ->> 'token')::uuid, o.v ->> 'side', o.v ->> 'type', (o.v ->> 'amount')::numeric, (o.v ->> 'price')::numeric,
        coalesce(o.v ->> 'time_in_force', 'gtc'), (o.v ->> 'expires_at')::timestamptz, coalesce((o.v ->> 'post_only')::boolean, false),
        (o.v ->> 'stop_price')::numeric, (o.v ->> 'max_total')::numeric, o.v ->> 'client_order_id'));
    exception when others then
      results := results || jsonb_build_object(o.i::text, jsonb_build_object('error',
        case when sqlstate in ('22P02', '22007', '22008') then 'Order ' || o.i || ': ' || sqlerrm else sqlerrm end));
    end;
  end loop;
  return (select jsonb_agg(results -> i::text order by i) from generate_series(1, jsonb_array_length(p_orders)) i);
end $function$;

CREATE OR REPLACE FUNCTION public.refresh_social_accounts()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.person_caller('change your connected accounts');
  wait interval := make_interval(mins => (public.social_method() ->> 'refresh_after_minutes')::integer);
  next_at timestamptz;
  n integer;
begin
  if not exists (select 1 from public.social_accounts where user_id = uid and status = 'connected') then
    perform private.refuse('Connect an account first.');
  end if;
  select min(read_at) + wait into next_at from public.social_accounts where user_id = uid and status = 'connected';
  if next_at > now() then
    perform private.refuse(format('Your accounts were read less than an hour ago: refresh again after %s UTC.',
      to_char(next_at at time zone 'UTC', 'HH24:MI')));
  end if;
  update public.social_accounts set due_at = now() where user_id = uid and status = 'connected';
  get diagnostics n = row_count;
  perform pg_notify('repx_social', '');
  return n;
end $function$;

CREATE OR REPLACE FUNCTION public.remove_payout_destination(p_id uuid)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.person_caller('remove a bank account');
begin
  update public.payout_destinations set removed_at = now()
   where id = p_id and user_id = uid and removed_at is null;
  if not found then perform private.refuse('This account is not one of your saved accounts.'); end if;
end $function$;

CREATE OR REPLACE FUNCTION public.replace_order(p_order bigint, p_amount numeric, p_price numeric, p_filled bigint DEFAULT NULL::bigint, p_stop_price numeric DEFAULT NULL::numeric)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$;

CREATE OR REPLACE FUNCTION public.revoke_api_key(p_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid;
begin
  perform private.require_session('revoke an API key');
  uid := private.active_caller();
  if not exists (select from private.api_keys where id = p_id and user_id = uid) then
    perform private.refuse('There is no such API key on your account.');
  end if;
  return private.revoke_key(p_id, uid, null);
end $function$;

CREATE OR REPLACE FUNCTION public.set_invest_plan_paused(p_plan bigint, p_paused boolean)
 RETURNS public.invest_plans
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  me uuid := private.person_caller('change an Auto-Invest plan');
  plan public.invest_plans;
begin
  if p_paused is null then perform private.refuse('Say whether to pause or resume the plan.'); end if;
  update public.invest_plans
     set paused = p_paused, updated_at = now(),
         next_run_on = case when p_paused then next_run_on
                            else private.plan_date_on_or_after(frequency, run_day, private.plan_today()) end
   where id = p_plan and user_id = me
  returning * into plan;
  if not found then perform private.refuse(format('You have no plan #%s.', p_plan)); end if;
  return plan;
end $function$;

CREATE OR REPLACE FUNCTION public.set_price_alert(p_token uuid, p_kind text, p_value numeric, p_alert bigint DEFAULT NULL::bigint)
 RETURNS public.price_alerts
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.trading_caller();
  most constant integer := 20;
  tok public.tokens;
  last numeric;
  saved public.price_alerts;
begin
  select * into tok from public.tokens where id = p_token;
  if not found then perform private.refuse('There is no such token.'); end if;
  if p_kind is null or p_kind not in ('above', 'below', 'move') then
    perform private.refuse('An alert is for a price at or above a level, at or below one, or a move within 24 hours.');
  end if;
  if p_value is null or p_value = 'NaN' or p_value <= 0 then
    perform private.refuse(case when p_kind = 'move' then 'Give the move as a percentage above 0.' else 'Give the alert''s price, above $0.00.' end);
  end if;
  if p_value <> round(p_value, 2) then perform private.refuse('Use at most two decimals.'); end if;
  if p_kind = 'move' and p_value > 100 then perform private.refuse('A move is at most 100%.'); end if;
  last := private.last_price(p_token);
  if p_kind = 'above' and p_value <= last then
    perform private.refuse(format('%s is at %s already: set the alert above that.', tok.name, private.money(last)));
  elsif p_kind = 'below' and p_value >= last then
    perform private.refuse(format('%s is at %s already: set the alert below that.', tok.name, private.money(last)));
  end if;
  if p_alert is null then
    -- The person's row, so that two alerts set at once cannot both pass the count.
    perform 1 from public.profiles where id = uid for no key update;
    if (select count(*) from public.price_alerts where user_id = uid) >= most then
      perform private.refuse(format('You have %s price alerts, the most allowed. Remove one to set another.', most));
    end if;
    insert into public.price_alerts (user_id, token_id, kind, price, move_pct)
    values (uid, p_token, p_kind, case when p_kind <> 'move' then p_value end, case when p_kind = 'move' then p_value end)
    returning * into saved;
  else
    update public.price_alerts
       set kind = p_kind, price = case when p_kind <> 'move' then p_value end,
           move_pct = case when p_kind = 'move' then p_value end, fired_at = null, fired_price = null
     where id = p_alert and user_id = uid and token_id = p_token
    returning * into saved;
    if not found then perform private.refuse(format('You have no price alert #%s on %s.', p_alert, tok.name)); end if;
  end if;
  return saved;
end $function$;

CREATE OR REPLACE FUNCTION public.start_social_connection(p_platform text, p_handle text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.person_caller('change your connected accounts');
  v_handle text := trim(leading '@' from trim(coalesce(p_handle, '')));
  v_phrase text := 'repx-' || substr(md5(gen_random_uuid()::text), 1, 10);
  account public.social_accounts;
begin
  if p_platform is null or p_platform not in ('x', 'instagram', 'youtube', 'tiktok', 'linkedin') then
    perform private.refuse('Choose X, Instagram, YouTube, TikTok or LinkedIn.');
  end if;
  if v_handle !~ '^[A-Za-z0-9_.-]{1,50}$' then
    perform private.refuse(format('The %s handle "%s" is not valid: letters, digits, dots, dashes and underscores only.', private.platform_name(p_platform), v_handle));
  end if;
  if exists (select 1 from public.social_accounts a where a.platform = p_platform and lower(a.handle) = lower(v_handle)
               and a.status = 'connected' and a.user_id <> uid) then
    perform private.refuse(format('@%s on %s is connected to another RepX account.', v_handle, private.platform_name(p_platform)));
  end if;
  insert into public.social_accounts (user_id, platform, handle, phrase)
  values (uid, p_platform, v_handle, v_phrase)
  on conflict (user_id, platform) do update
    set handle = excluded.handle, phrase = excluded.phrase, status = 'proving', message = null, created_at = now(),
        connected_at = null, read_at = null, due_at = null, followers = null, following = null, account_created = null,
        platform_verified = null, engagement_rate = null, posts_read = null, analysis = null
  returning * into account;
  -- A new handle starts afresh: nothing read from the old one stays.
  delete from public.social_evidence where account_id = account.id;
  delete from private.social_reads where account_id = account.id;
  return jsonb_build_object('platform', account.platform, 'handle', account.handle, 'phrase', account.phrase);
end $function$;

CREATE OR REPLACE FUNCTION public.update_invest_plan(p_plan bigint, p_amount numeric, p_frequency text, p_day integer DEFAULT NULL::integer, p_token uuid DEFAULT NULL::uuid)
 RETURNS public.invest_plans
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  me uuid := private.person_caller('change an Auto-Invest plan');
  day smallint := private.check_invest_plan(p_amount, p_frequency, p_day, p_token);
  plan public.invest_plans;
begin
  perform private.require_second_step();
  update public.invest_plans
     set amount = p_amount, frequency = p_frequency, run_day = day, token_id = p_token, updated_at = now(),
         next_run_on = private.plan_date_on_or_after(p_frequency, day, private.plan_today())
   where id = p_plan and user_id = me
  returning * into plan;
  if not found then perform private.refuse(format('You have no plan #%s.', p_plan)); end if;
  return plan;
end $function$;

alter table private.api_keys add constraint "api_keys_allowed_ips_check" CHECK (((cardinality(allowed_ips) >= 1) AND (cardinality(allowed_ips) <= 20)));

alter table private.api_keys add constraint "api_keys_key_hash_key" UNIQUE (key_hash);

alter table private.api_keys add constraint "api_keys_name_check" CHECK (((char_length(name) >= 1) AND (char_length(name) <= 60)));

alter table private.api_keys add constraint "api_keys_pkey" PRIMARY KEY (id);

alter table private.api_keys add constraint "api_keys_scopes_check" CHECK (((scopes <@ ARRAY['read'::text, 'trade'::text]) AND ('read'::text = ANY (scopes))));

alter table private.book_feed add constraint "book_feed_pkey" PRIMARY KEY (token_id);

alter table private.cancel_after add constraint "cancel_after_pkey" PRIMARY KEY (user_id);

alter table private.client_orders add constraint "client_orders_pkey" PRIMARY KEY (user_id, client_order_id);

alter table private.api_keys add constraint "api_keys_revoked_by_fkey" FOREIGN KEY (revoked_by) REFERENCES profiles(id);

alter table private.api_keys add constraint "api_keys_user_id_fkey" FOREIGN KEY (user_id) REFERENCES profiles(id) ON DELETE CASCADE;

alter table private.book_feed add constraint "book_feed_token_id_fkey" FOREIGN KEY (token_id) REFERENCES tokens(id) ON DELETE CASCADE;

alter table private.cancel_after add constraint "cancel_after_user_id_fkey" FOREIGN KEY (user_id) REFERENCES profiles(id) ON DELETE CASCADE;

alter table private.client_orders add constraint "client_orders_user_id_fkey" FOREIGN KEY (user_id) REFERENCES profiles(id) ON DELETE CASCADE;

CREATE INDEX api_keys_user_idx ON private.api_keys USING btree (user_id, created_at DESC);

CREATE INDEX cancel_after_deadline_idx ON private.cancel_after USING btree (deadline);

CREATE TRIGGER no_api_key_writes BEFORE INSERT OR DELETE OR UPDATE ON public.profiles FOR EACH STATEMENT EXECUTE FUNCTION private.refuse_api_key_write('change a profile');

CREATE TRIGGER no_api_key_writes BEFORE INSERT OR DELETE OR UPDATE ON public.watchlist FOR EACH STATEMENT EXECUTE FUNCTION private.refuse_api_key_write('change the watchlist');

CREATE TRIGGER no_api_key_writes BEFORE INSERT OR DELETE OR UPDATE ON storage.objects FOR EACH STATEMENT EXECUTE FUNCTION private.refuse_api_key_write('upload or remove a picture');

create policy "signed-in users and their keys hear the feed" on realtime.messages as permissive for select to authenticated
  using (((( SELECT realtime.topic() AS topic) ~~ 'book:%'::text) OR (( SELECT realtime.topic() AS topic) ~~ 'trades:%'::text)));

revoke all on routine private.account_api_keys(uuid) from public;

revoke all on routine private.api_key() from public;
grant execute on routine private.api_key() to authenticated;

revoke all on routine private.api_key_by_hash(bytea) from public;

revoke all on routine private.api_key_row(private.api_keys) from public;

revoke all on routine private.cancel_all_of(uuid,uuid) from public;

revoke all on routine private.claim_client_order(text) from public;

revoke all on routine private.fire_cancel_after() from public;

revoke all on routine private.max_api_keys() from public;

revoke all on routine private.person_caller(text) from public;

revoke all on routine private.refuse_api_key_write() from public;

revoke all on routine private.require_recent_sign_in(text) from public;

revoke all on routine private.require_scope(text) from public;

revoke all on routine private.require_session(text) from public;
grant execute on routine private.require_session(text) to authenticated;

revoke all on routine private.revoke_key(uuid,uuid,text) from public;

revoke all on routine private.tell_feed(uuid,jsonb,jsonb) from public;

revoke all on routine private.touch_api_key(uuid) from public;

revoke all on routine private.trading_caller() from public;

revoke all on routine public.admin_revoke_api_key(uuid,text) from anon;
revoke all on routine public.admin_revoke_api_key(uuid,text) from public;

revoke all on routine public.book_snapshot(uuid) from anon;
revoke all on routine public.book_snapshot(uuid) from public;

revoke all on routine public.cancel_all_after(integer) from anon;
revoke all on routine public.cancel_all_after(integer) from public;

revoke all on routine public.cancel_orders(bigint[]) from anon;
revoke all on routine public.cancel_orders(bigint[]) from public;

revoke all on routine public.create_api_key(text,text[],text[],timestamp with time zone) from anon;
revoke all on routine public.create_api_key(text,text[],text[],timestamp with time zone) from public;

revoke all on routine public.list_api_keys() from anon;
revoke all on routine public.list_api_keys() from public;

revoke all on routine public.place_order(uuid,text,text,numeric,numeric,text,timestamp with time zone,boolean,numeric,numeric,text) from anon;
revoke all on routine public.place_order(uuid,text,text,numeric,numeric,text,timestamp with time zone,boolean,numeric,numeric,text) from public;

revoke all on routine public.place_orders(jsonb) from anon;
revoke all on routine public.place_orders(jsonb) from public;

revoke all on routine public.revoke_api_key(uuid) from anon;
revoke all on routine public.revoke_api_key(uuid) from public;
