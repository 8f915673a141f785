-- Admin and audit: what an admin does, each act checked in the database (private.require_admin)
-- and written to an append-only audit log.
--
-- The admin acts on accounts: suspend (with a reason) and reinstate, verify and unverify, sign
-- out, remove a lost authenticator app. Suspension takes effect at once: the account's open orders
-- are cancelled (reservations released), every session ends (its refresh tokens go with it, and
-- the server refuses access tokens whose session is gone), and the sign-in ban is set by the
-- profile's trigger (accounts.sql).
--
-- The rule for where an admin_* function lives: with the data it changes. This file holds the acts
-- on accounts, the exchange's settings and the admin's reports; a token's application is decided in
-- tokens.sql, its halt in order_changes.sql and its unsold offering in offerings.sql, and fraud
-- alerts in fraud.sql. Each calls private.require_admin (accounts.sql) and private.audit (here).

-- The audit log: append-only for everyone, admins included (no grant, and a trigger for the owner).
create table public.audit_log (
  id bigint generated always as identity primary key,
  actor_id uuid references public.profiles (id),
  action text not null,
  target_user uuid references public.profiles (id),
  target text,
  before jsonb,
  after jsonb,
  reason text,
  created_at timestamptz not null default now()
);
create index audit_log_time_idx on public.audit_log (created_at desc);
create index audit_log_target_idx on public.audit_log (target_user, created_at desc);
alter table public.audit_log enable row level security;
create policy "admins read the audit log" on public.audit_log for select to authenticated using ((select private.is_admin()));
revoke all on public.audit_log from anon;
revoke insert, update, delete, truncate on public.audit_log from authenticated;
-- Not even the service role writes it: only the functions that act (private.audit) do.
revoke insert, update, delete, truncate on public.audit_log from service_role;
create function private.forbid_audit_change() returns trigger
language plpgsql as $$ begin raise exception 'The audit log is append-only.' using errcode = '42501'; end $$;
revoke execute on function private.forbid_audit_change() from public;
create trigger audit_log_append_only before update or delete on public.audit_log
  for each row execute function private.forbid_audit_change();
create trigger audit_log_no_truncate before truncate on public.audit_log
  for each statement execute function private.forbid_audit_change();

create function private.audit(p_action text, p_target_user uuid, p_target text, p_before jsonb, p_after jsonb, p_reason text default null)
returns void language sql security definer set search_path = '' as $$
  insert into public.audit_log (actor_id, action, target_user, target, before, after, reason)
  values (auth.uid(), p_action, p_target_user, p_target, p_before, p_after, p_reason)
$$;
revoke execute on function private.audit(text, uuid, text, jsonb, jsonb, text) from public;

-- The audit log for the admin's view, newest first, optionally of one account or one action.
create function public.admin_audit_log(p_target uuid default null, p_action text default null, p_limit integer default 200)
returns table (id bigint, created_at timestamptz, actor text, action text, target_user uuid, target_username text, target text,
               before jsonb, after jsonb, reason text)
language plpgsql stable security definer set search_path = '' as $$
begin
  perform private.require_admin();
  return query
    select l.id, l.created_at, a.username, l.action, l.target_user, t.username, l.target, l.before, l.after, l.reason
    from public.audit_log l left join public.profiles a on a.id = l.actor_id left join public.profiles t on t.id = l.target_user
    where (p_target is null or l.target_user = p_target) and (p_action is null or l.action = p_action)
    order by l.created_at desc, l.id desc
    limit least(greatest(p_limit, 1), 1000);
end $$;
revoke execute on function public.admin_audit_log(uuid, text, integer) from public, anon;

-- The account an admin may act on: not their own, not the system's. Locked against another
-- admin's action, but not against the key share a new order's or bid's reference takes.
create function private.managed_account(p_user uuid) returns public.profiles
language plpgsql security definer set search_path = '' as $$
declare
  target public.profiles;
begin
  select * into target from public.profiles where id = p_user for no key update;
  if not found or target.role = 'system' then perform private.refuse('There is no such account.'); end if;
  if p_user = auth.uid() then perform private.refuse('Admins cannot act on their own account.'); end if;
  return target;
