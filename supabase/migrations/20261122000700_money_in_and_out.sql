-- Money in and out through a payment provider, and every cash movement in one history.
--
-- A deposit or a withdrawal is a row of wallet_transactions with a provider reference. The browser
-- only asks (create_deposit, create_withdrawal, cancel_withdrawal); the provider's answer is applied
-- by settle_payment, exactly once per reference, in the transaction that credits or releases the
-- cash. The local server's payment worker (supabase/server/payments) plays the provider; on a
-- hosted project a webhook handler with the service-role key calls settle_payment instead.
--
-- Lifecycles:
--   deposit     pending -> processing -> completed | failed        (credited only when completed)
--   withdrawal  pending -> processing -> completed | failed        (held from `available` at request;
--               pending -> cancelled                                 failed or cancelled gives it back)
--
-- The cash invariant becomes
--   sum(available + reserved + pending_withdrawal) + fees = completed deposits - completed withdrawals

-- The exchange's settings, one row: read by the engine on every call and by the browser (the
-- order panel's fee, the wallet's limits); changed only by admin_update_settings, audited.
create table public.exchange_settings (
  id boolean primary key default true check (id),
  -- The trading fee on each side of a trade, in basis points (200 = 2%, spec section 9).
  fee_bps integer not null default 200 check (fee_bps between 0 and 1000),
  min_order_amount bigint not null default 1 check (min_order_amount >= 1),
  -- The highest limit price anyone may ask or bid.
  max_price numeric(12, 2) not null default 1000000 check (max_price > 0),
  max_open_orders integer not null default 200 check (max_open_orders between 1 and 10000),
  trading_halted boolean not null default false,
  halt_reason text check (char_length(halt_reason) <= 200),
  deposit_min numeric(14, 2) not null default 10 check (deposit_min > 0),
  deposit_max numeric(14, 2) not null default 10000 check (deposit_max >= deposit_min),
  withdrawal_min numeric(14, 2) not null default 10 check (withdrawal_min > 0),
  withdrawal_daily_limit numeric(14, 2) not null default 5000 check (withdrawal_daily_limit >= withdrawal_min),
  updated_at timestamptz not null default now()
);
insert into public.exchange_settings default values;
alter table public.exchange_settings enable row level security;
create policy "settings are visible to signed-in users" on public.exchange_settings for select to authenticated using (true);
revoke all on public.exchange_settings from anon;
revoke insert, update, delete, truncate on public.exchange_settings from authenticated;

