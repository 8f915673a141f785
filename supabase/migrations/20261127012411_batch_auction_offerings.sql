-- batch_auction_offerings: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

create table public.offerings ();

create table public.offering_bids ();

alter table public.exchange_settings add column "offering_window_minutes" integer default 1440 not null;

alter table public.exchange_settings add column "offering_cap_bps" integer default 200 not null;

alter table public.offerings add column "id" bigint generated always as identity;

alter table public.offerings add column "token_id" uuid not null;

alter table public.offerings add column "supply" bigint not null;

alter table public.offerings add column "reserve_price" numeric(12,2) not null;

alter table public.offerings add column "account_cap" bigint not null;

alter table public.offerings add column "fee_bps" integer not null;

alter table public.offerings add column "opens_at" timestamp with time zone default now() not null;

alter table public.offerings add column "closes_at" timestamp with time zone not null;

alter table public.offerings add column "closed_at" timestamp with time zone;

alter table public.offerings add column "clearing_price" numeric(12,2);

alter table public.offerings add column "sold" bigint default 0 not null;

alter table public.offering_bids add column "offering_id" bigint not null;

alter table public.offering_bids add column "user_id" uuid not null;

alter table public.offering_bids add column "price" numeric(12,2) not null;

alter table public.offering_bids add column "amount" bigint not null;

alter table public.offering_bids add column "reserved" numeric(14,2) not null;

alter table public.offering_bids add column "placed_at" timestamp with time zone default clock_timestamp() not null;

alter table public.offering_bids add column "allocated" bigint;

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
  insert into public.market_events (token_id, kind) values (f.token_id, case when total_sold > 0 then 'trade' else 'book' end);
  return true;
end $function$;

CREATE OR REPLACE FUNCTION private.lock_book(p_token uuid, p_amount numeric)
 RETURNS public.tokens
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  tok public.tokens;
  offering_closes timestamptz;
begin
  select * into tok from public.tokens where id = p_token for update;
  if not found then raise exception 'There is no such token.' using errcode = 'P0001'; end if;
  select closes_at into offering_closes from public.offerings where token_id = p_token and closed_at is null;
  if offering_closes is not null then
    raise exception 'Trading in % opens when its offering closes (% UTC). Until then, place a bid in the offering.',
      tok.name, to_char(offering_closes at time zone 'UTC', 'YYYY-MM-DD HH24:MI') using errcode = 'P0001';
  end if;
  if tok.halt_reason is not null then
    raise exception 'Trading in % is halted: %. Cancelling open orders still works.', tok.name, rtrim(tok.halt_reason, '.')
      using errcode = 'P0001';
  end if;
  if p_amount > tok.total_supply then
    raise exception 'The amount cannot exceed the total supply of % tokens.', tok.total_supply using errcode = '22023';
  end if;
  return tok;
end $function$;

CREATE OR REPLACE FUNCTION private.lock_open_offering(p_token uuid)
 RETURNS public.offerings
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  f public.offerings;
  tok public.tokens;
begin
  select * into f from public.offerings where token_id = p_token and closed_at is null for update;
  select * into tok from public.tokens where id = p_token;
  if tok.id is null then perform private.refuse('There is no such token.'); end if;
  if f.id is null then perform private.refuse(format('%s has no open offering: trade it on the order book.', tok.name)); end if;
  if clock_timestamp() >= f.closes_at then
    perform private.refuse(format('The offering of %s has closed; its bids are being settled.', tok.name));
  end if;
  if tok.halt_reason is not null then
    perform private.refuse(format('Trading in %s is halted: %s. Cancelling a bid still works.', tok.name, rtrim(tok.halt_reason, '.')));
  end if;
  return f;
end $function$;