end $$;
revoke execute on function private.managed_account(uuid) from public;

create function public.admin_set_account_status(p_user uuid, p_status text, p_reason text default null)
returns jsonb language plpgsql security definer set search_path = '' as $$
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
  if p_status = 'suspended' then
    perform private.require_reason(p_reason, 'Give a reason of 3 to 500 characters for the suspension.');
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
end $$;
revoke execute on function public.admin_set_account_status(uuid, text, text) from public, anon;

create function public.admin_set_verified(p_user uuid, p_verified boolean)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  admin uuid := private.require_admin();
  target public.profiles;
begin
  if p_verified is null then perform private.refuse('Say whether the account is verified.'); end if;
  target := private.managed_account(p_user);
  update public.profiles set verified = p_verified where id = p_user;
  update public.tokens set verified = p_verified where owner_id = p_user;
  perform private.audit(case when p_verified then 'account.verify' else 'account.unverify' end, p_user, target.username,
    jsonb_build_object('verified', target.verified), jsonb_build_object('verified', p_verified));
  return jsonb_build_object('verified', p_verified);
end $$;
revoke execute on function public.admin_set_verified(uuid, boolean) from public, anon;

create function public.admin_end_sessions(p_user uuid, p_reason text) returns integer
language plpgsql security definer set search_path = '' as $$
declare
  admin uuid := private.require_admin();
  target public.profiles;
  ended integer;
begin
  perform private.require_reason(p_reason, 'Give a reason of 3 to 500 characters for signing the account out.');
  target := private.managed_account(p_user);
  delete from auth.sessions where user_id = p_user;
  get diagnostics ended = row_count;
  perform private.audit('account.sign_out', p_user, target.username, null, jsonb_build_object('sessions_ended', ended),
    trim(p_reason));
  return ended;
end $$;
revoke execute on function public.admin_end_sessions(uuid, text) from public, anon;

-- The last way back in for an owner who lost their authenticator app: it is removed and the
-- account's sessions end; the owner signs in with the password alone.
create function public.admin_remove_two_step(p_user uuid, p_reason text) returns void
language plpgsql security definer set search_path = '' as $$
declare
  admin uuid := private.require_admin();
  target public.profiles;
  ended integer;
begin
  perform private.require_reason(p_reason, 'Give a reason of 3 to 500 characters for removing the authenticator app.');
  target := private.managed_account(p_user);
  if not private.has_app(p_user) then
    perform private.refuse('Two-step verification is not on for this account.');
  end if;
  delete from auth.mfa_factors where user_id = p_user;
  delete from auth.sessions where user_id = p_user;
  get diagnostics ended = row_count;
  perform private.audit('account.two_step_off', p_user, target.username, null, jsonb_build_object('sessions_ended', ended),
    trim(p_reason));
end $$;
revoke execute on function public.admin_remove_two_step(uuid, text) from public, anon;

-- User Management: the accounts table is searched, filtered, sorted and paged in the database
-- (one page of rows and the total count per call). A sign-up waiting for its mailed code is shown
-- as such and not counted as a user.
create function public.admin_list_users(
  p_search text default null, p_filter text default 'all', p_sort text default 'joined', p_desc boolean default true,
  p_limit integer default 25, p_offset integer default 0
)
returns table (id uuid, username text, full_name text, email text, role text, status text, verified boolean, joined timestamptz,
               trades_30d bigint, last_sign_in_at timestamptz, application_id bigint, confirmed boolean, total bigint)
