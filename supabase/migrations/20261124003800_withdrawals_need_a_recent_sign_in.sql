-- Money leaves only after a recent sign-in.
--
-- A withdrawal needed only a session, so a browser left signed in (or a stolen session token)
-- could send the account's cash to a newly added bank account. Exchanges ask the user to prove who
-- they are again before money leaves. A withdrawal now needs a sign-in within the last 15 minutes.
-- The time is read from the access token's amr (the method and time of the session's sign-in,
-- which GoTrue and the local auth server both put there), so the rule holds on a hosted project
-- too. The refusal's hint, 'reauthenticate', tells the browser to ask for the password and sign in
-- again; a replay of a request already taken still answers as before.

-- Whether the caller's session proved who they are within p_within (its amr's latest time).
create or replace function private.signed_in_within(p_within interval) returns boolean
language sql stable set search_path = '' as $$
  select coalesce(
    (select max((a ->> 'timestamp')::double precision)
       from jsonb_array_elements(case when jsonb_typeof(auth.jwt() -> 'amr') = 'array' then auth.jwt() -> 'amr' else '[]' end) a
      where jsonb_typeof(a -> 'timestamp') = 'number'),
    0) > extract(epoch from now() - p_within)
$$;
revoke all on function private.signed_in_within(interval) from public, anon, authenticated;

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
begin
  earlier := private.replayed(uid, p_idempotency_key, 'withdrawal', p_amount);
  if earlier is not null then return earlier; end if;
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