CREATE OR REPLACE FUNCTION private.offering_allocations(p_offering bigint)
 RETURNS TABLE(user_id uuid, price numeric, amount bigint, reserved numeric, allocated bigint)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  with clearing as (select * from private.offering_clearing(p_offering)),
  bid as (
    select b.* from public.offering_bids b
      join public.profiles p on p.id = b.user_id and p.status = 'active'
     where b.offering_id = p_offering
  ),
  margin as (
    select coalesce(sum(b.amount) filter (where b.price = c.price), 0) as wanted,
           -- What the bids above the margin leave of the volume (all of the margin when undersubscribed).
           c.volume - coalesce(sum(b.amount) filter (where b.price > c.price), 0) as left_over
      from clearing c left join bid b on true
     group by c.volume
  ),
  base as (
    select b.user_id, b.price, b.amount, b.reserved, b.placed_at, b.price = c.price as marginal,
           case when b.price > c.price then b.amount
                when b.price = c.price then floor(b.amount * m.left_over / m.wanted::numeric)::bigint
                else 0 end as share
      from bid b cross join clearing c cross join margin m
  ),
  ranked as (
    select base.*,
           row_number() over (partition by base.marginal order by base.placed_at, base.user_id) as turn,
           (select m.left_over from margin m) - sum(base.share) filter (where base.marginal) over () as remainder
      from base
  )
  select r.user_id, r.price, r.amount, r.reserved,
         r.share + case when r.marginal and r.turn <= r.remainder then 1 else 0 end
    from ranked r
$function$;

CREATE OR REPLACE FUNCTION private.offering_clearing(p_offering bigint, OUT price numeric, OUT volume bigint, OUT demand bigint)
 RETURNS record
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  with bid as (
    select b.price, b.amount from public.offering_bids b
      join public.profiles p on p.id = b.user_id and p.status = 'active'
     where b.offering_id = p_offering
  ),
  curve as (
    select l.price, sum(l.amount) over (order by l.price desc) as wanted
      from (select bid.price, sum(bid.amount) as amount from bid group by bid.price) l
  ),
  best as (
    select c.price, least(c.wanted, f.supply)::bigint as volume
      from curve c cross join public.offerings f where f.id = p_offering
     order by least(c.wanted, f.supply) desc, abs(c.wanted - f.supply), c.price desc
     limit 1
  )
  select best.price, coalesce(best.volume, 0), (select coalesce(sum(bid.amount), 0)::bigint from bid)
    from (select 1) one left join best on true
$function$;

CREATE OR REPLACE FUNCTION private.open_offering(p_token uuid, p_supply bigint, p_price numeric)
 RETURNS public.offerings
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  s public.exchange_settings;
  f public.offerings;
begin
  select * into s from public.exchange_settings;
  insert into public.offerings (token_id, supply, reserve_price, account_cap, fee_bps, closes_at)
  values (p_token, p_supply, p_price, greatest(1, floor(p_supply * s.offering_cap_bps / 10000.0)::bigint), s.fee_bps,
          now() + make_interval(mins => s.offering_window_minutes))
  returning * into f;
  return f;
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
  insert into public.market_events (token_id, kind) values (tok, 'book');
  perform private.audit('application.approve', app.user_id, 'application ' || p_id, jsonb_build_object('status', 'pending'),
    jsonb_build_object('status', 'approved', 'token_id', tok, 'total_supply', supply, 'issue_price', price, 'founder_allocation', founder));
  return jsonb_build_object('application', to_jsonb(app), 'token_id', tok, 'total_supply', supply, 'issue_price', price,
    'founder_allocation', founder, 'offering', supply - founder, 'offering_closes_at', offering_closes);
end $function$;

