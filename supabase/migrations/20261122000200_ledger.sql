-- The ledger: the only code that moves money and tokens. Every movement keeps the invariants
--   sum(available + reserved) + sum(fees) = sum(deposits) - sum(withdrawals)
--   per token: sum(holdings.amount) + unissued = total_supply
-- and the check constraints make a negative balance or holding impossible.

-- Cash moved by the ledger is a positive number of cents.
create or replace function private.check_cents(p_amount numeric, what text) returns void
language plpgsql immutable as $$
begin
  if p_amount is null or p_amount <= 0 or p_amount <> round(p_amount, 2) then
    raise exception 'A % must be a positive amount in cents.', what using errcode = '22023';
  end if;
end $$;

create or replace function private.record_deposit(p_user uuid, p_amount numeric, p_at timestamptz default now())
returns void language plpgsql security definer set search_path = '' as $$
begin
  perform private.check_cents(p_amount, 'deposit');
  update public.cash_accounts set available = available + p_amount where user_id = p_user;
  if not found then raise exception 'No cash account for this user.' using errcode = 'P0001'; end if;
  insert into public.wallet_transactions (user_id, type, amount, created_at) values (p_user, 'deposit', p_amount, p_at);
end $$;

create or replace function private.record_withdrawal(p_user uuid, p_amount numeric, p_at timestamptz default now())
returns void language plpgsql security definer set search_path = '' as $$
begin
  perform private.check_cents(p_amount, 'withdrawal');
  update public.cash_accounts set available = available - p_amount where user_id = p_user and available >= p_amount;
  if not found then raise exception 'Insufficient funds for this withdrawal.' using errcode = 'P0001'; end if;
  insert into public.wallet_transactions (user_id, type, amount, created_at) values (p_user, 'withdrawal', p_amount, p_at);
end $$;

-- Tokens leave the unissued pool into an account (a person receiving their own tokens).
create or replace function private.issue_tokens(p_token uuid, p_user uuid, p_amount bigint)
returns void language plpgsql security definer set search_path = '' as $$
declare
  held bigint;
  supply bigint;
begin
  select total_supply into supply from public.tokens where id = p_token for update;
  select coalesce(sum(amount), 0) into held from public.holdings where token_id = p_token;
  if p_amount <= 0 or held + p_amount > supply then
    raise exception 'Cannot issue % tokens: only % remain unissued.', p_amount, supply - held using errcode = 'P0001';
  end if;
  insert into public.holdings (user_id, token_id, amount) values (p_user, p_token, p_amount)
  on conflict (user_id, token_id) do update set amount = public.holdings.amount + excluded.amount;
end $$;

-- Puts a limit order on the book without matching it, reserving what it may spend: cash
-- (value + fee) for a buy, tokens for a sell. Used by the seed and to list a token's offering.
create or replace function private.rest_order(
  p_user uuid, p_token uuid, p_side text, p_price numeric, p_amount bigint, p_at timestamptz default now()
) returns bigint language plpgsql security definer set search_path = '' as $$
declare
  order_id bigint;
  cost numeric := private.buy_cost(p_price, p_amount, private.fee_bps());
begin
  if p_side = 'buy' then
    update public.cash_accounts set available = available - cost, reserved = reserved + cost
     where user_id = p_user and available >= cost;
    if not found then raise exception 'Insufficient funds: this order needs %.', cost using errcode = 'P0001'; end if;
  else
    update public.holdings set reserved = reserved + p_amount
     where user_id = p_user and token_id = p_token and amount - reserved >= p_amount;
    if not found then raise exception 'You do not hold enough tokens for this order.' using errcode = 'P0001'; end if;
  end if;
  insert into public.orders (user_id, token_id, side, type, price, amount, reserved, created_at)
  values (p_user, p_token, p_side, 'limit', p_price, p_amount, case when p_side = 'buy' then cost else 0 end, p_at)
  returning id into order_id;
  return order_id;
end $$;

revoke all on all functions in schema private from public, anon, authenticated;
