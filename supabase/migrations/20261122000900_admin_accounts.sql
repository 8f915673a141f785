-- The admin acts on accounts: suspend (with a reason) and reinstate, verify and unverify, each
-- checked in the database and written to the audit log. Suspension takes effect at once: the
-- account's open orders are cancelled (reservations released), every session ends (its refresh
-- tokens go with it, and the server refuses access tokens whose session is gone), and the sign-in
-- ban is set by the profile trigger.

-- The account an admin may act on: not their own, not the system's.
create or replace function private.managed_account(p_user uuid) returns public.profiles
language plpgsql security definer set search_path = '' as $$
declare
  target public.profiles;
begin
  select * into target from public.profiles where id = p_user for update;
  if not found or target.role = 'system' then perform private.refuse('There is no such account.'); end if;
  if p_user = auth.uid() then perform private.refuse('Admins cannot act on their own account.'); end if;
  return target;
end $$;

create or replace function public.admin_set_account_status(p_user uuid, p_status text, p_reason text default null)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  admin uuid := private.require_admin();
  target public.profiles;
  o record;
  cancelled integer := 0;
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
    -- Each book's lock first, as the engine takes it, then the order.
    for o in select id, token_id from public.orders where user_id = p_user and status = 'open' order by token_id, id loop
      perform 1 from public.tokens where id = o.token_id for update;
      perform private.release_order(o.id);
      insert into public.market_events (token_id, kind) values (o.token_id, 'book');
      cancelled := cancelled + 1;
    end loop;
    delete from auth.sessions where user_id = p_user;
    get diagnostics sessions = row_count;
  end if;
  perform private.audit(case p_status when 'suspended' then 'account.suspend' else 'account.reinstate' end, p_user, target.username,
    jsonb_build_object('status', target.status), jsonb_build_object('status', p_status, 'orders_cancelled', cancelled, 'sessions_ended', coalesce(sessions, 0)),
    nullif(trim(coalesce(p_reason, '')), ''));
  return jsonb_build_object('status', p_status, 'orders_cancelled', cancelled, 'sessions_ended', coalesce(sessions, 0));
end $$;

create or replace function public.admin_set_verified(p_user uuid, p_verified boolean)
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

-- The audit log for the admin's view, newest first, optionally of one account or one action.
create or replace function public.admin_audit_log(p_target uuid default null, p_action text default null, p_limit integer default 200)
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

-- System Settings: the admin changes any of the exchange's settings; the engine and the browser
-- read them on their next call. Unknown keys and bad values are refused; the change is audited.
create or replace function public.admin_update_settings(p_changes jsonb, p_reason text default null)
returns public.exchange_settings language plpgsql security definer set search_path = '' as $$
declare
  admin uuid := private.require_admin();
  editable constant text[] := array['fee_bps', 'min_order_amount', 'max_price', 'max_open_orders', 'trading_halted', 'halt_reason',
    'deposit_min', 'deposit_max', 'withdrawal_min', 'withdrawal_daily_limit', 'token_supply', 'token_founder_bps', 'token_issue_price'];
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
     or after.trading_halted is null or after.token_supply is null or after.token_founder_bps is null or after.token_issue_price is null then
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
  begin
    update public.exchange_settings set
      fee_bps = after.fee_bps, min_order_amount = after.min_order_amount, max_price = after.max_price, max_open_orders = after.max_open_orders,
      trading_halted = after.trading_halted, halt_reason = nullif(trim(after.halt_reason), ''),
      deposit_min = after.deposit_min, deposit_max = after.deposit_max, withdrawal_min = after.withdrawal_min,
      withdrawal_daily_limit = after.withdrawal_daily_limit, token_supply = after.token_supply,
      token_founder_bps = after.token_founder_bps, token_issue_price = after.token_issue_price, updated_at = now()
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
grant execute on function public.admin_update_settings(jsonb, text) to authenticated;

revoke execute on function public.admin_set_account_status(uuid, text, text),
  public.admin_set_verified(uuid, boolean), public.admin_audit_log(uuid, text, integer) from public, anon;
grant execute on function public.admin_set_account_status(uuid, text, text),
  public.admin_set_verified(uuid, boolean), public.admin_audit_log(uuid, text, integer) to authenticated;
revoke all on function private.managed_account(uuid) from public;
