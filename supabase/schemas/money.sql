-- Money and payouts: cash, deposits and withdrawals through a payment provider, bank accounts,
-- and every cash movement in one history.
--
-- A deposit or a withdrawal is a row of wallet_transactions with a provider reference. The browser
-- only asks (create_deposit, create_withdrawal, cancel_withdrawal); the provider's answer is applied
-- by settle_payment, exactly once per reference, in the transaction that credits or releases the
-- cash. The local server's payment worker (server/payments) plays the provider; on a
-- hosted project a webhook handler with the service-role key calls settle_payment instead.
--
-- Lifecycles:
--   deposit     pending -> processing -> completed | failed        (credited only when completed)
--   withdrawal  pending -> processing -> completed | failed        (held from `available` at request;
--               pending -> cancelled                                 failed or cancelled gives it back)
--
-- The cash invariant, which the check constraints keep from going negative anywhere:
--   sum(available + reserved + pending_withdrawal) + fees = completed deposits - completed withdrawals
--
-- Money leaves only with a recent sign-in (15 minutes), never within a day of a password or email
-- change, and only to a bank account saved at least a day before (an exchange
-- setting): the ways a stolen password or session would move money out, each given time for the
-- owner, mailed at once, to take the account back.

-- Where a user's withdrawals go. Only the last four digits of the account are kept.
create table public.payout_destinations (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.profiles (id) on delete cascade,
  label text not null check (char_length(label) between 1 and 40),
  account_last4 text not null check (account_last4 ~ '^[0-9]{4}$'),
  created_at timestamptz not null default now(),
  usable_from timestamptz not null,
  removed_at timestamptz
);
comment on column public.payout_destinations.usable_from is 'When the account may first receive a withdrawal: exchange_settings.new_bank_account_hold_hours after it was added.';
comment on column public.payout_destinations.removed_at is 'When its owner removed it; kept for the withdrawals already sent to it.';
create index payout_destinations_user_idx on public.payout_destinations (user_id);
alter table public.payout_destinations enable row level security;
create policy "own payout destinations" on public.payout_destinations
  for select to authenticated using (user_id = (select auth.uid()) or (select private.is_admin()));
revoke all on public.payout_destinations from anon;
revoke insert, update, delete, truncate on public.payout_destinations from authenticated;

-- Money in and out of the exchange. Trade fees are not repeated here: they live on trades.
create table public.wallet_transactions (
  id bigint generated always as identity primary key,
  user_id uuid not null references public.profiles (id) on delete cascade,
  type text not null check (type in ('deposit', 'withdrawal')),
  amount numeric(14, 2) not null check (amount > 0),
  status text not null default 'completed' check (status in ('pending', 'processing', 'completed', 'failed', 'cancelled')),
  created_at timestamptz not null default now(),
  -- What the provider knows the payment by.
  reference uuid not null default gen_random_uuid() unique,
  -- A request replayed with its key gets the first answer (a double click, a retried request).
  idempotency_key text check (char_length(idempotency_key) between 8 and 100),
  provider text not null default 'ledger',
  -- What the person sees of the card or the account: 'Card •••• 4242'.
  method text,
  destination_id uuid references public.payout_destinations (id),
  -- The provider's words when it declines or fails.
  message text,
  updated_at timestamptz not null default now()
);
create index wallet_transactions_user_idx on public.wallet_transactions (user_id, created_at desc);
create unique index wallet_transactions_idempotency_idx on public.wallet_transactions (user_id, idempotency_key) where idempotency_key is not null;
create index wallet_transactions_open_idx on public.wallet_transactions (created_at) where status in ('pending', 'processing');
alter table public.wallet_transactions enable row level security;
create policy "own wallet transactions" on public.wallet_transactions
  for select to authenticated using (user_id = (select auth.uid()) or (select private.is_admin()));
revoke all on public.wallet_transactions from anon;
revoke insert, update, delete, truncate on public.wallet_transactions from authenticated;

-- Money in: a pending deposit that the provider confirms or declines.
create function public.create_deposit(p_amount numeric, p_card text, p_idempotency_key text) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.person_caller('deposit money');
  s public.exchange_settings;
  last4 text;
  w public.wallet_transactions;
  earlier jsonb;
