-- auto_invest: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

create table public.invest_plans ();

create table public.invest_runs ();

create table public.invest_run_buys ();

alter table public.exchange_settings add column "auto_invest_min" numeric(14,2) default 10 not null;

alter table public.exchange_settings add column "auto_invest_max" numeric(14,2) default 10000 not null;

alter table public.exchange_settings add column "auto_invest_max_plans" integer default 10 not null;

alter table public.invest_plans add column "id" bigint generated always as identity;

alter table public.invest_plans add column "user_id" uuid not null;

alter table public.invest_plans add column "token_id" uuid;

alter table public.invest_plans add column "amount" numeric(14,2) not null;

alter table public.invest_plans add column "frequency" text not null;

alter table public.invest_plans add column "run_day" smallint;

alter table public.invest_plans add column "paused" boolean default false not null;

alter table public.invest_plans add column "next_run_on" date not null;

alter table public.invest_plans add column "created_at" timestamp with time zone default now() not null;

alter table public.invest_plans add column "updated_at" timestamp with time zone default now() not null;

alter table public.invest_runs add column "id" bigint generated always as identity;

alter table public.invest_runs add column "plan_id" bigint not null;

alter table public.invest_runs add column "user_id" uuid not null;

alter table public.invest_runs add column "period" date not null;

alter table public.invest_runs add column "amount" numeric(14,2) not null;

alter table public.invest_runs add column "status" text not null;

alter table public.invest_runs add column "spent" numeric(14,2) default 0 not null;

alter table public.invest_runs add column "fees" numeric(14,2) default 0 not null;

alter table public.invest_runs add column "reason" text;

alter table public.invest_runs add column "created_at" timestamp with time zone default now() not null;

alter table public.invest_run_buys add column "run_id" bigint not null;

alter table public.invest_run_buys add column "token_id" uuid not null;

alter table public.invest_run_buys add column "budget" numeric(14,2) not null;

alter table public.invest_run_buys add column "order_id" bigint;

alter table public.invest_run_buys add column "tokens" bigint default 0 not null;

alter table public.invest_run_buys add column "value" numeric(14,2) default 0 not null;

alter table public.invest_run_buys add column "fee" numeric(14,2) default 0 not null;

alter table public.invest_run_buys add column "average_price" numeric(12,2);

alter table public.invest_run_buys add column "reason" text;

CREATE OR REPLACE FUNCTION private.check_invest_plan(p_amount numeric, p_frequency text, p_day integer, p_token uuid)
 RETURNS smallint
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  s public.exchange_settings;
begin
  select * into s from public.exchange_settings;
  if p_amount is null or p_amount = 'NaN' or p_amount <= 0 then perform private.refuse('Enter an amount above $0.00.'); end if;
  if p_amount <> round(p_amount, 2) then perform private.refuse('The amount has at most two decimals.'); end if;
  if p_amount < s.auto_invest_min or p_amount > s.auto_invest_max then
    perform private.refuse(format('A plan buys between %s and %s each time.', private.money(s.auto_invest_min), private.money(s.auto_invest_max)));
  end if;
  if p_frequency is null or p_frequency not in ('daily', 'weekly', 'monthly') then
    perform private.refuse('The schedule must be daily, weekly or monthly.');
  end if;
  if p_frequency = 'daily' and p_day is not null then perform private.refuse('A daily plan takes no day.'); end if;
  if p_frequency = 'weekly' and (p_day is null or p_day not between 1 and 7) then
    perform private.refuse('A weekly plan needs a weekday, 1 (Monday) to 7 (Sunday).');
  end if;
  if p_frequency = 'monthly' and (p_day is null or p_day not between 1 and 31) then
    perform private.refuse('A monthly plan needs a date, 1 to 31 (a shorter month runs on its last day).');
  end if;
  if p_token is not null and not exists (select 1 from public.tokens where id = p_token) then
    perform private.refuse('There is no such token.');
  end if;
  return p_day::smallint;
end $function$;

CREATE OR REPLACE FUNCTION private.invest_buy(p_user uuid, p_token uuid, p_budget numeric)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  tok public.tokens := private.lock_book(p_token, 1);
  settings public.exchange_settings := private.check_order_request(p_user, 'buy', 'market', 1, null);
  best numeric;
  n bigint;
  result jsonb;
