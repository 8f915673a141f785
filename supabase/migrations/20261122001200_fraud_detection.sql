-- Fraud Detection: rules in SQL over real orders and trades, run on a schedule (the local server
-- every FRAUD_SCAN_MS; on a hosted project, pg_cron: select cron.schedule('fraud-scan', '* * * * *',
-- 'select private.scan_fraud()')) and on demand by an admin. Each alert names its rule, severity,
-- accounts and evidence (the orders and trades), and moves open -> reviewing -> dismissed or
-- confirmed; confirming may suspend the accounts. A pattern that goes on updates its open alert
-- instead of raising another.

-- When an order stopped being open (filled or cancelled): spoofing is about how fast.
alter table public.orders add column closed_at timestamptz;
create or replace function private.stamp_closed() returns trigger
language plpgsql as $$
begin
  if new.status <> 'open' and old.status = 'open' then new.closed_at := now(); end if;
  return new;
end $$;
create trigger orders_closed_at before update of status on public.orders
  for each row execute function private.stamp_closed();

create table public.fraud_alerts (
  id bigint generated always as identity primary key,
  rule text not null check (rule in ('wash_trading', 'ring', 'spoofing', 'cancel_ratio', 'concentration', 'new_account')),
  severity text not null check (severity in ('low', 'medium', 'high')),
  -- The accounts involved, sorted, so one pattern maps to one alert.
  accounts uuid[] not null check (cardinality(accounts) >= 1),
  token_id uuid references public.tokens (id) on delete cascade,
  summary text not null,
  evidence jsonb not null default '{}',
  status text not null default 'open' check (status in ('open', 'reviewing', 'dismissed', 'confirmed')),
  note text,
  reviewed_by uuid references public.profiles (id),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index fraud_alerts_active_idx on public.fraud_alerts (rule, coalesce(token_id, '00000000-0000-0000-0000-000000000000'::uuid), accounts)
  where status in ('open', 'reviewing');
create index fraud_alerts_status_idx on public.fraud_alerts (status, created_at desc);
alter table public.fraud_alerts enable row level security;
create policy "admins read fraud alerts" on public.fraud_alerts for select to authenticated using (private.is_admin());
revoke all on public.fraud_alerts from anon;
revoke insert, update, delete, truncate on public.fraud_alerts from authenticated;

-- Raises or refreshes the active alert of one pattern.
create or replace function private.raise_alert(p_rule text, p_severity text, p_accounts uuid[], p_token uuid, p_summary text, p_evidence jsonb)
returns void language sql security definer set search_path = '' as $$
  insert into public.fraud_alerts (rule, severity, accounts, token_id, summary, evidence)
  values (p_rule, p_severity, array(select distinct a from unnest(p_accounts) a order by a), p_token, p_summary, p_evidence)
  on conflict (rule, coalesce(token_id, '00000000-0000-0000-0000-000000000000'::uuid), accounts) where status in ('open', 'reviewing')
  do update set severity = excluded.severity, summary = excluded.summary, evidence = excluded.evidence, updated_at = now()
$$;

-- Runs every rule over the last `p_window` of orders and trades; returns how many patterns it saw.
-- The thresholds are the rules' own, named here.
create or replace function private.scan_fraud(p_window interval default interval '24 hours')
returns integer language plpgsql security definer set search_path = '' as $$
declare
  wash_min_each_way constant int := 2;      -- trades each way between the same two accounts
  spoof_min_value constant numeric := 1000; -- a 'large' order, in dollars
  spoof_max_life constant interval := interval '10 seconds';
  spoof_min_count constant int := 3;
  ratio_min_cancels constant int := 20;
  ratio_factor constant int := 10;          -- cancels per fill
  share_min constant numeric := 0.5;        -- of a token's bought volume
  share_min_volume constant numeric := 1000;
  share_min_trades constant int := 5;
  young constant interval := interval '24 hours';
  young_min_value constant numeric := 5000;
  since timestamptz := now() - p_window;
  seen integer := 0;
  r record;
begin
  -- Wash trading: two accounts trading one token back and forth.
  for r in
    select t.token_id, least(t.buyer_id, t.seller_id) as a, greatest(t.buyer_id, t.seller_id) as b,
           count(*) filter (where t.buyer_id < t.seller_id) as one_way, count(*) filter (where t.buyer_id > t.seller_id) as other_way,
           array_agg(t.id order by t.id) as trades, sum(t.value) as volume
    from public.trades t where t.created_at > since
    group by 1, 2, 3
    having count(*) filter (where t.buyer_id < t.seller_id) >= wash_min_each_way and count(*) filter (where t.buyer_id > t.seller_id) >= wash_min_each_way
  loop
    perform private.raise_alert('wash_trading', case when r.one_way + r.other_way >= 10 then 'high' else 'medium' end, array[r.a, r.b], r.token_id,
      format('Two accounts traded this token back and forth %s times (%s).', r.one_way + r.other_way, private.money(r.volume)),
      jsonb_build_object('trades', to_jsonb(r.trades), 'each_way', jsonb_build_array(r.one_way, r.other_way)));
    seen := seen + 1;
  end loop;

  -- Rings: tokens passing A -> B -> C -> A.
  for r in
    with edges as (
      select distinct token_id, seller_id as src, buyer_id as dst from public.trades where created_at > since
    )
    select e1.token_id, e1.src as a, e1.dst as b, e2.dst as c
    from edges e1 join edges e2 on e2.token_id = e1.token_id and e2.src = e1.dst
    join edges e3 on e3.token_id = e1.token_id and e3.src = e2.dst and e3.dst = e1.src
    where e1.src < e1.dst and e1.src < e2.dst and e2.dst <> e1.dst
  loop
    perform private.raise_alert('ring', 'high', array[r.a, r.b, r.c], r.token_id,
      'Tokens passed around a ring of three accounts and back.',
      jsonb_build_object('trades', (select jsonb_agg(t.id order by t.id) from public.trades t
        where t.token_id = r.token_id and t.created_at > since
          and (t.seller_id, t.buyer_id) in ((r.a, r.b), (r.b, r.c), (r.c, r.a)))));
    seen := seen + 1;
  end loop;

  -- Spoofing: large orders cancelled within seconds, repeatedly.
  for r in
    select o.user_id, o.token_id, count(*) as n, array_agg(o.id order by o.id) as orders, sum(o.price * o.amount) as value
    from public.orders o
    where o.created_at > since and o.status = 'cancelled' and o.filled = 0 and o.type = 'limit'
      and o.price * o.amount >= spoof_min_value and o.closed_at - o.created_at <= spoof_max_life
    group by o.user_id, o.token_id
    having count(*) >= spoof_min_count
  loop
    perform private.raise_alert('spoofing', case when r.n >= 10 then 'high' else 'medium' end, array[r.user_id], r.token_id,
      format('%s large orders (%s) cancelled within seconds of being placed.', r.n, private.money(r.value)),
      jsonb_build_object('orders', to_jsonb(r.orders)));
    seen := seen + 1;
  end loop;

  -- A high cancel-to-fill ratio.
  for r in
    select o.user_id, count(*) filter (where o.status = 'cancelled' and o.filled = 0) as cancels, count(*) filter (where o.filled > 0) as fills,
           (array_agg(o.id order by o.id desc) filter (where o.status = 'cancelled' and o.filled = 0))[1:50] as orders
    from public.orders o where o.created_at > since
    group by o.user_id
    having count(*) filter (where o.status = 'cancelled' and o.filled = 0) >= ratio_min_cancels
       and count(*) filter (where o.status = 'cancelled' and o.filled = 0) > ratio_factor * count(*) filter (where o.filled > 0)
  loop
    perform private.raise_alert('cancel_ratio', 'low', array[r.user_id], null,
      format('%s orders cancelled for %s filled.', r.cancels, r.fills), jsonb_build_object('orders', to_jsonb(r.orders), 'fills', r.fills));
    seen := seen + 1;
  end loop;

  -- Concentration: one account buying most of a token's volume.
  for r in
    with bought as (
      select t.token_id, t.buyer_id, sum(t.value) as volume, count(*) as n, array_agg(t.id order by t.id) as trades
      from public.trades t where t.created_at > since group by t.token_id, t.buyer_id
    ), total as (select token_id, sum(volume) as volume from bought group by token_id)
    select b.*, b.volume / tt.volume as share from bought b join total tt using (token_id)
    where tt.volume >= share_min_volume and b.n >= share_min_trades and b.volume / tt.volume > share_min
  loop
    perform private.raise_alert('concentration', 'medium', array[r.buyer_id], r.token_id,
      format('One account bought %s%% of this token''s volume (%s).', round(r.share * 100), private.money(r.volume)),
      jsonb_build_object('trades', to_jsonb(r.trades[1:50]), 'share', round(r.share, 4)));
    seen := seen + 1;
  end loop;

  -- A new account trading big.
  for r in
    select p.id, sum(t.value) as value, array_agg(t.id order by t.id) as trades
    from public.profiles p join public.trades t on (t.buyer_id = p.id or t.seller_id = p.id) and t.created_at > since
    where p.created_at > now() - young and p.role = 'user'
      and t.token_id is distinct from (select k.id from public.tokens k where k.owner_id = p.id)
    group by p.id
    having sum(t.value) >= young_min_value
  loop
    perform private.raise_alert('new_account', 'medium', array[r.id], null,
      format('An account under a day old traded %s.', private.money(r.value)), jsonb_build_object('trades', to_jsonb(r.trades[1:50])));
    seen := seen + 1;
  end loop;
  return seen;
end $$;

-- Admin: the alerts, newest first, with the accounts' usernames and the token's name.
create or replace function public.admin_list_alerts(p_status text default null)
returns table (id bigint, rule text, severity text, status text, summary text, accounts jsonb, token_id uuid, token_name text,
               evidence jsonb, note text, created_at timestamptz, updated_at timestamptz)
language plpgsql stable security definer set search_path = '' as $$
begin
  perform private.require_admin();
  return query
    select a.id, a.rule, a.severity, a.status, a.summary,
           (select jsonb_agg(jsonb_build_object('id', p.id, 'username', p.username) order by p.username) from public.profiles p where p.id = any (a.accounts)),
           a.token_id, k.name, a.evidence, a.note, a.created_at, a.updated_at
    from public.fraud_alerts a left join public.tokens k on k.id = a.token_id
    where p_status is null or a.status = p_status
    order by case a.status when 'open' then 0 when 'reviewing' then 1 else 2 end, a.updated_at desc
    limit 500;
end $$;

create or replace function public.admin_run_fraud_scan() returns integer
language plpgsql security definer set search_path = '' as $$
begin
  perform private.require_admin();
  return private.scan_fraud();
end $$;

-- open -> reviewing -> dismissed | confirmed. Confirming may suspend the accounts involved.
create or replace function public.admin_review_alert(p_id bigint, p_status text, p_note text default null, p_suspend boolean default false)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  admin uuid := private.require_admin();
  a public.fraud_alerts;
  acct uuid;
  suspended integer := 0;
begin
  if p_status is null or p_status not in ('reviewing', 'dismissed', 'confirmed') then
    perform private.refuse('An alert moves to reviewing, dismissed or confirmed.');
  end if;
  select * into a from public.fraud_alerts where id = p_id for update;
  if not found then perform private.refuse('There is no such alert.'); end if;
  if a.status in ('dismissed', 'confirmed') then perform private.refuse(format('This alert was already %s.', a.status)); end if;
  if p_status = 'reviewing' and a.status = 'reviewing' then perform private.refuse('This alert is already being reviewed.'); end if;
  if p_suspend and p_status <> 'confirmed' then perform private.refuse('Only a confirmed alert suspends accounts.'); end if;
  update public.fraud_alerts set status = p_status, note = coalesce(nullif(trim(p_note), ''), note), reviewed_by = admin, updated_at = now()
   where id = p_id;
  perform private.audit('alert.' || p_status, case when cardinality(a.accounts) = 1 then a.accounts[1] end, 'alert ' || p_id || ' (' || a.rule || ')',
    jsonb_build_object('status', a.status), jsonb_build_object('status', p_status, 'suspend', p_suspend), nullif(trim(coalesce(p_note, '')), ''));
  if p_suspend then
    foreach acct in array a.accounts loop
      if acct <> admin and exists (select 1 from public.profiles where id = acct and status = 'active' and role = 'user') then
        perform public.admin_set_account_status(acct, 'suspended', format('Confirmed %s alert #%s.', replace(a.rule, '_', ' '), p_id));
        suspended := suspended + 1;
      end if;
    end loop;
  end if;
  return jsonb_build_object('id', p_id, 'status', p_status, 'suspended', suspended);
end $$;

-- The admin dashboard's figures (spec section 2), for an active admin only; Fraud Alerts counts
-- open alerts, and the offering's system account is not a user.
create or replace function public.admin_dashboard_stats() returns jsonb
language plpgsql stable security definer set search_path = '' as $$
begin
  perform private.require_admin();
  return jsonb_build_object(
    'total_users', (select count(*) from public.profiles where role <> 'system'),
    'active_users', (select count(*) from public.profiles where role <> 'system' and status = 'active'),
    'suspended_users', (select count(*) from public.profiles where status = 'suspended'),
    'fraud_alerts', (select count(*) from public.fraud_alerts where status = 'open'),
    'daily_volume', (select coalesce(sum(value), 0) from public.trades where created_at > now() - interval '24 hours'),
    'revenue_24h', (select coalesce(sum(buyer_fee + seller_fee), 0) from public.trades where created_at > now() - interval '24 hours'),
    'trades_24h', (select count(*) from public.trades where created_at > now() - interval '24 hours'),
    'pending_applications', (select count(*) from public.token_applications where status = 'pending')
  );
end $$;

revoke all on function private.raise_alert(text, text, uuid[], uuid, text, jsonb), private.scan_fraud(interval), private.stamp_closed() from public;
revoke execute on function public.admin_dashboard_stats() from public, anon;
grant execute on function public.admin_dashboard_stats() to authenticated;
revoke execute on function public.admin_list_alerts(text), public.admin_run_fraud_scan(), public.admin_review_alert(bigint, text, text, boolean) from public, anon;
grant execute on function public.admin_list_alerts(text), public.admin_run_fraud_scan(), public.admin_review_alert(bigint, text, text, boolean) to authenticated;