CREATE OR REPLACE FUNCTION public.admin_update_settings(p_changes jsonb, p_reason text DEFAULT NULL::text)
 RETURNS public.exchange_settings
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  admin uuid := private.require_admin();
  editable constant text[] := array['fee_bps', 'min_order_amount', 'max_price', 'max_open_orders', 'trading_halted', 'halt_reason',
    'deposit_min', 'deposit_max', 'withdrawal_min', 'withdrawal_daily_limit', 'token_supply', 'token_founder_bps', 'token_issue_price',
    'new_bank_account_hold_hours', 'market_band_bps', 'auto_invest_min', 'auto_invest_max', 'auto_invest_max_plans', 'creator_fee_share_bps',
    'founder_vesting_months', 'founder_cliff_months', 'offering_window_minutes', 'offering_cap_bps'];
  before public.exchange_settings;
  after public.exchange_settings;
  k text;
begin
  if p_changes is null or jsonb_typeof(p_changes) <> 'object' or p_changes = '{}'::jsonb then
    perform private.refuse('Say which settings to change.');
  end if;
  for k in select jsonb_object_keys(p_changes) loop
    if not k = any (editable) then perform private.refuse(format('%s is not a setting.', k)); end if;
  end loop;
  select * into before from public.exchange_settings for update;
  begin
    after := jsonb_populate_record(before, p_changes);
  exception when others then
    perform private.refuse('A setting has a value of the wrong kind: numbers for amounts and limits, true or false for the halt.');
  end;
  if after.fee_bps is null or after.max_price is null or after.deposit_min is null or after.deposit_max is null or after.withdrawal_min is null
     or after.withdrawal_daily_limit is null or after.min_order_amount is null or after.max_open_orders is null
     or after.trading_halted is null or after.token_supply is null or after.token_founder_bps is null or after.token_issue_price is null
     or after.new_bank_account_hold_hours is null or after.market_band_bps is null
     or after.auto_invest_min is null or after.auto_invest_max is null or after.auto_invest_max_plans is null
     or after.creator_fee_share_bps is null or after.founder_vesting_months is null or after.founder_cliff_months is null
     or after.offering_window_minutes is null or after.offering_cap_bps is null then
    perform private.refuse('A setting cannot be empty.');
  end if;
  if after.fee_bps <> trunc(after.fee_bps) or after.fee_bps not between 0 and 1000 then
    perform private.refuse('The trading fee must be between 0 and 1,000 basis points (0% to 10%).');
  end if;
  if after.deposit_min <= 0 or after.deposit_max < after.deposit_min then
    perform private.refuse('Deposits need a minimum above $0.00 and a maximum at least as large.');
  end if;
  if after.withdrawal_min <= 0 or after.withdrawal_daily_limit < after.withdrawal_min then
    perform private.refuse('Withdrawals need a minimum above $0.00 and a daily limit at least as large.');
  end if;
  if after.min_order_amount < 1 then perform private.refuse('The minimum order is at least 1 token.'); end if;
  if after.max_open_orders not between 1 and 10000 then perform private.refuse('The open-order limit must be between 1 and 10,000.'); end if;
  if after.new_bank_account_hold_hours not between 0 and 168 then
    perform private.refuse('A new bank account waits between 0 and 168 hours (a week).');
  end if;
  if after.market_band_bps <> trunc(after.market_band_bps) or after.market_band_bps not between 100 and 5000 then
    perform private.refuse('The market order band must be between 100 and 5,000 basis points (1% to 50%).');
  end if;
  if after.auto_invest_min <= 0 or after.auto_invest_max < after.auto_invest_min then
    perform private.refuse('Auto-Invest needs a minimum above $0.00 and a maximum at least as large.');
  end if;
  if after.auto_invest_max_plans <> trunc(after.auto_invest_max_plans) or after.auto_invest_max_plans not between 1 and 100 then
    perform private.refuse('The Auto-Invest plan limit must be between 1 and 100.');
  end if;
  if after.creator_fee_share_bps <> trunc(after.creator_fee_share_bps) or after.creator_fee_share_bps not between 0 and 10000 then
    perform private.refuse('The creator''s share of the fees must be between 0 and 10,000 basis points (0% to 100%).');
  end if;
  if after.founder_vesting_months not between 0 and 120 or after.founder_cliff_months not between 0 and after.founder_vesting_months then
    perform private.refuse('Founder vesting is 0 to 120 months, with a cliff no longer than the vesting.');
  end if;
  if after.offering_window_minutes not between 1 and 10080 then
    perform private.refuse('An offering''s window is 1 to 10,080 minutes (a week).');
  end if;
  if after.offering_cap_bps <> trunc(after.offering_cap_bps) or after.offering_cap_bps not between 1 and 10000 then
    perform private.refuse('The offering''s cap per account must be between 1 and 10,000 basis points (0.01% to 100%).');
  end if;
  begin
    update public.exchange_settings set
      fee_bps = after.fee_bps, min_order_amount = after.min_order_amount, max_price = after.max_price, max_open_orders = after.max_open_orders,
      trading_halted = after.trading_halted, halt_reason = nullif(trim(after.halt_reason), ''),
      deposit_min = after.deposit_min, deposit_max = after.deposit_max, withdrawal_min = after.withdrawal_min,
      withdrawal_daily_limit = after.withdrawal_daily_limit, token_supply = after.token_supply,
      token_founder_bps = after.token_founder_bps, token_issue_price = after.token_issue_price,
      new_bank_account_hold_hours = after.new_bank_account_hold_hours, market_band_bps = after.market_band_bps,
      auto_invest_min = after.auto_invest_min, auto_invest_max = after.auto_invest_max,
      auto_invest_max_plans = after.auto_invest_max_plans, creator_fee_share_bps = after.creator_fee_share_bps,
      founder_vesting_months = after.founder_vesting_months, founder_cliff_months = after.founder_cliff_months,
      offering_window_minutes = after.offering_window_minutes, offering_cap_bps = after.offering_cap_bps,
      updated_at = now()
    returning * into after;
  exception when check_violation then
    perform private.refuse('A setting is out of its allowed range.');
  end;
  -- Only what changed, before and after.
  perform private.audit('settings.update', null, 'exchange settings',
    (select jsonb_object_agg(b.key, b.value) from jsonb_each(to_jsonb(before)) b
      where b.key not in ('id', 'updated_at') and b.value is distinct from to_jsonb(after) -> b.key),
    (select jsonb_object_agg(a.key, a.value) from jsonb_each(to_jsonb(after)) a
      where a.key not in ('id', 'updated_at') and a.value is distinct from to_jsonb(before) -> a.key),
    nullif(trim(coalesce(p_reason, '')), ''));
  return after;
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
  insert into public.market_events (token_id, kind) values (p_token, 'book');
  return jsonb_build_object('released', was.reserved);
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
  insert into public.market_events (token_id, kind) values (p_token, 'book');
  return jsonb_build_object('price', bid.price, 'amount', bid.amount, 'reserved', bid.reserved, 'placed_at', bid.placed_at,
                            'closes_at', f.closes_at);