begin
  select min(o.price) into best from public.orders o
   where o.token_id = p_token and o.side = 'sell' and o.status = 'open' and o.user_id <> p_user;
  if best is null then
    raise exception 'There are no sell orders for % right now.', tok.name using errcode = 'P0001';
  end if;
  -- The most the budget pays for at the best price; the engine stops earlier if the book is thinner.
  n := floor(p_budget / (best * (1 + settings.fee_bps / 10000.0)));
  if n < greatest(settings.min_order_amount, 1) then
    raise exception '% buys no % % token at % with the % fee.', private.money(p_budget),
      case when settings.min_order_amount > 1 then settings.min_order_amount::text else 'whole' end, tok.name,
      private.money(best), trim_scale(settings.fee_bps / 100.0)::text || '%' using errcode = 'P0001';
  end if;
  result := private.execute_order(p_user, tok, null, 'buy', 'market', n, null, 'gtc', null, false, settings.fee_bps, p_budget);
  if (result->>'value')::numeric > 0 and exists (select 1 from public.orders o where o.token_id = p_token and o.status = 'pending') then
    perform private.trigger_stops(tok, settings.fee_bps);
  end if;
  return result;
end $function$;

CREATE OR REPLACE FUNCTION private.month_date(m date, p_day integer)
 RETURNS date
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  select least(m + (p_day - 1), (m + interval '1 month' - interval '1 day')::date)
$function$;

CREATE OR REPLACE FUNCTION private.plan_date_on_or_after(p_frequency text, p_day integer, d date)
 RETURNS date
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO ''
AS $function$
declare
  m date := date_trunc('month', d)::date;
begin
  if p_frequency = 'daily' then return d; end if;
  if p_frequency = 'weekly' then return d + ((p_day - extract(isodow from d)::integer + 7) % 7); end if;
  -- monthly: this month's date (its last day if shorter), else next month's.
  if private.month_date(m, p_day) >= d then return private.month_date(m, p_day); end if;
  return private.month_date((m + interval '1 month')::date, p_day);
end $function$;

CREATE OR REPLACE FUNCTION private.plan_date_on_or_before(p_frequency text, p_day integer, d date)
 RETURNS date
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO ''
AS $function$
declare
  m date := date_trunc('month', d)::date;
begin
  if p_frequency = 'daily' then return d; end if;
  if p_frequency = 'weekly' then return d - ((extract(isodow from d)::integer - p_day + 7) % 7); end if;
  if private.month_date(m, p_day) <= d then return private.month_date(m, p_day); end if;
  return private.month_date((m - interval '1 month')::date, p_day);
end $function$;

CREATE OR REPLACE FUNCTION private.plan_today()
 RETURNS date
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$ select (now() at time zone 'UTC')::date $function$;

CREATE OR REPLACE FUNCTION private.run_next_plan()
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  p public.invest_plans;
  today date := private.plan_today();
  period date;
begin
  select * into p from public.invest_plans
   where not paused and next_run_on <= today
   order by next_run_on, id
   limit 1
   for update skip locked;
  if not found then return false; end if;
  period := private.plan_date_on_or_before(p.frequency, p.run_day, today);
  begin
    perform private.run_plan(p, period);
  exception when others then
    update public.invest_plans set next_run_on = private.plan_date_on_or_after(p.frequency, p.run_day, period + 1) where id = p.id;
    insert into public.invest_runs (plan_id, user_id, period, amount, status, reason)
    values (p.id, p.user_id, period, p.amount, 'skipped', 'The run failed: ' || sqlerrm)
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
      select b.token_id, floor(p.amount * b.weight * 100) / 100 from public.index_basket b where p.token_id is null
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
    'new_bank_account_hold_hours', 'market_band_bps', 'auto_invest_min', 'auto_invest_max', 'auto_invest_max_plans'];
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
     or after.auto_invest_min is null or after.auto_invest_max is null or after.auto_invest_max_plans is null then
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
  begin
    update public.exchange_settings set
      fee_bps = after.fee_bps, min_order_amount = after.min_order_amount, max_price = after.max_price, max_open_orders = after.max_open_orders,
      trading_halted = after.trading_halted, halt_reason = nullif(trim(after.halt_reason), ''),
      deposit_min = after.deposit_min, deposit_max = after.deposit_max, withdrawal_min = after.withdrawal_min,
      withdrawal_daily_limit = after.withdrawal_daily_limit, token_supply = after.token_supply,
      token_founder_bps = after.token_founder_bps, token_issue_price = after.token_issue_price,
      new_bank_account_hold_hours = after.new_bank_account_hold_hours, market_band_bps = after.market_band_bps,
      auto_invest_min = after.auto_invest_min, auto_invest_max = after.auto_invest_max,
      auto_invest_max_plans = after.auto_invest_max_plans, updated_at = now()
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
  perform 1 from public.profiles where id = me for update;
  if (select count(*) from public.invest_plans where user_id = me) >= most then
    perform private.refuse(format('You have %s plans, the most allowed. Delete one before adding another.', most));
  end if;
  insert into public.invest_plans (user_id, token_id, amount, frequency, run_day, next_run_on)
  values (me, p_token, p_amount, p_frequency, day, private.plan_date_on_or_after(p_frequency, day, private.plan_today()))
  returning * into plan;
  return plan;