begin
  earlier := private.replayed(uid, p_idempotency_key, 'deposit', p_amount);
  if earlier is not null then return earlier; end if;
  select * into s from public.exchange_settings;
  perform private.check_amount(p_amount, 'deposit', s.deposit_min, s.deposit_max);
  last4 := private.card_last4(p_card);
  insert into public.wallet_transactions (user_id, type, amount, status, idempotency_key, provider, method)
  values (uid, 'deposit', p_amount, 'pending', p_idempotency_key, 'simulated', 'Card •••• ' || last4)
  on conflict (user_id, idempotency_key) where idempotency_key is not null do nothing
  returning * into w;
  if not found then return private.replayed(uid, p_idempotency_key, 'deposit', p_amount); end if; -- a concurrent replay won
  perform pg_notify('repx_payments', w.reference::text);
  return private.payment_json(w);
end $$;
revoke execute on function public.create_deposit(numeric, text, text) from public, anon;

-- Money out, to one of the caller's saved accounts past its hold, after a recent sign-in (with an
-- authenticator app on, a fresh code from it), outside the day after a credential change, within
-- the daily limit. The account is checked before the recent sign-in, so no password is asked for a
-- withdrawal that would be refused anyway. The owner is mailed each withdrawal.
create function public.create_withdrawal(p_amount numeric, p_destination uuid, p_idempotency_key text) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.person_caller('withdraw money');
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
  perform private.require_recent_sign_in('withdraw');
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
  perform private.notify(uid, 'security', 'A withdrawal was requested from your RepX account',
    format(E'A withdrawal of %s to %s was requested from your RepX account.\n'
           'If it was not you, cancel it in your Wallet while it is pending, then reset your password with Forgot password? on the sign-in page.',
      private.money(p_amount), w.method), '/wallet');
  perform pg_notify('repx_payments', w.reference::text);
  return private.payment_json(w);
end $$;
revoke execute on function public.create_withdrawal(numeric, uuid, text) from public, anon;

-- Gives back the funds of one's own withdrawal that the provider has not taken up yet.
create function public.cancel_withdrawal(p_id bigint) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.person_caller('cancel a withdrawal');
  w public.wallet_transactions;
begin
  select * into w from public.wallet_transactions where id = p_id and user_id = uid and type = 'withdrawal' for update;
  if not found then perform private.refuse('You have no such withdrawal.'); end if;
  if w.status <> 'pending' then
    perform private.refuse(format('This withdrawal is %s and can no longer be cancelled.', w.status));
  end if;
  perform 1 from public.cash_accounts where user_id = uid for update;
  update public.cash_accounts set available = available + w.amount, pending_withdrawal = pending_withdrawal - w.amount where user_id = uid;
  update public.wallet_transactions set status = 'cancelled', updated_at = now() where id = p_id returning * into w;
  return private.payment_json(w);
end $$;
revoke execute on function public.cancel_withdrawal(bigint) from public, anon;

-- The provider's side. claim_payment hands the next request due to the worker (marking it
-- processing); a request left processing by a crash is handed out again after `p_lease`.
create function public.claim_payment(p_payout_after interval, p_lease interval)
returns table (reference uuid, type text, amount numeric, method text)
language plpgsql security definer set search_path = '' as $$
begin
  return query
    update public.wallet_transactions w set status = 'processing', updated_at = now()
     where w.id = (
       select x.id from public.wallet_transactions x
        where (x.status = 'pending' and (x.type = 'deposit' or x.created_at <= now() - p_payout_after))
           or (x.status = 'processing' and x.updated_at <= now() - p_lease)
        order by x.created_at, x.id
        limit 1
        for update skip locked)
    returning w.reference, w.type, w.amount, w.method;
end $$;
revoke execute on function public.claim_payment(interval, interval) from public, anon, authenticated;

