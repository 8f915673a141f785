-- A new bank account receives withdrawals a day after it is added (an exchange setting, 0 to 168
-- hours), its owner is mailed when it is added and at each withdrawal, and a saved account can be
-- removed.
--
-- Whoever signs in with a stolen password adds their own bank account and withdraws to it at once.
-- Brokers hold a newly linked account for a day or more (or verify it by micro-deposits): the
-- owner, mailed the moment it is added, has that day to take the account back (Forgot password?)
-- and remove it before any money can reach it. Accounts saved before this migration keep working.

alter table public.payout_destinations
  add column usable_from timestamptz,
  add column removed_at timestamptz;
update public.payout_destinations set usable_from = created_at;
alter table public.payout_destinations alter column usable_from set not null;
comment on column public.payout_destinations.usable_from is 'When the account may first receive a withdrawal: exchange_settings.new_bank_account_hold_hours after it was added.';
comment on column public.payout_destinations.removed_at is 'When its owner removed it; kept for the withdrawals already sent to it.';

-- How long a new account waits: an exchange setting, which the Withdraw dialog reads to say so.
alter table public.exchange_settings
  add column new_bank_account_hold_hours integer not null default 24 check (new_bank_account_hold_hours between 0 and 168);
comment on column public.exchange_settings.new_bank_account_hold_hours is 'Hours a newly added bank account waits before it may receive a withdrawal.';

create or replace function private.new_bank_account_hold() returns interval
language sql stable security definer set search_path = '' as $$
  select make_interval(hours => new_bank_account_hold_hours) from public.exchange_settings
$$;
revoke all on function private.new_bank_account_hold() from public, anon, authenticated;

-- '1 hour', '24 hours'.
create or replace function private.hours(p interval) returns text
language sql immutable set search_path = '' as $$
  select (extract(epoch from p)::bigint / 3600)::text || case when extract(epoch from p) = 3600 then ' hour' else ' hours' end
$$;
revoke all on function private.hours(interval) from public, anon, authenticated;

-- As in 20261122000900, with the new setting (0 to 168 hours).
create or replace function public.admin_update_settings(p_changes jsonb, p_reason text default null)
returns public.exchange_settings language plpgsql security definer set search_path = '' as $$
declare
  admin uuid := private.require_admin();
  editable constant text[] := array['fee_bps', 'min_order_amount', 'max_price', 'max_open_orders', 'trading_halted', 'halt_reason',
    'deposit_min', 'deposit_max', 'withdrawal_min', 'withdrawal_daily_limit', 'token_supply', 'token_founder_bps', 'token_issue_price',
    'new_bank_account_hold_hours'];
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
     or after.new_bank_account_hold_hours is null then
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
  begin
    update public.exchange_settings set
      fee_bps = after.fee_bps, min_order_amount = after.min_order_amount, max_price = after.max_price, max_open_orders = after.max_open_orders,
      trading_halted = after.trading_halted, halt_reason = nullif(trim(after.halt_reason), ''),
      deposit_min = after.deposit_min, deposit_max = after.deposit_max, withdrawal_min = after.withdrawal_min,
      withdrawal_daily_limit = after.withdrawal_daily_limit, token_supply = after.token_supply,
      token_founder_bps = after.token_founder_bps, token_issue_price = after.token_issue_price,
      new_bank_account_hold_hours = after.new_bank_account_hold_hours, updated_at = now()
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

-- Mail the database asks to send: the local server relays it to its outbox (see
-- supabase/server/accountMail.ts); a hosted project relays it with a scheduled function.
create table private.account_mail (
  id bigint generated always as identity primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  subject text not null,
  body text not null,
  created_at timestamptz not null default now(),
  sent_at timestamptz
);
create index account_mail_unsent_idx on private.account_mail (id) where sent_at is null;
revoke all on private.account_mail from public, anon, authenticated;

-- Hands the unsent mail to the relay, each message once, with its recipient's current address:
-- only the relay's (the local server, or a hosted project's scheduled function with the
-- service-role key), as claim_payment is the payment worker's.
create or replace function public.take_account_mail() returns table (recipient text, subject text, body text)
language sql security definer set search_path = '' as $$
  with taken as (
    update private.account_mail m set sent_at = now()
     where m.id in (select id from private.account_mail where sent_at is null order by id limit 100 for update skip locked)
    returning m.user_id, m.subject, m.body, m.id
  )
  select u.email::text, t.subject, t.body from taken t join auth.users u on u.id = t.user_id
   where u.email is not null order by t.id