-- A change of settings reaches open screens at once (the order panel's fee).
create trigger exchange_settings_notify after update on public.exchange_settings
  for each row execute function private.notify_realtime();

-- The fee follows the setting; each trade records the rate it was charged at.
create or replace function private.fee_bps() returns integer
language sql stable security definer set search_path = '' as $$ select fee_bps from public.exchange_settings $$;
create or replace function private.fee(value numeric, bps integer) returns numeric
language sql immutable as $$ select round(value * bps / 10000.0, 2) $$;
create or replace function private.fee(value numeric) returns numeric
language sql stable as $$ select private.fee(value, private.fee_bps()) $$;
-- What buying `amount` at `price` costs: its value and the fee on it at `bps`.
create or replace function private.buy_cost(price numeric, amount numeric, bps integer) returns numeric
language sql immutable as $$ select private.trade_value(price, amount) + private.fee(private.trade_value(price, amount), bps) $$;
alter table public.trades add column fee_bps integer not null default 200 check (fee_bps between 0 and 1000);
alter table public.trades alter column fee_bps drop default;

alter table public.cash_accounts
  add column pending_withdrawal numeric(14, 2) not null default 0 check (pending_withdrawal >= 0);

-- Where a user's withdrawals go. Only the last four digits of the account are kept.
create table public.payout_destinations (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.profiles (id) on delete cascade,
  label text not null check (char_length(label) between 1 and 40),
  account_last4 text not null check (account_last4 ~ '^[0-9]{4}$'),
  created_at timestamptz not null default now()
);
create index payout_destinations_user_idx on public.payout_destinations (user_id);
alter table public.payout_destinations enable row level security;
create policy "own payout destinations" on public.payout_destinations for select to authenticated using (user_id = auth.uid() or private.is_admin());
revoke all on public.payout_destinations from anon;
revoke insert, update, delete, truncate on public.payout_destinations from authenticated;

alter table public.wallet_transactions drop constraint wallet_transactions_status_check;
alter table public.wallet_transactions
  add constraint wallet_transactions_status_check check (status in ('pending', 'processing', 'completed', 'failed', 'cancelled')),
  add column reference uuid not null default gen_random_uuid() unique,
  add column idempotency_key text check (char_length(idempotency_key) between 8 and 100),
  add column provider text not null default 'ledger',
  -- What the person sees of the card or the account: 'Card •••• 4242'.
  add column method text,
  add column destination_id uuid references public.payout_destinations (id),
  -- The provider's words when it declines or fails.
  add column message text,
  add column updated_at timestamptz not null default now();
create unique index wallet_transactions_idempotency_idx on public.wallet_transactions (user_id, idempotency_key) where idempotency_key is not null;
create index wallet_transactions_open_idx on public.wallet_transactions (created_at) where status in ('pending', 'processing');

-- The owner of a deposit or withdrawal sees its status change live (realtime checks row-level security).
create trigger wallet_transactions_notify after insert or update on public.wallet_transactions
  for each row execute function private.notify_realtime();
select private.publish_realtime('public.wallet_transactions');

-- Raised for every refusal the person can fix; the message is shown as it is.
create or replace function private.refuse(message text) returns void
language plpgsql volatile as $$ begin raise exception '%', message using errcode = 'P0001'; end $$;

-- The caller, signed in and active.
create or replace function private.active_caller() returns uuid
language plpgsql stable security definer set search_path = '' as $$
declare
  uid uuid := auth.uid();
begin
  if uid is null then raise exception 'Sign in first.' using errcode = '42501'; end if;
  if exists (select 1 from public.profiles where id = uid and status <> 'active') then
    raise exception 'Your account is suspended.' using errcode = '42501';
  end if;
  return uid;
end $$;

-- An amount of money typed by a person: positive, in cents, within [lo, hi].
create or replace function private.check_amount(p_amount numeric, what text, lo numeric, hi numeric) returns void
language plpgsql immutable as $$
begin
  if p_amount is null or p_amount <= 0 then perform private.refuse(format('Enter a %s amount above $0.00.', what)); end if;
  if p_amount <> round(p_amount, 2) then perform private.refuse(format('A %s amount has at most two decimals.', what)); end if;
  if p_amount < lo then perform private.refuse(format('The minimum %s is %s.', what, private.money(lo))); end if;
  if p_amount > hi then perform private.refuse(format('The maximum %s is %s.', what, private.money(hi))); end if;
end $$;

create or replace function private.check_idempotency_key(p_key text) returns void
language plpgsql immutable as $$
begin
  if p_key is null or char_length(p_key) not between 8 and 100 then
    perform private.refuse('Each request needs an idempotency key of 8 to 100 characters.');
  end if;
end $$;

-- A request replayed with its idempotency key gets the first answer (null for a first request);
-- the same key for another request is refused, and so is a request without a valid key.
create or replace function private.replayed(p_user uuid, p_key text, p_type text, p_amount numeric) returns jsonb
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

create or replace function private.payment_json(w public.wallet_transactions) returns jsonb
language sql stable as $$
  select jsonb_build_object('id', w.id, 'reference', w.reference, 'type', w.type, 'amount', w.amount,
    'status', w.status, 'method', w.method, 'message', w.message, 'created_at', w.created_at)
$$;

-- Card numbers of the simulated rail: 12 to 19 digits passing the Luhn check. Only the last four
-- are kept; a real provider's browser SDK would send a payment-method token here instead.
create or replace function private.card_last4(p_card text) returns text
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

-- Money in: a pending deposit that the provider confirms or declines.
create or replace function public.create_deposit(p_amount numeric, p_card text, p_idempotency_key text) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.active_caller();
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

create or replace function public.add_payout_destination(p_label text, p_account_number text) returns uuid
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.active_caller();
  digits text := regexp_replace(coalesce(p_account_number, ''), '[\s-]', '', 'g');
  id uuid;
begin
  if coalesce(trim(p_label), '') = '' or char_length(trim(p_label)) > 40 then
    perform private.refuse('Name the account in 1 to 40 characters.');
  end if;
  if digits !~ '^[0-9]{6,17}$' then perform private.refuse('Enter an account number of 6 to 17 digits.'); end if;
  if (select count(*) from public.payout_destinations where user_id = uid) >= 5 then
    perform private.refuse('You can save up to 5 accounts.');
  end if;
  insert into public.payout_destinations (user_id, label, account_last4) values (uid, trim(p_label), right(digits, 4)) returning payout_destinations.id into id;
  return id;
end $$;

-- Money out: held from available at once, paid out later by the provider.
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

-- Gives back the funds of one's own withdrawal that the provider has not taken up yet.
create or replace function public.cancel_withdrawal(p_id bigint) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.active_caller();
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

-- The provider's side. claim_payment hands the next request due to the worker (marking it
-- processing); a request left processing by a crash is handed out again after `p_lease`.
create or replace function public.claim_payment(p_payout_after interval, p_lease interval)
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

-- Applies the provider's outcome once: a replay of the same confirmation changes nothing.
create or replace function public.settle_payment(p_reference uuid, p_succeeded boolean, p_message text default null) returns jsonb
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

-- The wallet history of every cash movement is in the token offering migration (it includes an
-- offering's proceeds).

grant execute on function private.money(numeric) to authenticated;

revoke execute on function public.create_deposit(numeric, text, text), public.add_payout_destination(text, text),
  public.create_withdrawal(numeric, uuid, text), public.cancel_withdrawal(bigint),
  public.claim_payment(interval, interval), public.settle_payment(uuid, boolean, text) from public, anon;
grant execute on function public.create_deposit(numeric, text, text), public.add_payout_destination(text, text),
  public.create_withdrawal(numeric, uuid, text), public.cancel_withdrawal(bigint) to authenticated;
-- Only the provider's side (the local worker, or a hosted webhook with the service-role key).
revoke execute on function public.claim_payment(interval, interval), public.settle_payment(uuid, boolean, text) from authenticated;
grant execute on function public.claim_payment(interval, interval), public.settle_payment(uuid, boolean, text) to service_role;
revoke all on function private.fee_bps(), private.fee(numeric, integer), private.fee(numeric), private.buy_cost(numeric, numeric, integer), private.refuse(text), private.active_caller(), private.check_amount(numeric, text, numeric, numeric),
  private.check_idempotency_key(text), private.replayed(uuid, text, text, numeric), private.payment_json(public.wallet_transactions),
  private.card_last4(text) from public;