-- Applies the provider's outcome once: a replay of the same confirmation changes nothing.
create function public.settle_payment(p_reference uuid, p_succeeded boolean, p_message text default null) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  w public.wallet_transactions;
begin
  select * into w from public.wallet_transactions where reference = p_reference for update;
  if not found then raise exception 'No payment with reference %.', p_reference using errcode = 'P0001'; end if;
  if w.status not in ('pending', 'processing') then return private.payment_json(w) || '{"replayed": true}'; end if;
  perform 1 from public.cash_accounts where user_id = w.user_id for update;
  if w.type = 'deposit' and p_succeeded then
    update public.cash_accounts set available = available + w.amount where user_id = w.user_id;
  elsif w.type = 'withdrawal' and p_succeeded then
    update public.cash_accounts set pending_withdrawal = pending_withdrawal - w.amount where user_id = w.user_id;
  elsif w.type = 'withdrawal' then
    update public.cash_accounts set available = available + w.amount, pending_withdrawal = pending_withdrawal - w.amount where user_id = w.user_id;
  end if;
  update public.wallet_transactions
     set status = case when p_succeeded then 'completed' else 'failed' end,
         message = case when p_succeeded then null else coalesce(p_message, 'The payment provider declined this payment.') end,
         updated_at = now()
   where id = w.id returning * into w;
  return private.payment_json(w);
end $$;
revoke execute on function public.settle_payment(uuid, boolean, text) from public, anon, authenticated;

-- A request replayed with its idempotency key gets the first answer (null for a first request);
-- the same key for another request is refused, and so is a request without a valid key.
create function private.replayed(p_user uuid, p_key text, p_type text, p_amount numeric) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  w public.wallet_transactions;
begin
  perform private.check_idempotency_key(p_key);
  select * into w from public.wallet_transactions where user_id = p_user and idempotency_key = p_key;
  if not found then return null; end if;
  if w.type <> p_type or w.amount <> p_amount then
    perform private.refuse('This idempotency key was already used for a different request.');
  end if;
  return private.payment_json(w) || '{"replayed": true}';
end $$;
revoke execute on function private.replayed(uuid, text, text, numeric) from public;

create function private.check_idempotency_key(p_key text) returns void
language plpgsql immutable as $$
begin
  if p_key is null or char_length(p_key) not between 8 and 100 then
    perform private.refuse('Each request needs an idempotency key of 8 to 100 characters.');
  end if;
end $$;
revoke execute on function private.check_idempotency_key(text) from public;

create function private.payment_json(w public.wallet_transactions) returns jsonb
language sql stable as $$
  select jsonb_build_object('id', w.id, 'reference', w.reference, 'type', w.type, 'amount', w.amount,
    'status', w.status, 'method', w.method, 'message', w.message, 'created_at', w.created_at)
$$;
revoke execute on function private.payment_json(public.wallet_transactions) from public;

-- Card numbers of the simulated rail: 12 to 19 digits passing the Luhn check. Only the last four
-- are kept; a real provider's browser SDK would send a payment-method token here instead.
create function private.card_last4(p_card text) returns text
language plpgsql immutable as $$
declare
  digits text := regexp_replace(coalesce(p_card, ''), '[\s-]', '', 'g');
  total int := 0;
  d int;
begin
  if digits !~ '^[0-9]{12,19}$' then perform private.refuse('Enter a card number of 12 to 19 digits.'); end if;
  for i in 0 .. length(digits) - 1 loop
    d := substr(digits, length(digits) - i, 1)::int;
    if i % 2 = 1 then d := d * 2; if d > 9 then d := d - 9; end if; end if;
    total := total + d;
  end loop;
  if total % 10 <> 0 then perform private.refuse('This card number is not valid: check the digits.'); end if;
  return right(digits, 4);
end $$;
revoke execute on function private.card_last4(text) from public;

-- An amount typed by a person: a number (NaN is refused as the missing number it is), above zero,
-- in cents, within the exchange's limits.
create function private.check_amount(p_amount numeric, what text, lo numeric, hi numeric) returns void
language plpgsql immutable as $$
begin
  if p_amount is null or p_amount = 'NaN' or p_amount <= 0 then
    perform private.refuse(format('Enter a %s amount of at least %s.', what, private.money(lo)));
  end if;
  if p_amount <> round(p_amount, 2) then perform private.refuse(format('A %s amount has at most two decimals.', what)); end if;
  if p_amount < lo then perform private.refuse(format('The minimum %s is %s.', what, private.money(lo))); end if;
  if p_amount > hi then perform private.refuse(format('The maximum %s is %s.', what, private.money(hi))); end if;