$$;
revoke all on function public.take_account_mail() from public, anon, authenticated;
grant execute on function public.take_account_mail() to service_role;

create or replace function public.add_payout_destination(p_label text, p_account_number text) returns uuid
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.active_caller();
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
end $$;

create or replace function public.remove_payout_destination(p_id uuid) returns void
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.active_caller();
begin
  update public.payout_destinations set removed_at = now()
   where id = p_id and user_id = uid and removed_at is null;
  if not found then perform private.refuse('This account is not one of your saved accounts.'); end if;
end $$;
revoke execute on function public.remove_payout_destination(uuid) from public, anon;
grant execute on function public.remove_payout_destination(uuid) to authenticated;

-- As in 20261124004200, with the account checked before the recent sign-in (no password is asked
-- for a withdrawal that would be refused anyway): saved, not removed, and past its hold. The owner
-- is mailed each withdrawal, with what to do if it was not them. With an authenticator app on, the
-- recent proof asked for is a code from it.
create or replace function public.create_withdrawal(p_amount numeric, p_destination uuid, p_idempotency_key text) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.active_caller();
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
  if not private.signed_in_within(interval '15 minutes') then
    -- With an authenticator app on, a fresh code is the proof (a password alone signs in at aal1).
    if exists (select from auth.mfa_factors where user_id = uid and status = 'verified') then
      raise exception 'For your security, enter a code from your authenticator app to withdraw.' using errcode = 'P0001', hint = 'reauthenticate';
    end if;
    raise exception 'For your security, confirm your password to withdraw.' using errcode = 'P0001', hint = 'reauthenticate';
  end if;
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
end $$;

-- The admin's Details list the account's bank accounts, removed ones included, with when each was
-- added and could first receive a withdrawal: a new account then a withdrawal is what support and
-- the fraud desk ask about first. (Recreated whole from 20261125004400.)
create or replace function public.admin_account_details(p_user uuid) returns jsonb
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
      'two_step', exists (select from auth.mfa_factors f where f.user_id = p_user and f.status = 'verified')),
    'cash', (select to_jsonb(c) - 'user_id' from public.cash_accounts c where c.user_id = p_user),
    'holdings', coalesce((select jsonb_agg(jsonb_build_object('token', k.name, 'token_id', k.id, 'amount', h.amount, 'reserved', h.reserved) order by h.amount desc)
      from public.holdings h join public.tokens k on k.id = h.token_id where h.user_id = p_user and h.amount > 0), '[]'),
    'open_orders', coalesce((select jsonb_agg(jsonb_build_object('id', o.id, 'token', k.name, 'side', o.side, 'price', o.price, 'amount', o.amount - o.filled, 'created_at', o.created_at) order by o.created_at desc)
      from public.orders o join public.tokens k on k.id = o.token_id where o.user_id = p_user and o.status = 'open'), '[]'),
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
    'activity', coalesce((select jsonb_agg(x order by x.created_at desc) from (
      select l.created_at, a.username as actor, l.action, l.reason from public.audit_log l left join public.profiles a on a.id = l.actor_id
      where l.target_user = p_user order by l.created_at desc limit 50) x), '[]')
  );
end $$;

-- Sent mail is kept a week (for support), as the local outbox is; recreated whole from
-- 20261122001400 with it.
create or replace function private.prune() returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  events integer;
  sessions integer;
  tokens integer;
  mail integer;
begin
  delete from public.market_events where created_at < now() - interval '1 hour';
  get diagnostics events = row_count;
  delete from auth.sessions where coalesce(refreshed_at, created_at) < now() - interval '30 days';
  get diagnostics sessions = row_count;
  delete from auth.refresh_tokens where revoked and updated_at < now() - interval '1 day';
  get diagnostics tokens = row_count;
  delete from private.account_mail where sent_at < now() - interval '7 days';
  get diagnostics mail = row_count;
  return jsonb_build_object('market_events', events, 'sessions', sessions, 'refresh_tokens', tokens, 'account_mail', mail);
end $$;