end $function$;

create view public.offering_book as
 SELECT f.id,
    f.token_id,
    f.supply,
    f.reserve_price,
    f.account_cap,
    f.opens_at,
    f.closes_at,
    f.closed_at,
    f.clearing_price,
    f.sold,
    c.price AS indicative_price,
    c.volume AS indicative_volume,
    c.demand
   FROM (offerings f
     LEFT JOIN LATERAL ( SELECT offering_clearing.price,
            offering_clearing.volume,
            offering_clearing.demand
           FROM private.offering_clearing(f.id) offering_clearing(price, volume, demand)
          WHERE (f.closed_at IS NULL)) c ON (true));

alter table public.exchange_settings add constraint "exchange_settings_offering_cap_bps_check" CHECK (((offering_cap_bps >= 1) AND (offering_cap_bps <= 10000)));

alter table public.exchange_settings add constraint "exchange_settings_offering_window_minutes_check" CHECK (((offering_window_minutes >= 1) AND (offering_window_minutes <= 10080)));

alter table public.offering_bids add constraint "offering_bids_amount_check" CHECK ((amount > 0));

alter table public.offering_bids add constraint "offering_bids_check" CHECK (((allocated >= 0) AND (allocated <= amount)));

alter table public.offering_bids add constraint "offering_bids_pkey" PRIMARY KEY (offering_id, user_id);