end $$;
revoke execute on function private.check_amount(numeric, text, numeric, numeric) from public;

-- Cash moved by the ledger is a positive number of cents.
create function private.check_cents(p_amount numeric, what text) returns void
language plpgsql immutable as $$
begin
  if p_amount is null or p_amount <= 0 or p_amount <> round(p_amount, 2) then
    raise exception 'A % must be a positive amount in cents.', what using errcode = '22023';
  end if;
end $$;
revoke execute on function private.check_cents(numeric, text) from public;

-- The seed's and tests' way to put cash in or take it out without the provider.
create function private.record_deposit(p_user uuid, p_amount numeric, p_at timestamptz default now())
returns void language plpgsql security definer set search_path = '' as $$
begin
  perform private.check_cents(p_amount, 'deposit');
  update public.cash_accounts set available = available + p_amount where user_id = p_user;
  if not found then raise exception 'No cash account for this user.' using errcode = 'P0001'; end if;
  insert into public.wallet_transactions (user_id, type, amount, created_at) values (p_user, 'deposit', p_amount, p_at);
end $$;
revoke execute on function private.record_deposit(uuid, numeric, timestamp with time zone) from public;
create function private.record_withdrawal(p_user uuid, p_amount numeric, p_at timestamptz default now())
returns void language plpgsql security definer set search_path = '' as $$
begin
  perform private.check_cents(p_amount, 'withdrawal');
  update public.cash_accounts set available = available - p_amount where user_id = p_user and available >= p_amount;
  if not found then raise exception 'Insufficient funds for this withdrawal.' using errcode = 'P0001'; end if;
  insert into public.wallet_transactions (user_id, type, amount, created_at) values (p_user, 'withdrawal', p_amount, p_at);
end $$;
revoke execute on function private.record_withdrawal(uuid, numeric, timestamp with time zone) from public;

-- Bank accounts. A new one receives withdrawals a day after it is added, and its owner is mailed
-- when it is added: whoever signs in with a stolen password adds their own account and withdraws
-- to it at once, so brokers hold a newly linked account for a day or more. Up to five are saved,
-- and five added a day, so that removing and adding again cannot mail the owner without end.
create function public.add_payout_destination(p_label text, p_account_number text) returns uuid
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.person_caller('add a bank account');
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
  perform private.notify(uid, 'security', 'A bank account was added to your RepX account',
    format(E'The bank account %s •••• %s was added to your RepX account. For your security, it can receive withdrawals from %s.\n'
           'If it was not you, reset your password now with Forgot password? on the sign-in page, then remove the account in your Wallet.',
      d.label, d.account_last4, to_char(d.usable_from at time zone 'UTC', 'Mon FMDD, YYYY, HH24:MI "UTC"')), '/wallet');
  return d.id;
end $$;
revoke execute on function public.add_payout_destination(text, text) from public, anon;

create function public.remove_payout_destination(p_id uuid) returns void
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.person_caller('remove a bank account');
begin
  update public.payout_destinations set removed_at = now()
   where id = p_id and user_id = uid and removed_at is null;
  if not found then perform private.refuse('This account is not one of your saved accounts.'); end if;
end $$;
revoke execute on function public.remove_payout_destination(uuid) from public, anon;

create function private.new_bank_account_hold() returns interval
language sql stable security definer set search_path = '' as $$
  select make_interval(hours => new_bank_account_hold_hours) from public.exchange_settings
$$;
revoke execute on function private.new_bank_account_hold() from public;

