-- founder_vesting: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

-- TODO by hand: table public.holdings: its columns are in another order (PostgreSQL adds a column at the end: write new columns last)
create table public.vesting_grants ();

alter table public.exchange_settings add column "founder_vesting_months" integer default 24 not null;

alter table public.exchange_settings add column "founder_cliff_months" integer default 3 not null;

alter table public.holdings add column "locked" bigint default 0 not null;
-- available now leaves out what is still vesting: the generated column is made again.
alter table public.holdings drop column "available";
alter table public.holdings add column "available" bigint generated always as ((amount - reserved) - locked) stored;

alter table public.vesting_grants add column "token_id" uuid not null;

alter table public.vesting_grants add column "user_id" uuid not null;

alter table public.vesting_grants add column "total" bigint not null;

alter table public.vesting_grants add column "starts_at" timestamp with time zone default now() not null;

alter table public.vesting_grants add column "cliff_months" integer not null;

alter table public.vesting_grants add column "months" integer not null;

CREATE OR REPLACE FUNCTION private.check_order_funds(p_user uuid, p_token uuid, p_token_name text, p_side text, p_type text, p_amount bigint, p_price numeric, p_bps integer)
 RETURNS numeric
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  have numeric;
  vesting bigint;
  budget numeric;
begin
  if p_side = 'sell' then
    select coalesce(max(available), 0), coalesce(max(locked), 0) into have, vesting
      from public.holdings where user_id = p_user and token_id = p_token;
    if have < p_amount then
      raise exception 'You have % % tokens available to sell%; this order needs %.', have, p_token_name,
        case when vesting > 0 then format(' (%s more are still vesting)', vesting) else '' end, p_amount using errcode = 'P0001';
    end if;
    return 0;
  end if;
  select coalesce(max(available), 0) into budget from public.cash_accounts where user_id = p_user;
  if p_type = 'limit' and budget < private.buy_cost(p_price, p_amount, p_bps) then
    raise exception 'Insufficient funds: this order needs % (value + % fee) and you have % available.',
      private.money(private.buy_cost(p_price, p_amount, p_bps)),
      trim_scale(p_bps / 100.0)::text || '%', private.money(budget) using errcode = 'P0001';
  end if;
  return budget;
end $function$;

CREATE OR REPLACE FUNCTION private.release_vesting()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  n integer;
begin
  update public.holdings h set locked = g.total - private.vested(g, now())
    from public.vesting_grants g
   where h.token_id = g.token_id and h.user_id = g.user_id and h.locked > g.total - private.vested(g, now());
  get diagnostics n = row_count;
  return n;
end $function$;

CREATE OR REPLACE FUNCTION private.vested(g public.vesting_grants, p_at timestamp with time zone)
 RETURNS bigint
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select case when g.months = 0 or p_at >= g.starts_at + make_interval(months => g.months) then g.total
              when p_at < g.starts_at + make_interval(months => g.cliff_months) then 0
              else floor(g.total * extract(epoch from p_at - g.starts_at)
                         / extract(epoch from (g.starts_at + make_interval(months => g.months)) - g.starts_at))::bigint end
$function$;

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
  if supply > founder then
    perform private.issue_tokens(tok, private.issuance_account(), supply - founder);
    perform private.rest_order(private.issuance_account(), tok, 'sell', price, supply - founder);
  end if;
  update public.token_applications set status = 'approved', token_id = tok, decided_by = admin, decided_at = now() where id = p_id
  returning * into app;
  insert into public.market_events (token_id, kind) values (tok, 'book');
  perform private.audit('application.approve', app.user_id, 'application ' || p_id, jsonb_build_object('status', 'pending'),
    jsonb_build_object('status', 'approved', 'token_id', tok, 'total_supply', supply, 'issue_price', price, 'founder_allocation', founder));
  return jsonb_build_object('application', to_jsonb(app), 'token_id', tok, 'total_supply', supply, 'issue_price', price,
    'founder_allocation', founder, 'offering', supply - founder);
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
    'founder_vesting_months', 'founder_cliff_months'];
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
     or after.creator_fee_share_bps is null or after.founder_vesting_months is null or after.founder_cliff_months is null then
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

create view public.token_vesting with (security_invoker=true) as
 SELECT token_id,
    user_id,
    total,
    starts_at,
    (starts_at + make_interval(months => cliff_months)) AS cliff_at,
    (starts_at + make_interval(months => months)) AS ends_at,
    private.vested(g.*, now()) AS vested
   FROM vesting_grants g;

alter table public.exchange_settings add constraint "exchange_settings_founder_cliff_months_check" CHECK (((founder_cliff_months >= 0) AND (founder_cliff_months <= 120)));

alter table public.exchange_settings add constraint "exchange_settings_founder_vesting_months_check" CHECK (((founder_vesting_months >= 0) AND (founder_vesting_months <= 120)));

alter table public.holdings add constraint "holdings_check1" CHECK (((reserved + locked) <= amount));

alter table public.holdings add constraint "holdings_locked_check" CHECK ((locked >= 0));

alter table public.vesting_grants add constraint "vesting_grants_check" CHECK ((months >= cliff_months));

alter table public.vesting_grants add constraint "vesting_grants_cliff_months_check" CHECK ((cliff_months >= 0));

alter table public.vesting_grants add constraint "vesting_grants_pkey" PRIMARY KEY (token_id);

alter table public.vesting_grants add constraint "vesting_grants_total_check" CHECK ((total > 0));

alter table public.vesting_grants add constraint "vesting_grants_token_id_fkey" FOREIGN KEY (token_id) REFERENCES tokens(id) ON DELETE CASCADE;

alter table public.vesting_grants add constraint "vesting_grants_user_id_fkey" FOREIGN KEY (user_id) REFERENCES profiles(id) ON DELETE CASCADE;

create policy "vesting schedules are visible to signed-in users" on public.vesting_grants as permissive for select to authenticated
  using (true);

alter table public.vesting_grants enable row level security;

revoke all on routine private.release_vesting() from public;

revoke all on routine private.vested(public.vesting_grants,timestamp with time zone) from public;
grant execute on routine private.vested(public.vesting_grants,timestamp with time zone) to authenticated;

revoke all on table public.vesting_grants from anon;
revoke insert, update, delete, truncate on table public.vesting_grants from authenticated;

revoke all on table public.token_vesting from anon;
revoke insert, update, delete, truncate on table public.token_vesting from authenticated;

comment on column public.holdings.available is 'Tokens the owner may sell now: amount - reserved - locked (generated).';

comment on column public.holdings.locked is 'A founder''s tokens not vested yet (vesting_grants): part of amount, released on the schedule.';
