-- lock_order: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.check_image_quota()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  quota constant bigint := 20 * 1024 * 1024;
  used bigint;
begin
  if new.bucket_id <> 'avatars' or new.owner is null then return new; end if;
  perform 1 from public.profiles where id = new.owner for no key update;
  select coalesce(sum((o.metadata ->> 'size')::bigint), 0) into used
    from storage.objects o where o.bucket_id = new.bucket_id and o.owner = new.owner and o.name <> new.name;
  if used + coalesce((new.metadata ->> 'size')::bigint, 0) > quota then
    raise exception 'You can keep up to 20 MB of images: remove one to upload another.' using errcode = '53400';
  end if;
  return new;
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
    perform 1 from public.tokens where id = o.token_id for no key update;
    perform private.release_order(o.id, 'expired');
    perform private.tell_market(o.token_id, 'book', private.order_levels(array[o.id]));
    perform private.tell_accounts(array[o.user_id], 'orders', o.token_id);
    n := n + 1;
  end loop;
  return n;
end $function$;

CREATE OR REPLACE FUNCTION private.issue_tokens(p_token uuid, p_user uuid, p_amount bigint)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  held bigint;
  supply bigint;
begin
  select total_supply into supply from public.tokens where id = p_token for no key update;
  select coalesce(sum(amount), 0) into held from public.holdings where token_id = p_token;
  if p_amount <= 0 or held + p_amount > supply then
    raise exception 'Cannot issue % tokens: only % remain unissued.', p_amount, supply - held using errcode = 'P0001';
  end if;
  insert into public.holdings (user_id, token_id, amount) values (p_user, p_token, p_amount)
  on conflict (user_id, token_id) do update set amount = public.holdings.amount + excluded.amount;
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
  select * into tok from public.tokens where id = p_token for no key update;
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

CREATE OR REPLACE FUNCTION private.run_due_stops()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
    if tok.halt_reason is null then n := n + private.trigger_stops(tok, private.fee_bps()); end if;
  end loop;
  return n;
end $function$;

CREATE OR REPLACE FUNCTION private.run_next_plan()
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  p public.invest_plans;
  today date := private.plan_today();
  due date; -- not "period": that is invest_runs' column, named in on conflict below
begin
  select * into p from public.invest_plans
   where not paused and next_run_on <= today
   order by next_run_on, id
   limit 1
   for update skip locked;
  if not found then return false; end if;
  due := private.plan_date_on_or_before(p.frequency, p.run_day, today);
  begin
    perform private.run_plan(p, due);
  exception when others then
    update public.invest_plans set next_run_on = private.plan_date_on_or_after(p.frequency, p.run_day, due + 1) where id = p.id;
    insert into public.invest_runs (plan_id, user_id, period, amount, status, reason)
    values (p.id, p.user_id, due, p.amount, 'skipped', 'The run failed: ' || sqlerrm)
    on conflict (plan_id, period) do nothing;
  end;
  return true;
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
  insert into private.account_mail (user_id, subject, body)
  values (p.user_id,
          case when run.status = 'skipped' then format('Auto-Invest skipped: %s', what)
               else format('Auto-Invest bought %s', what) end,
          case when run.status = 'skipped' then format('Your %s plan for %s did not buy on %s: %s', private.money(p.amount), what, p_period, run.reason)
               else format('Your %s plan for %s spent %s on %s, fees included.', private.money(p.amount), what, private.money(run.spent), p_period)
                    || case when run.status = 'partial' then E'\n\nPart of it did not buy: ' || run.reason else '' end
          end || E'\n\nThe next run is on ' || (select next_run_on::text from public.invest_plans where id = p.id) || ' (UTC).');
  perform pg_notify('repx_mail', '');
  return true;
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
    perform 1 from public.tokens where id = tid for no key update;
    before := (select jsonb_build_object('market_cap', s.market_cap, 'volume_24h', s.volume_24h)
                 from private.token_stats s where s.token_id = tid);
    perform private.refresh_token_stats(tid);
    perform private.tell_market(tid, 'stats', '[]', null, before);
    n := n + 1;
  end loop;
  return n;
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
  select * into owner from public.profiles where id = app.user_id for no key update;
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
  select * into tok from public.tokens where id = p_token for no key update;
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
      perform 1 from public.tokens where id = o.token_id for no key update;
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

CREATE OR REPLACE FUNCTION public.apply_for_token(p_display_name text, p_category text, p_bio text DEFAULT ''::text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.active_caller();
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
  perform 1 from public.tokens where id = any (books) order by id for no key update;
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

CREATE OR REPLACE FUNCTION public.create_invest_plan(p_amount numeric, p_frequency text, p_day integer DEFAULT NULL::integer, p_token uuid DEFAULT NULL::uuid)
 RETURNS public.invest_plans
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  me uuid := private.active_caller();
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

CREATE OR REPLACE FUNCTION public.set_price_alert(p_token uuid, p_kind text, p_value numeric, p_alert bigint DEFAULT NULL::bigint)
 RETURNS public.price_alerts
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.active_caller();
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