-- Withdrawals wait a day after the password or the email changes. Whoever takes over
-- an account (a phished password, a browser left signed in) changes its password or its email
-- first, so that its owner cannot get back in, and then moves the money out. The owner, mailed at
-- once by the auth server, has that day to take the account back. The change is read from
-- auth.users by a trigger, so the rule holds whoever made it (the local auth server, or GoTrue on a
-- hosted project) and whatever way.
create table private.credential_changes (
  user_id uuid primary key references auth.users (id) on delete cascade,
  changed_at timestamptz not null
);
create function private.stamp_credential_change() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  insert into private.credential_changes (user_id, changed_at) values (new.id, now())
  on conflict (user_id) do update set changed_at = excluded.changed_at;
  return new;
end $$;
revoke execute on function private.stamp_credential_change() from public;
create trigger on_auth_user_credentials_changed after update of encrypted_password, email on auth.users
  for each row when (old.encrypted_password is distinct from new.encrypted_password or old.email is distinct from new.email)
  execute function private.stamp_credential_change();

-- Until when the user's withdrawals wait after a credential change, or null: the rule's one
-- owner, for create_withdrawal and for the Withdraw dialog, which says so before anything is typed.
create function private.withdrawals_held_until(p_user uuid) returns timestamptz
language sql stable security definer set search_path = '' as $$
  select changed_at + interval '24 hours' from private.credential_changes
   where user_id = p_user and changed_at > now() - interval '24 hours'
$$;
revoke execute on function private.withdrawals_held_until(uuid) from public;
create function public.my_withdrawal_hold() returns timestamptz
language sql stable security definer set search_path = '' as $$
  select private.withdrawals_held_until(auth.uid())
$$;
revoke execute on function public.my_withdrawal_hold() from public, anon;

-- Every movement of the caller's cash, in no order, with its effect on the balance (available +
-- reserved): deposits when completed, withdrawals from the moment they are held (until failed or
-- cancelled), each trade's value and each fee, and for the token's person an offering's proceeds
-- and their share of the fees on trades in their token. A filter on created_at reaches each part's
-- index, which the wallet's history below cannot offer (its running balance is over all of them):
-- a statement (statements.sql) reads a period here.
create view private.wallet_moves with (security_invoker = true) as
select 'wt-' || w.id as id, w.created_at, w.id::numeric as seq,
       case w.type when 'deposit' then 'Deposit' else 'Withdrawal' end as type,
       coalesce(w.method, case w.type when 'deposit' then 'Deposit' else 'Withdrawal' end) as description,
       case w.type when 'deposit' then w.amount else -w.amount end as amount,
       case when w.type = 'deposit' and w.status = 'completed' then w.amount
            when w.type = 'withdrawal' and w.status not in ('failed', 'cancelled') then -w.amount
            else 0 end as effect,
       initcap(w.status) as status, w.message, w.id as wallet_id, null::bigint as trade_id
from public.wallet_transactions w
where w.user_id = auth.uid()
union all
select 'tr-' || m.id, m.created_at, m.id + 0.1,
       case m.type when 'buy' then 'Buy' else 'Sell' end,
       format('%s %s at %s', m.amount, m.name, private.money(m.price)),
       case m.type when 'buy' then -m.value else m.value end,
       case m.type when 'buy' then -m.value else m.value end,
       'Completed', null, null, m.id
from public.my_trades m
union all
select 'fee-' || m.id, m.created_at, m.id + 0.2, 'Trade Fee',
       format(case when m.fee < 0 then 'Maker rebate on the %s of %s %s' else 'On the %s of %s %s' end, m.type, m.amount, m.name),
       -m.fee, -m.fee, 'Completed', null, null, m.id
from public.my_trades m
where m.fee <> 0
union all
select 'ipo-' || tr.id, tr.created_at, tr.id + 0.1, 'Sell',
       format('Offering: %s %s at %s', tr.amount, t.name, private.money(tr.price)),
       tr.value, tr.value, 'Completed', null, null, tr.id
from public.trades tr join public.tokens t on t.id = tr.token_id
where tr.proceeds_to = auth.uid()
union all
select 'ipofee-' || tr.id, tr.created_at, tr.id + 0.2, 'Trade Fee',
       format('On the offering sale of %s %s', tr.amount, t.name), -tr.seller_fee, -tr.seller_fee, 'Completed', null, null, tr.id