language plpgsql stable security definer set search_path = '' as $$
declare
  pattern text := '%' || replace(replace(replace(coalesce(trim(p_search), ''), '\', '\\'), '%', '\%'), '_', '\_') || '%';
begin
  perform private.require_admin();
  if p_filter is null or p_filter not in ('all', 'active', 'suspended', 'applications', 'verified') then
    perform private.refuse('Filter by all, active, suspended, applications or verified.');
  end if;
  if p_sort is null or p_sort not in ('joined', 'username', 'name', 'last_sign_in', 'status') then
    perform private.refuse('Sort by joined, username, name, last_sign_in or status.');
  end if;
  return query
    with page as (
      select p.id, p.username, p.full_name, u.email::text as email, p.role, p.status, p.verified, p.created_at, u.last_sign_in_at,
             (select a.id from public.token_applications a where a.user_id = p.id and a.status = 'pending') as application_id,
             u.email_confirmed_at is not null as confirmed,
             count(*) over () as total
      from public.profiles p join auth.users u on u.id = p.id
      where p.role <> 'system'
        and (pattern = '%%' or p.username ilike pattern or p.full_name ilike pattern or u.email ilike pattern)
        and case p_filter
              when 'active' then p.status = 'active'
              when 'suspended' then p.status = 'suspended'
              when 'verified' then p.verified
              when 'applications' then exists (select 1 from public.token_applications a where a.user_id = p.id and a.status = 'pending')
              else true end
      order by
        case when not p_desc then case p_sort when 'username' then lower(p.username) when 'name' then lower(p.full_name) when 'status' then p.status end end asc,
        case when p_desc then case p_sort when 'username' then lower(p.username) when 'name' then lower(p.full_name) when 'status' then p.status end end desc,
        case when not p_desc then case p_sort when 'joined' then p.created_at when 'last_sign_in' then u.last_sign_in_at end end asc nulls first,
        case when p_desc then case p_sort when 'joined' then p.created_at when 'last_sign_in' then u.last_sign_in_at end end desc nulls last,
        p.id
      limit least(greatest(coalesce(p_limit, 25), 1), 100) offset greatest(coalesce(p_offset, 0), 0)
    )
    -- Trade counts only for the rows of the page.
    select pg.id, pg.username, pg.full_name, pg.email, pg.role, pg.status, pg.verified, pg.created_at,
           (select count(*) from public.trades t where (t.buyer_id = pg.id or t.seller_id = pg.id) and t.created_at > now() - interval '30 days'),
           pg.last_sign_in_at, pg.application_id, pg.confirmed, pg.total
    from page pg;
end $$;
revoke execute on function public.admin_list_users(text, text, text, boolean, integer, integer) from public, anon;

-- Details of one account. They list the account's bank accounts, removed ones included, with when
-- each was added and could first receive a withdrawal: a new account then a withdrawal is what
-- support and the fraud desk ask about first.
create function public.admin_account_details(p_user uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
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
end $$;
revoke execute on function public.admin_account_details(uuid) from public, anon;

-- The dashboard's figures.
create function public.admin_dashboard_stats() returns jsonb
language plpgsql stable security definer set search_path = '' as $$
begin
  perform private.require_admin();
  return jsonb_build_object(
    'total_users', (select count(*) from public.profiles p join auth.users u on u.id = p.id
                     where p.role <> 'system' and u.email_confirmed_at is not null),
    'active_users', (select count(*) from public.profiles p join auth.users u on u.id = p.id
                      where p.role <> 'system' and p.status = 'active' and u.email_confirmed_at is not null),
    'suspended_users', (select count(*) from public.profiles where status = 'suspended'),
    'fraud_alerts', (select count(*) from public.fraud_alerts where status = 'open'),
    'daily_volume', (select coalesce(sum(value), 0) from public.trades where created_at > now() - interval '24 hours'),
    'revenue_24h', (select coalesce(sum(buyer_fee + seller_fee - creator_share), 0) from public.trades where created_at > now() - interval '24 hours'),
    'trades_24h', (select count(*) from public.trades where created_at > now() - interval '24 hours'),
    'pending_applications', (select count(*) from public.token_applications where status = 'pending')
  );
end $$;
revoke execute on function public.admin_dashboard_stats() from public, anon;

-- Revenue Reports: the exchange's fee revenue (both sides of every trade) by day, by week or by
-- token, over the last `p_days` days (null: since the first trade): the fees (the takers' and the
-- makers' apart, a makers' rebate counting against them), the share of them
-- credited to the tokens' people, and the exchange's revenue net of it. Each column sums to the
-- period's trades to the cent, so an export reconciles with the ledger.
create function public.admin_revenue(p_group text default 'day', p_days integer default 30)
returns table (bucket text, starts timestamptz, trades bigint, volume numeric, fees numeric, taker_fees numeric,
               maker_fees numeric, creator_share numeric, revenue numeric)
language plpgsql stable security definer set search_path = '' as $$
declare
  since timestamptz;
begin
  perform private.require_admin();
  if p_group is null or p_group not in ('day', 'week', 'token') then perform private.refuse('Group revenue by day, week or token.'); end if;
  if p_days is not null and p_days not between 1 and 3650 then perform private.refuse('The period is 1 to 3,650 days.'); end if;
  since := case when p_days is null then coalesce((select min(created_at) from public.trades), now())
                else date_trunc('day', now()) - make_interval(days => p_days - 1) end;
  if p_group = 'token' then
    return query
      select k.name || ' (@' || k.username || ')', min(t.created_at), count(*), sum(t.value), sum(t.buyer_fee + t.seller_fee),
             sum(private.taker_fee(t)), sum(t.buyer_fee + t.seller_fee - private.taker_fee(t)),
             sum(t.creator_share), sum(t.buyer_fee + t.seller_fee - t.creator_share)
      from public.trades t join public.tokens k on k.id = t.token_id
      where t.created_at >= since
      group by k.id, k.name, k.username
      order by sum(t.buyer_fee + t.seller_fee - t.creator_share) desc, k.name;
  else
    return query
      select to_char(b, case p_group when 'day' then 'YYYY-MM-DD' else 'IYYY-"W"IW' end), b,
             count(t.id), coalesce(sum(t.value), 0), coalesce(sum(t.buyer_fee + t.seller_fee), 0),
             coalesce(sum(private.taker_fee(t)), 0), coalesce(sum(t.buyer_fee + t.seller_fee - private.taker_fee(t)), 0),
             coalesce(sum(t.creator_share), 0), coalesce(sum(t.buyer_fee + t.seller_fee - t.creator_share), 0)
      from generate_series(date_trunc(p_group, since), date_trunc(p_group, now()), ('1 ' || p_group)::interval) b
      left join public.trades t on t.created_at >= greatest(b, since) and t.created_at < b + ('1 ' || p_group)::interval
      group by b
      order by b desc;
  end if;
end $$;
revoke execute on function public.admin_revenue(text, integer) from public, anon;

-- System Settings: only the listed settings change, each within its column's constraint; the
-- change and its reason are audited, and open screens follow it (realtime.sql).
create function public.admin_update_settings(p_changes jsonb, p_reason text default null)
returns public.exchange_settings language plpgsql security definer set search_path = '' as $$
declare
  admin uuid := private.require_admin();
  editable constant text[] := array['fee_bps', 'maker_fee_bps', 'min_order_amount', 'max_price', 'max_open_orders', 'trading_halted', 'halt_reason',
    'deposit_min', 'deposit_max', 'withdrawal_min', 'withdrawal_daily_limit', 'token_supply', 'token_founder_bps', 'token_issue_price',
    'new_bank_account_hold_hours', 'market_band_bps', 'auto_invest_min', 'auto_invest_max', 'auto_invest_max_plans', 'creator_fee_share_bps',
    'founder_vesting_months', 'founder_cliff_months', 'offering_window_minutes', 'offering_cap_bps', 'admins_need_two_step',
    'volatility_band_bps', 'volatility_auction_seconds'];
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
    perform private.refuse('A setting has a value of the wrong kind: numbers for amounts and limits, true or false for the halt and for two-step verification.');
  end;
  if after.fee_bps is null or after.maker_fee_bps is null or after.max_price is null or after.deposit_min is null or after.deposit_max is null or after.withdrawal_min is null
     or after.withdrawal_daily_limit is null or after.min_order_amount is null or after.max_open_orders is null
     or after.trading_halted is null or after.token_supply is null or after.token_founder_bps is null or after.token_issue_price is null
     or after.new_bank_account_hold_hours is null or after.market_band_bps is null
     or after.auto_invest_min is null or after.auto_invest_max is null or after.auto_invest_max_plans is null
     or after.creator_fee_share_bps is null or after.founder_vesting_months is null or after.founder_cliff_months is null
     or after.offering_window_minutes is null or after.offering_cap_bps is null or after.admins_need_two_step is null
     or after.volatility_band_bps is null or after.volatility_auction_seconds is null then
    perform private.refuse('A setting cannot be empty.');
  end if;
  if after.fee_bps <> trunc(after.fee_bps) or after.fee_bps not between 0 and 1000 then
    perform private.refuse('The trading fee must be between 0 and 1,000 basis points (0% to 10%).');
  end if;
  -- One fee for both sides (the specification's) stays one when only the taker's is changed.
  if not p_changes ? 'maker_fee_bps' and before.maker_fee_bps = before.fee_bps then
    after.maker_fee_bps := after.fee_bps;
  end if;
  if after.maker_fee_bps <> trunc(after.maker_fee_bps) or after.maker_fee_bps not between -after.fee_bps and after.fee_bps then
    perform private.refuse(format('The maker fee must be between %s and %s basis points: at most the taker fee, and a rebate (below 0) no larger than it.',
      -after.fee_bps, after.fee_bps));
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
  if after.volatility_band_bps <> trunc(after.volatility_band_bps) or after.volatility_band_bps not between 100 and 5000 then
    perform private.refuse('The volatility band must be between 100 and 5,000 basis points (1% to 50%).');
  end if;
  if after.volatility_auction_seconds <> trunc(after.volatility_auction_seconds) or after.volatility_auction_seconds not between 5 and 3600 then
    perform private.refuse('A volatility auction lasts 5 to 3,600 seconds (an hour).');
  end if;
  -- A halt and its reason go together: traders are told why, and no reason lingers without a halt.
  if after.trading_halted and nullif(trim(after.halt_reason), '') is null then
    perform private.refuse('Say why trading is halted: traders are shown the reason.');
  elsif not after.trading_halted and nullif(trim(after.halt_reason), '') is not null then
    perform private.refuse('A halt reason goes with a halt: turn the halt on, or clear the reason.');
  end if;
  -- Asking admins for two-step verification locks out every admin without an app: the one asking first.
  if after.admins_need_two_step and not before.admins_need_two_step and not private.has_app(admin) then
    perform private.refuse('Turn on two-step verification for your own account first (Profile › Settings): asking it of admins would lock you out of the admin area.');
  end if;
  begin
    update public.exchange_settings set
      fee_bps = after.fee_bps, maker_fee_bps = after.maker_fee_bps, min_order_amount = after.min_order_amount, max_price = after.max_price, max_open_orders = after.max_open_orders,
      trading_halted = after.trading_halted, halt_reason = nullif(trim(after.halt_reason), ''),
      deposit_min = after.deposit_min, deposit_max = after.deposit_max, withdrawal_min = after.withdrawal_min,
      withdrawal_daily_limit = after.withdrawal_daily_limit, token_supply = after.token_supply,
      token_founder_bps = after.token_founder_bps, token_issue_price = after.token_issue_price,
      new_bank_account_hold_hours = after.new_bank_account_hold_hours, market_band_bps = after.market_band_bps,
      auto_invest_min = after.auto_invest_min, auto_invest_max = after.auto_invest_max,
      auto_invest_max_plans = after.auto_invest_max_plans, creator_fee_share_bps = after.creator_fee_share_bps,
      founder_vesting_months = after.founder_vesting_months, founder_cliff_months = after.founder_cliff_months,
      offering_window_minutes = after.offering_window_minutes, offering_cap_bps = after.offering_cap_bps,
      admins_need_two_step = after.admins_need_two_step, volatility_band_bps = after.volatility_band_bps,
      volatility_auction_seconds = after.volatility_auction_seconds, updated_at = now()
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
end $$;
revoke execute on function public.admin_update_settings(jsonb, text) from public, anon;