alter table public.offering_bids add constraint "offering_bids_price_check" CHECK ((price > (0)::numeric));

alter table public.offering_bids add constraint "offering_bids_reserved_check" CHECK ((reserved >= (0)::numeric));

alter table public.offerings add constraint "offerings_account_cap_check" CHECK ((account_cap > 0));

alter table public.offerings add constraint "offerings_check" CHECK ((closes_at > opens_at));

alter table public.offerings add constraint "offerings_check1" CHECK (((sold >= 0) AND (sold <= supply)));

alter table public.offerings add constraint "offerings_check2" CHECK (((closed_at IS NOT NULL) OR ((clearing_price IS NULL) AND (sold = 0))));

alter table public.offerings add constraint "offerings_clearing_price_check" CHECK ((clearing_price > (0)::numeric));

alter table public.offerings add constraint "offerings_fee_bps_check" CHECK (((fee_bps >= 0) AND (fee_bps <= 1000)));

alter table public.offerings add constraint "offerings_pkey" PRIMARY KEY (id);

alter table public.offerings add constraint "offerings_reserve_price_check" CHECK ((reserve_price > (0)::numeric));

alter table public.offerings add constraint "offerings_supply_check" CHECK ((supply > 0));

alter table public.offering_bids add constraint "offering_bids_offering_id_fkey" FOREIGN KEY (offering_id) REFERENCES offerings(id) ON DELETE CASCADE;

alter table public.offering_bids add constraint "offering_bids_user_id_fkey" FOREIGN KEY (user_id) REFERENCES profiles(id) ON DELETE CASCADE;

alter table public.offerings add constraint "offerings_token_id_fkey" FOREIGN KEY (token_id) REFERENCES tokens(id) ON DELETE CASCADE;

CREATE INDEX offering_bids_user_idx ON public.offering_bids USING btree (user_id);

CREATE INDEX offerings_due_idx ON public.offerings USING btree (closes_at) WHERE (closed_at IS NULL);

CREATE UNIQUE INDEX offerings_open_idx ON public.offerings USING btree (token_id) WHERE (closed_at IS NULL);

CREATE INDEX offerings_token_idx ON public.offerings USING btree (token_id, opens_at DESC);

create policy "own bids" on public.offering_bids as permissive for select to authenticated
  using (((user_id = ( SELECT auth.uid() AS uid)) OR ( SELECT private.is_admin() AS is_admin)));

create policy "offerings are visible to signed-in users" on public.offerings as permissive for select to authenticated
  using (true);

alter table public.offering_bids enable row level security;

alter table public.offerings enable row level security;

revoke all on routine private.close_next_offering() from public;

revoke all on routine private.lock_open_offering(uuid) from public;

revoke all on routine private.offering_allocations(bigint) from public;

revoke all on routine private.offering_clearing(bigint) from public;
grant execute on routine private.offering_clearing(bigint) to authenticated;

revoke all on routine private.open_offering(uuid,bigint,numeric) from public;

revoke all on routine public.cancel_offering_bid(uuid) from anon;
revoke all on routine public.cancel_offering_bid(uuid) from public;

revoke all on routine public.place_offering_bid(uuid,numeric,numeric) from anon;
revoke all on routine public.place_offering_bid(uuid,numeric,numeric) from public;

revoke all on table public.offering_bids from anon;
revoke insert, update, delete, truncate on table public.offering_bids from authenticated;

revoke all on table public.offerings from anon;
revoke insert, update, delete, truncate on table public.offerings from authenticated;

revoke all on table public.offering_book from anon;