from public.trades tr join public.tokens t on t.id = tr.token_id
where tr.proceeds_to = auth.uid() and tr.seller_fee > 0
union all
select 'share-' || tr.id, tr.created_at, tr.id + 0.3, 'Fee Share',
       format('Your share of the fees on %s %s at %s', tr.amount, t.name, private.money(tr.price)),
       tr.creator_share, tr.creator_share, 'Completed', null, null, tr.id
from public.trades tr join public.tokens t on t.id = tr.token_id
where tr.creator_id = auth.uid() and tr.creator_share > 0;
revoke all on private.wallet_moves from public;
grant select on private.wallet_moves to authenticated;

-- The caller's cash movements in order, with the running balance: the sum of the effects so far,
-- so the last one (the highest `position`) equals the balance.
create view public.wallet_history with (security_invoker = true) as
select id, type, description, amount, effect, status, message, wallet_id, trade_id, created_at,
       sum(effect) over running as balance,
       row_number() over running as position
from private.wallet_moves
window running as (order by created_at, type in ('Trade Fee', 'Fee Share'), seq, id rows unbounded preceding);
revoke all on public.wallet_history from anon;

-- Every wallet movement comes from a wallet transaction or a trade, so the p_n-th newest movement
-- (p_after null), or the p_n-th after p_after, is no further than the p_n-th such row: this finds
-- that row's time, each source on its own index and read no further than p_n rows. Null when
-- there are fewer. The wallet reads its newest movements, and the export its next ones, up to it.
create function private.nth_wallet_time(p_user uuid, p_n integer, p_after timestamptz default null)
returns timestamptz language plpgsql stable security invoker set search_path = '' as $$
begin
  if p_after is null then
    return (select x.at from (
      (select w.created_at as at from public.wallet_transactions w where w.user_id = p_user order by w.created_at desc limit p_n)
      union all (select t.created_at from public.trades t where t.buyer_id = p_user order by t.created_at desc limit p_n)
      union all (select t.created_at from public.trades t where t.seller_id = p_user order by t.created_at desc limit p_n)
      union all (select t.created_at from public.trades t where t.proceeds_to = p_user order by t.created_at desc limit p_n)
      union all (select t.created_at from public.trades t where t.creator_id = p_user and t.creator_share > 0
                 order by t.created_at desc limit p_n)
    ) x order by x.at desc offset p_n - 1 limit 1);
  end if;
  return (select x.at from (
    (select w.created_at as at from public.wallet_transactions w where w.user_id = p_user and w.created_at > p_after
     order by w.created_at limit p_n)
    union all (select t.created_at from public.trades t where t.buyer_id = p_user and t.created_at > p_after
               order by t.created_at limit p_n)
    union all (select t.created_at from public.trades t where t.seller_id = p_user and t.created_at > p_after
               order by t.created_at limit p_n)
    union all (select t.created_at from public.trades t where t.proceeds_to = p_user and t.created_at > p_after
               order by t.created_at limit p_n)
    union all (select t.created_at from public.trades t where t.creator_id = p_user and t.creator_share > 0
               and t.created_at > p_after order by t.created_at limit p_n)
  ) x order by x.at offset p_n - 1 limit 1);
end $$;
revoke execute on function private.nth_wallet_time(uuid, integer, timestamp with time zone) from public;
grant execute on function private.nth_wallet_time(uuid, integer, timestamp with time zone) to authenticated;

-- The caller's newest cash movements, newest first, as the wallet opens on them (p_limit, at most
-- 500), each with the balance after it; or the newest of one kind (p_kind). A long history is
-- neither read nor worded to show its end: the newest p_limit movements are no older than
-- private.nth_wallet_time's, and the balance after a movement is the cash now less the movements
-- after it. One kind's newest can lie further back: the window back from now grows fourfold until
-- it holds p_limit of them or the whole history, so it reads at most a few times the movements
-- since the oldest it shows, which the balances need read anyway.
create function public.recent_wallet_history(p_kind text default null, p_limit integer default 500)
returns table (id text, type text, description text, amount numeric, effect numeric, status text, message text,
               wallet_id bigint, trade_id bigint, created_at timestamptz, balance numeric)
