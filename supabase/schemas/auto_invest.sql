-- Auto-Invest: recurring buys. A plan buys a dollar amount of one token, or of the RepX index's
-- basket split by its weights, every day, every week on a weekday, or every month on a date.
--
-- The server runs plans, never the browser: the local server's scheduler calls
-- private.run_next_plan every few seconds until no plan is due, each call its own transaction (a
-- run holds its books' locks only while it buys); on a hosted project pg_cron drains the same
-- function (private.drain, supabase/cron.sql).
-- Each period (a plan's scheduled date, UTC) runs at most once: a run's row is keyed by plan and
-- period and written in the transaction of its buys, so a crash undoes both and two server
-- processes cannot both write it. A period the server missed entirely (it was down all day) is not
-- bought later at other prices: the next run is the latest scheduled date.
--
-- A run buys as its owner, at market within the band, through the engine and its fees, as anyone's
-- market buy does. Tokens are whole: a run buys as many as its amount pays for, fee included, and
-- the rest stays in cash; an index plan's amount is split in whole tokens (private.index_split).
-- A run that cannot buy (not enough cash, a halted token, an empty book) is recorded as skipped
-- with the engine's reason, mailed, and the next period runs as usual.

create table public.invest_plans (
  id bigint generated always as identity primary key,
  user_id uuid not null references public.profiles (id) on delete cascade,
  -- The token bought; null buys the RepX index's basket.
  token_id uuid references public.tokens (id) on delete cascade,
  amount numeric(14, 2) not null check (amount > 0),
  frequency text not null check (frequency in ('daily', 'weekly', 'monthly')),
  -- weekly: the ISO weekday (1 Monday .. 7 Sunday); monthly: the date (a month shorter than it runs
  -- on its last day); daily: none.
  run_day smallint,
  paused boolean not null default false,
  -- The next scheduled date not yet run (UTC); the scheduler's due plans are those on or before today.
  next_run_on date not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (case frequency when 'daily' then run_day is null
                        when 'weekly' then run_day between 1 and 7
                        else run_day between 1 and 31 end)
);
create index invest_plans_due_idx on public.invest_plans (next_run_on) where not paused;
create index invest_plans_user_idx on public.invest_plans (user_id, created_at);
alter table public.invest_plans enable row level security;
create policy "own plans" on public.invest_plans
  for select to authenticated using (user_id = (select auth.uid()) or (select private.is_admin()));
revoke all on public.invest_plans from anon;
revoke insert, update, delete, truncate on public.invest_plans from authenticated;

-- One row per plan and period: what the run bought, or why it bought nothing.
create table public.invest_runs (
  id bigint generated always as identity primary key,
  plan_id bigint not null references public.invest_plans (id) on delete cascade,
  user_id uuid not null references public.profiles (id) on delete cascade,
  period date not null,
  amount numeric(14, 2) not null,
  -- bought: every target bought; partial: some did; skipped: none did (reason says why). running
  -- only inside the run's transaction: no one else ever reads it.
  status text not null check (status in ('running', 'bought', 'partial', 'skipped')),
  spent numeric(14, 2) not null default 0,
  fees numeric(14, 2) not null default 0,
  reason text,
  created_at timestamptz not null default now(),
  unique (plan_id, period)
);
create index invest_runs_user_idx on public.invest_runs (user_id, created_at desc);
alter table public.invest_runs enable row level security;
create policy "own runs" on public.invest_runs
  for select to authenticated using (user_id = (select auth.uid()) or (select private.is_admin()));
revoke all on public.invest_runs from anon;
revoke insert, update, delete, truncate on public.invest_runs from authenticated;

-- A run's buy in one token: its order and what it filled, or the reason it bought nothing.
create table public.invest_run_buys (
  run_id bigint not null references public.invest_runs (id) on delete cascade,
  token_id uuid not null references public.tokens (id) on delete cascade,
  budget numeric(14, 2) not null,
  order_id bigint references public.orders (id) on delete set null,
  tokens bigint not null default 0,
  value numeric(14, 2) not null default 0,
  fee numeric(14, 2) not null default 0,
  average_price numeric(12, 2),
  reason text,
  primary key (run_id, token_id)
);
alter table public.invest_run_buys enable row level security;
create policy "own run buys" on public.invest_run_buys
  for select to authenticated using (exists (
    select 1 from public.invest_runs r where r.id = run_id
      and (r.user_id = (select auth.uid()) or (select private.is_admin()))));
revoke all on public.invest_run_buys from anon;
revoke insert, update, delete, truncate on public.invest_run_buys from authenticated;

-- The first scheduled date on or after d.
create function private.plan_date_on_or_after(p_frequency text, p_day integer, d date) returns date
language plpgsql immutable set search_path = '' as $$
declare
  m date := date_trunc('month', d)::date;
begin
  if p_frequency = 'daily' then return d; end if;
  if p_frequency = 'weekly' then return d + ((p_day - extract(isodow from d)::integer + 7) % 7); end if;
  -- monthly: this month's date (its last day if shorter), else next month's.
  if private.month_date(m, p_day) >= d then return private.month_date(m, p_day); end if;
  return private.month_date((m + interval '1 month')::date, p_day);
end $$;
revoke execute on function private.plan_date_on_or_after(text, integer, date) from public;

-- The last scheduled date on or before d.
create function private.plan_date_on_or_before(p_frequency text, p_day integer, d date) returns date
language plpgsql immutable set search_path = '' as $$
declare
  m date := date_trunc('month', d)::date;
begin
  if p_frequency = 'daily' then return d; end if;
  if p_frequency = 'weekly' then return d - ((extract(isodow from d)::integer - p_day + 7) % 7); end if;
  if private.month_date(m, p_day) <= d then return private.month_date(m, p_day); end if;
  return private.month_date((m - interval '1 month')::date, p_day);
end $$;
revoke execute on function private.plan_date_on_or_before(text, integer, date) from public;

-- The p_day-th of the month starting m, or the month's last day if it has fewer.
create function private.month_date(m date, p_day integer) returns date
language sql immutable set search_path = '' as $$
  select least(m + (p_day - 1), (m + interval '1 month' - interval '1 day')::date)
$$;
revoke execute on function private.month_date(date, integer) from public;

-- Today on the plans' calendar.
create function private.plan_today() returns date
language sql stable set search_path = '' as $$ select (now() at time zone 'UTC')::date $$;
revoke execute on function private.plan_today() from public;

-- A plan's terms, said in words when refused: the amount within the admin's limits, the schedule,
-- a tradable token. Returns the run day as stored.
create function private.check_invest_plan(p_amount numeric, p_frequency text, p_day integer, p_token uuid)
returns smallint language plpgsql stable security definer set search_path = '' as $$
declare
  s public.exchange_settings;
begin
  select * into s from public.exchange_settings;
  if p_amount is null or p_amount = 'NaN' or p_amount <= 0 then
    perform private.refuse(format('Enter an amount of at least %s.', private.money(s.auto_invest_min)));
  end if;
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
end $$;
revoke execute on function private.check_invest_plan(numeric, text, integer, uuid) from public;

-- A new plan: p_token null buys the RepX index's basket. Its first run is its first scheduled date
-- from today: a daily plan runs today.
create function public.create_invest_plan(p_amount numeric, p_frequency text, p_day integer default null, p_token uuid default null)
returns public.invest_plans language plpgsql security definer set search_path = '' as $$
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
end $$;
revoke execute on function public.create_invest_plan(numeric, text, integer, uuid) from public, anon;

-- Changes a plan's terms; its next run is its new schedule's first date from today (a period
-- already run is not run again: runs are keyed by plan and date).
create function public.update_invest_plan(p_plan bigint, p_amount numeric, p_frequency text, p_day integer default null, p_token uuid default null)
returns public.invest_plans language plpgsql security definer set search_path = '' as $$
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
end $$;
revoke execute on function public.update_invest_plan(bigint, numeric, text, integer, uuid) from public, anon;

-- Pauses or resumes a plan. A resumed plan runs at its next scheduled date from today.
create function public.set_invest_plan_paused(p_plan bigint, p_paused boolean)
returns public.invest_plans language plpgsql security definer set search_path = '' as $$
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
end $$;
revoke execute on function public.set_invest_plan_paused(bigint, boolean) from public, anon;

-- Deletes a plan and its history (its orders and trades stay in the person's records).
create function public.delete_invest_plan(p_plan bigint) returns void
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.person_caller('change an Auto-Invest plan');
begin
  delete from public.invest_plans where id = p_plan and user_id = uid;
  if not found then perform private.refuse(format('You have no plan #%s.', p_plan)); end if;
end $$;
revoke execute on function public.delete_invest_plan(bigint) from public, anon;

-- Buys up to p_budget of a token at market for p_user, as place_order would for them: the same
-- checks, the band, the fees, and waiting stops its trade reaches. Raises, in the engine's words,
-- when it cannot buy one token.
create function private.invest_buy(p_user uuid, p_token uuid, p_budget numeric) returns jsonb
language plpgsql security definer set search_path = '' as $$
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
end $$;
revoke execute on function private.invest_buy(uuid, uuid, numeric) from public;

-- How an index plan's amount is spent in whole tokens: each member's share of it (by the index's
-- weights) in whole tokens at its best ask with the fee, then what is left, one token at a time, to
-- the member furthest below its share that it still pays for. Each token's cost is rounded up to
-- the cent, so the budgets never add up to more than the amount. A member with no seller keeps its
-- share, so the run says why it bought none; a member the amount buys no token of is left out.
create function private.index_split(p_user uuid, p_amount numeric)
returns table (token_id uuid, budget numeric)
language plpgsql stable security definer set search_path = '' as $$
declare
  bps integer := private.fee_bps();
  ids uuid[];
  shares numeric[];
  costs numeric[];
  counts integer[];
  left_over numeric := p_amount;
  pick integer;
  gap numeric;
begin
  select array_agg(b.token_id order by b.token_id), array_agg(p_amount * b.weight order by b.token_id),
         array_agg(ceil((select min(o.price) from public.orders o
                          where o.token_id = b.token_id and o.side = 'sell' and o.status = 'open' and o.user_id <> p_user)
                        * (1 + bps / 10000.0) * 100) / 100 order by b.token_id)
    into ids, shares, costs
    from public.index_basket b;
  if ids is null then return; end if;
  counts := array_fill(0, array[cardinality(ids)]);
  for i in 1 .. cardinality(ids) loop
    if costs[i] is not null then
      counts[i] := floor(shares[i] / costs[i]);
      left_over := left_over - counts[i] * costs[i];
    end if;
  end loop;
  loop
    pick := null;
    for i in 1 .. cardinality(ids) loop
      if costs[i] is not null and costs[i] <= left_over and (pick is null or shares[i] - counts[i] * costs[i] > gap) then
        pick := i;
        gap := shares[i] - counts[i] * costs[i];
      end if;
    end loop;
    exit when pick is null;
    counts[pick] := counts[pick] + 1;
    left_over := left_over - costs[pick];
  end loop;
  for i in 1 .. cardinality(ids) loop
    token_id := ids[i];
    if costs[i] is null then
      budget := floor(shares[i] * 100) / 100;
      return next;
    elsif counts[i] > 0 then
      budget := counts[i] * costs[i];
      return next;
    end if;
  end loop;
end $$;
revoke execute on function private.index_split(uuid, numeric) from public;

-- What a run of a plan of `p_amount` would buy now, for the plan form: for one token, the whole
-- tokens the amount covers at the book's prices; for the index, the amount split as a run splits it
-- (private.index_split), each member's share walked on its book. The engine's own walk
-- (private.walk_book), nothing written. Returns the items [{token_id, name, tokens, cost}], what
-- they cost with the fees, what stays cash, the basket's size and how many of it are bought, and
-- for the index the amount at which each member's share buys at least one token (basket_min).
create function public.preview_invest_plan(p_amount numeric, p_token uuid default null) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  uid uuid := private.active_caller();
  bps integer := private.fee_bps();
  items jsonb := '[]';
  spent numeric := 0;
  target record;
  walk record;
  cost numeric;
  members integer := 1;
  need numeric;
begin
  if p_amount is null or p_amount = 'NaN' or p_amount <= 0 or p_amount <> round(p_amount, 2) then
    perform private.refuse('Enter the amount each run buys, in dollars and cents.');
  end if;
  for target in
    select t.id, t.name, t.total_supply, split.budget
      from (select p_token as token_id, p_amount as budget where p_token is not null
            union all select x.token_id, x.budget from private.index_split(uid, p_amount) x where p_token is null) split
      join public.tokens t on t.id = split.token_id
     order by t.name
  loop
    walk := private.walk_book(uid, target.id, 'buy', private.band_edge(private.last_price(target.id), 'buy'),
                              target.total_supply, target.budget, bps);
    if walk.filled > 0 then
      cost := walk.spent + private.fee(walk.spent, bps);
      spent := spent + cost;
      items := items || jsonb_build_object('token_id', target.id, 'name', target.name, 'tokens', walk.filled, 'cost', cost);
    end if;
  end loop;
  if p_token is null then
    select count(*), ceil(max(ceil(s.ask * (1 + bps / 10000.0) * 100) / 100 / b.weight))
      into members, need
      from public.index_basket b
      cross join lateral (select min(o.price) as ask from public.orders o
                           where o.token_id = b.token_id and o.side = 'sell' and o.status = 'open' and o.user_id <> uid) s
     where b.weight > 0;
  end if;
  return jsonb_build_object('items', items, 'spent', spent, 'left', p_amount - spent, 'members', members,
                            'bought', jsonb_array_length(items), 'basket_min', need);
end $$;
revoke execute on function public.preview_invest_plan(numeric, uuid) from public, anon;

-- Runs one plan's period: its buys, its record and its mail, in the caller's transaction. Returns
-- false if the period had run already (another process got there first).
create function private.run_plan(p public.invest_plans, p_period date) returns boolean
language plpgsql security definer set search_path = '' as $$
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
end $$;
revoke execute on function private.run_plan(public.invest_plans, date) from public;

-- Runs one due plan, if any, in the caller's transaction: the oldest due, locked so that another
-- process takes the next one. An unexpected failure is recorded as a skipped run rather than left
-- due for ever.
create function private.run_next_plan() returns boolean
language plpgsql security definer set search_path = '' as $$
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
end $$;
revoke execute on function private.run_next_plan() from public;


-- The caller's plans, with what each buys and its last run.
create view public.my_invest_plans with (security_invoker = true) as
select p.id, p.token_id, t.name as token_name, t.username as token_username, p.amount, p.frequency, p.run_day,
       p.paused, p.next_run_on, p.created_at,
       r.period as last_period, r.status as last_status, r.spent as last_spent, r.reason as last_reason
from public.invest_plans p
left join public.tokens t on t.id = p.token_id
left join lateral (select x.period, x.status, x.spent, x.reason from public.invest_runs x
                    where x.plan_id = p.id order by x.period desc limit 1) r on true
where p.user_id = auth.uid();
revoke all on public.my_invest_plans from anon;
revoke insert, update, delete, truncate on public.my_invest_plans from authenticated;

-- The caller's runs, one row per token bought or tried.
create view public.my_invest_runs with (security_invoker = true) as
select r.id as run_id, r.plan_id, r.period, r.amount, r.status, r.spent, r.fees, r.reason as run_reason, r.created_at,
       b.token_id, t.name as token_name, b.budget, b.order_id, b.tokens, b.value, b.fee, b.average_price, b.reason
from public.invest_runs r
left join public.invest_run_buys b on b.run_id = r.id
left join public.tokens t on t.id = b.token_id
where r.user_id = auth.uid();
revoke all on public.my_invest_runs from anon;
revoke insert, update, delete, truncate on public.my_invest_runs from authenticated;