end $function$;

CREATE OR REPLACE FUNCTION public.delete_invest_plan(p_plan bigint)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  delete from public.invest_plans where id = p_plan and user_id = private.active_caller();
  if not found then perform private.refuse(format('You have no plan #%s.', p_plan)); end if;
end $function$;

CREATE OR REPLACE FUNCTION public.set_invest_plan_paused(p_plan bigint, p_paused boolean)
 RETURNS public.invest_plans
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  me uuid := private.active_caller();
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

CREATE OR REPLACE FUNCTION public.update_invest_plan(p_plan bigint, p_amount numeric, p_frequency text, p_day integer DEFAULT NULL::integer, p_token uuid DEFAULT NULL::uuid)
 RETURNS public.invest_plans
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  me uuid := private.active_caller();
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

create view public.my_invest_plans with (security_invoker=true) as
 SELECT p.id,
    p.token_id,
    t.name AS token_name,
    t.username AS token_username,
    p.amount,
    p.frequency,
    p.run_day,
    p.paused,
    p.next_run_on,
    p.created_at,
    r.period AS last_period,
    r.status AS last_status,
    r.spent AS last_spent,
    r.reason AS last_reason
   FROM ((invest_plans p
     LEFT JOIN tokens t ON ((t.id = p.token_id)))
     LEFT JOIN LATERAL ( SELECT x.period,
            x.status,
            x.spent,
            x.reason
           FROM invest_runs x
          WHERE (x.plan_id = p.id)
          ORDER BY x.period DESC
         LIMIT 1) r ON (true))
  WHERE (p.user_id = auth.uid());

create view public.my_invest_runs with (security_invoker=true) as
 SELECT r.id AS run_id,
    r.plan_id,
    r.period,
    r.amount,
    r.status,
    r.spent,
    r.fees,
    r.reason AS run_reason,
    r.created_at,
    b.token_id,
    t.name AS token_name,
    b.budget,
    b.order_id,
    b.tokens,
    b.value,
    b.fee,
    b.average_price,
    b.reason
   FROM ((invest_runs r
     LEFT JOIN invest_run_buys b ON ((b.run_id = r.id)))
     LEFT JOIN tokens t ON ((t.id = b.token_id)))
  WHERE (r.user_id = auth.uid());

alter table public.exchange_settings add constraint "exchange_settings_auto_invest_max_plans_check" CHECK (((auto_invest_max_plans >= 1) AND (auto_invest_max_plans <= 100)));

alter table public.exchange_settings add constraint "exchange_settings_auto_invest_min_check" CHECK ((auto_invest_min > (0)::numeric));

alter table public.exchange_settings add constraint "exchange_settings_check2" CHECK ((auto_invest_max >= auto_invest_min));

alter table public.invest_plans add constraint "invest_plans_amount_check" CHECK ((amount > (0)::numeric));

alter table public.invest_plans add constraint "invest_plans_check" CHECK (
CASE frequency
    WHEN 'daily'::text THEN (run_day IS NULL)
    WHEN 'weekly'::text THEN ((run_day >= 1) AND (run_day <= 7))
    ELSE ((run_day >= 1) AND (run_day <= 31))
END);

alter table public.invest_plans add constraint "invest_plans_frequency_check" CHECK ((frequency = ANY (ARRAY['daily'::text, 'weekly'::text, 'monthly'::text])));

alter table public.invest_plans add constraint "invest_plans_pkey" PRIMARY KEY (id);

alter table public.invest_run_buys add constraint "invest_run_buys_pkey" PRIMARY KEY (run_id, token_id);

alter table public.invest_runs add constraint "invest_runs_pkey" PRIMARY KEY (id);

alter table public.invest_runs add constraint "invest_runs_plan_id_period_key" UNIQUE (plan_id, period);

alter table public.invest_runs add constraint "invest_runs_status_check" CHECK ((status = ANY (ARRAY['running'::text, 'bought'::text, 'partial'::text, 'skipped'::text])));