language plpgsql stable security invoker set search_path = '' as $$
declare
  me uuid := (select auth.uid());
  n integer := least(greatest(coalesce(p_limit, 500), 1), 500);
  since timestamptz := private.nth_wallet_time(me, n);
  reach integer := n;
begin
  while p_kind is not null and since is not null
        and (select count(*) from private.wallet_moves m where m.created_at >= since and m.type = p_kind) < n loop
    reach := reach * 4;
    since := private.nth_wallet_time(me, reach);
  end loop;
  return query
  with recent as (
    select m.*,
           -- Ordered as wallet_history: this movement and those before it since `since`, and all of them.
           sum(m.effect) over (order by m.created_at, m.type in ('Trade Fee', 'Fee Share'), m.seq, m.id rows unbounded preceding) as upto,
           sum(m.effect) over () as total
    from private.wallet_moves m
    where m.created_at >= coalesce(since, '-infinity')
  )
  select r.id, r.type, r.description, r.amount, r.effect, r.status, r.message, r.wallet_id, r.trade_id, r.created_at,
         coalesce((select c.available + c.reserved from public.cash_accounts c where c.user_id = me), 0) - r.total + r.upto
  from recent r
  where p_kind is null or r.type = p_kind
  order by r.created_at desc, r.type in ('Trade Fee', 'Fee Share') desc, r.seq desc, r.id desc
  limit n;
end $$;
revoke execute on function public.recent_wallet_history(text, integer) from public, anon;
grant execute on function public.recent_wallet_history(text, integer) to authenticated;

-- The caller's cash movements after one, oldest first, as wallet_history orders them (p_limit, at
-- most 1,000), each with the balance after it and its place in that order (created_at, type, seq,
-- id): the export reads the whole history this way, a page at a time, each page from the last
-- row of the one before (p_after_*), and the balance goes on from that row's (p_balance; 0 before
-- the first movement). Each page reads only its own movements (up to private.nth_wallet_time's),
-- so the whole export reads the history once. The balance is the caller's own figure, carried as
-- given: it moves nothing.
create function public.wallet_history_after(
  p_after_at timestamptz default null, p_after_type text default null, p_after_seq numeric default null,
  p_after_id text default null, p_balance numeric default 0, p_limit integer default 1000
) returns table (id text, type text, description text, amount numeric, effect numeric, status text, message text,
                 wallet_id bigint, trade_id bigint, created_at timestamptz, balance numeric, seq numeric)
language plpgsql stable security invoker set search_path = '' as $$
declare
  me uuid := (select auth.uid());
  n integer := least(greatest(coalesce(p_limit, 1000), 1), 1000);
  since timestamptz := coalesce(p_after_at, '-infinity');
  -- Every movement after the cursor, up to the n-th next source row's time: at least n, or all.
  until timestamptz := private.nth_wallet_time(me, n, since);
begin
  if p_after_at is not null and (p_after_type is null or p_after_seq is null or p_after_id is null) then
    raise exception 'A page after a movement names its date, type, seq and id.' using errcode = '22023';
  end if;
  return query
  select m.id, m.type, m.description, m.amount, m.effect, m.status, m.message, m.wallet_id, m.trade_id, m.created_at,
         coalesce(p_balance, 0) + sum(m.effect) over (order by m.created_at, m.type in ('Trade Fee', 'Fee Share'), m.seq, m.id
                                                       rows unbounded preceding),
         m.seq
  from private.wallet_moves m
  where m.created_at >= since and m.created_at <= coalesce(until, 'infinity')
    and (p_after_at is null
         or (m.created_at, m.type in ('Trade Fee', 'Fee Share'), m.seq, m.id)
            > (p_after_at, p_after_type in ('Trade Fee', 'Fee Share'), p_after_seq, p_after_id))
  order by m.created_at, m.type in ('Trade Fee', 'Fee Share'), m.seq, m.id
  limit n;
end $$;
revoke execute on function public.wallet_history_after(timestamp with time zone, text, numeric, text, numeric, integer) from public, anon;
grant execute on function public.wallet_history_after(timestamp with time zone, text, numeric, text, numeric, integer) to authenticated;
