-- Withdrawals wait a day after the password or the email changes.
--
-- Whoever takes over an account (a phished password, a browser left signed in) changes its
-- password or its email first, so that its owner cannot get back in, and then moves the money
-- out. Exchanges hold withdrawals for a day after either change: the owner, mailed at once by the
-- auth server, has that day to take the account back (Forgot password?) before any money can
-- leave. The change is read from auth.users by a trigger, so the rule holds whoever made it (the
-- local auth server, or GoTrue on a hosted project) and whatever way (Settings, a recovery code,
-- an email confirmed by its code). Nothing else waits: deposits and trading go on.

create table private.credential_changes (
  user_id uuid primary key references auth.users (id) on delete cascade,
  changed_at timestamptz not null
);
revoke all on private.credential_changes from public, anon, authenticated;

create or replace function private.stamp_credential_change() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  insert into private.credential_changes (user_id, changed_at) values (new.id, now())
  on conflict (user_id) do update set changed_at = excluded.changed_at;
  return new;
end $$;
revoke all on function private.stamp_credential_change() from public, anon, authenticated;

-- Until when the user's withdrawals wait, or null: the rule's one owner, for create_withdrawal
-- and for the Withdraw dialog, which says so before anything is typed.
create or replace function private.withdrawals_held_until(p_user uuid) returns timestamptz
language sql stable security definer set search_path = '' as $$
  select changed_at + interval '24 hours' from private.credential_changes
   where user_id = p_user and changed_at > now() - interval '24 hours'
$$;
revoke all on function private.withdrawals_held_until(uuid) from public, anon, authenticated;

create or replace function public.my_withdrawal_hold() returns timestamptz
language sql stable security definer set search_path = '' as $$
  select private.withdrawals_held_until(auth.uid())
$$;
revoke execute on function public.my_withdrawal_hold() from public, anon;

create trigger on_auth_user_credentials_changed after update of encrypted_password, email on auth.users
  for each row when (old.encrypted_password is distinct from new.encrypted_password or old.email is distinct from new.email)
  execute function private.stamp_credential_change();

-- As in 20261124003800, the hold checked before the recent sign-in (no password is asked for a
-- withdrawal that would be refused anyway).
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
  if not private.signed_in_within(interval '15 minutes') then
    raise exception 'For your security, confirm your password to withdraw.' using errcode = 'P0001', hint = 'reauthenticate';
  end if;
  select * into s from public.exchange_settings;
  perform private.check_amount(p_amount, 'withdrawal', s.withdrawal_min, s.withdrawal_daily_limit);
  select * into d from public.payout_destinations where id = p_destination and user_id = uid;
  if not found then perform private.refuse('Choose one of your saved accounts to withdraw to.'); end if;
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
  perform pg_notify('repx_payments', w.reference::text);
  return private.payment_json(w);
end $$;