alter table public.invest_plans add constraint "invest_plans_token_id_fkey" FOREIGN KEY (token_id) REFERENCES tokens(id) ON DELETE CASCADE;

alter table public.invest_plans add constraint "invest_plans_user_id_fkey" FOREIGN KEY (user_id) REFERENCES profiles(id) ON DELETE CASCADE;

alter table public.invest_run_buys add constraint "invest_run_buys_order_id_fkey" FOREIGN KEY (order_id) REFERENCES orders(id) ON DELETE SET NULL;

alter table public.invest_run_buys add constraint "invest_run_buys_run_id_fkey" FOREIGN KEY (run_id) REFERENCES invest_runs(id) ON DELETE CASCADE;

alter table public.invest_run_buys add constraint "invest_run_buys_token_id_fkey" FOREIGN KEY (token_id) REFERENCES tokens(id) ON DELETE CASCADE;

alter table public.invest_runs add constraint "invest_runs_plan_id_fkey" FOREIGN KEY (plan_id) REFERENCES invest_plans(id) ON DELETE CASCADE;

alter table public.invest_runs add constraint "invest_runs_user_id_fkey" FOREIGN KEY (user_id) REFERENCES profiles(id) ON DELETE CASCADE;

CREATE INDEX invest_plans_due_idx ON public.invest_plans USING btree (next_run_on) WHERE (NOT paused);

CREATE INDEX invest_plans_user_idx ON public.invest_plans USING btree (user_id, created_at);

CREATE INDEX invest_runs_user_idx ON public.invest_runs USING btree (user_id, created_at DESC);

CREATE TRIGGER invest_runs_notify AFTER INSERT OR UPDATE ON public.invest_runs FOR EACH ROW WHEN ((new.status <> 'running'::text)) EXECUTE FUNCTION private.notify_realtime();

create policy "own plans" on public.invest_plans as permissive for select to authenticated
  using (((user_id = ( SELECT auth.uid() AS uid)) OR ( SELECT private.is_admin() AS is_admin)));

create policy "own run buys" on public.invest_run_buys as permissive for select to authenticated
  using ((EXISTS ( SELECT 1
   FROM invest_runs r
  WHERE ((r.id = invest_run_buys.run_id) AND ((r.user_id = ( SELECT auth.uid() AS uid)) OR ( SELECT private.is_admin() AS is_admin))))));

create policy "own runs" on public.invest_runs as permissive for select to authenticated
  using (((user_id = ( SELECT auth.uid() AS uid)) OR ( SELECT private.is_admin() AS is_admin)));

alter table public.invest_plans enable row level security;

alter table public.invest_run_buys enable row level security;

alter table public.invest_runs enable row level security;

revoke all on routine private.check_invest_plan(numeric,text,integer,uuid) from public;

revoke all on routine private.invest_buy(uuid,uuid,numeric) from public;

revoke all on routine private.month_date(date,integer) from public;

revoke all on routine private.plan_date_on_or_after(text,integer,date) from public;

revoke all on routine private.plan_date_on_or_before(text,integer,date) from public;

revoke all on routine private.plan_today() from public;

revoke all on routine private.run_next_plan() from public;

revoke all on routine private.run_plan(public.invest_plans,date) from public;

revoke all on routine public.create_invest_plan(numeric,text,integer,uuid) from anon;
revoke all on routine public.create_invest_plan(numeric,text,integer,uuid) from public;

revoke all on routine public.delete_invest_plan(bigint) from anon;
revoke all on routine public.delete_invest_plan(bigint) from public;

revoke all on routine public.set_invest_plan_paused(bigint,boolean) from anon;
revoke all on routine public.set_invest_plan_paused(bigint,boolean) from public;

revoke all on routine public.update_invest_plan(bigint,numeric,text,integer,uuid) from anon;
revoke all on routine public.update_invest_plan(bigint,numeric,text,integer,uuid) from public;

revoke all on table public.invest_plans from anon;
revoke insert, update, delete, truncate on table public.invest_plans from authenticated;

revoke all on table public.invest_run_buys from anon;
revoke insert, update, delete, truncate on table public.invest_run_buys from authenticated;

revoke all on table public.invest_runs from anon;
revoke insert, update, delete, truncate on table public.invest_runs from authenticated;

revoke all on table public.my_invest_plans from anon;
revoke insert, update, delete, truncate on table public.my_invest_plans from authenticated;

revoke all on table public.my_invest_runs from anon;
revoke insert, update, delete, truncate on table public.my_invest_runs from authenticated;

-- A hosted project's Realtime publishes the runs (realtime.sql).
select private.publish_realtime('public.invest_runs');
