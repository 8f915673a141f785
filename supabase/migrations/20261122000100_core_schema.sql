-- Core entities of the reputation exchange. Money is numeric(14,2) dollars; token amounts are
-- whole numbers. Prices, market caps, 24h change, volume and holder counts are derived from trades
-- and holdings (kept up to date in private.token_stats by the market stats migration).

create schema if not exists private;
revoke all on schema private from public;

-- One row per account, created by a trigger when an auth user is created.
create table public.profiles (
  id uuid primary key references auth.users (id) on delete cascade,
  username text not null unique check (char_length(username) between 2 and 30 and username ~ '^[A-Za-z0-9_.-]+$'),
  full_name text not null check (char_length(full_name) between 1 and 80),
  bio text not null default '' check (char_length(bio) <= 500),
  location text not null default '' check (char_length(location) <= 80),
  avatar_url text,
  cover_url text,
  role text not null default 'user' check (role in ('user', 'admin')),
  status text not null default 'active' check (status in ('active', 'suspended')),
  verified boolean not null default false,
  followers integer not null default 0 check (followers >= 0),
  following integer not null default 0 check (following >= 0),
  engagement_rate numeric(5, 2) not null default 0 check (engagement_rate between 0 and 100),
  created_at timestamptz not null default now()
);

-- A tradable reputation token: a person or brand. A token may belong to a user's profile.
create table public.tokens (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid unique references public.profiles (id) on delete set null,
  name text not null check (char_length(name) between 1 and 80),
  username text not null unique,
  category text not null check (char_length(category) between 1 and 40),
  reputation_score numeric(5, 2) not null check (reputation_score between 0 and 100),
  total_supply bigint not null check (total_supply > 0),
  -- The price before the first trade; after it, the last trade sets the price.
  issue_price numeric(12, 2) not null check (issue_price > 0),
  avatar_url text,
  verified boolean not null default false,
  created_at timestamptz not null default now()
);
create index tokens_category_idx on public.tokens (category);

-- Cash of an account. Reserved cash backs the account's resting buy orders.
create table public.cash_accounts (
  user_id uuid primary key references public.profiles (id) on delete cascade,
  available numeric(14, 2) not null default 0 check (available >= 0),
  reserved numeric(14, 2) not null default 0 check (reserved >= 0)
);

-- Tokens held by an account. Reserved tokens back the account's resting sell orders.
create table public.holdings (
  user_id uuid not null references public.profiles (id) on delete cascade,
  token_id uuid not null references public.tokens (id) on delete cascade,
  amount bigint not null default 0 check (amount >= 0),
  reserved bigint not null default 0 check (reserved >= 0 and reserved <= amount),
  primary key (user_id, token_id)
);
create index holdings_token_idx on public.holdings (token_id) where amount > 0;

create table public.orders (
  id bigint generated always as identity primary key,
  user_id uuid not null references public.profiles (id) on delete cascade,
  token_id uuid not null references public.tokens (id) on delete cascade,
  side text not null check (side in ('buy', 'sell')),
  type text not null check (type in ('market', 'limit')),
  price numeric(12, 2) check (price > 0),
  amount bigint not null check (amount > 0),
  filled bigint not null default 0 check (filled >= 0 and filled <= amount),
  -- Cash still held back for a resting buy order (value + fee of what is left, at its limit).
  reserved numeric(14, 2) not null default 0 check (reserved >= 0),
  status text not null default 'open' check (status in ('open', 'filled', 'cancelled')),
  created_at timestamptz not null default now(),
  check ((type = 'limit') = (price is not null))
);
create index orders_book_idx on public.orders (token_id, side, price, created_at) where status = 'open';
create index orders_user_idx on public.orders (user_id, created_at desc);

-- A trade's value: price x tokens, rounded half up to the cent. Its one definition, read by the
-- trades' generated column and by the engine before a trade exists (an order's cost, a fill).
create function private.trade_value(price numeric, amount numeric) returns numeric
language sql immutable parallel safe as $$ select round(price * amount, 2) $$;

-- Every fill. The buyer pays value + 2% fee; the seller receives value - 2% fee; both fees are
-- the exchange's revenue, recorded here and summed for reports (no hot 'fees' row).
create table public.trades (
  id bigint generated always as identity primary key,
  token_id uuid not null references public.tokens (id) on delete cascade,
  buy_order_id bigint references public.orders (id),
  sell_order_id bigint references public.orders (id),
  buyer_id uuid not null references public.profiles (id),
  seller_id uuid not null references public.profiles (id),
  price numeric(12, 2) not null check (price > 0),
  amount bigint not null check (amount > 0),
  value numeric generated always as (private.trade_value(price, amount)) stored,
  taker_side text not null check (taker_side in ('buy', 'sell')),
  buyer_fee numeric(14, 2) not null check (buyer_fee >= 0),
  seller_fee numeric(14, 2) not null check (seller_fee >= 0),
  created_at timestamptz not null default now(),
  check (buyer_id <> seller_id)
);
create index trades_token_time_idx on public.trades (token_id, created_at desc, id desc);
create index trades_buyer_idx on public.trades (buyer_id, created_at desc);
create index trades_seller_idx on public.trades (seller_id, created_at desc);

-- Money in and out of the exchange. Trade fees are not repeated here: they live on trades.
create table public.wallet_transactions (
  id bigint generated always as identity primary key,
  user_id uuid not null references public.profiles (id) on delete cascade,
  type text not null check (type in ('deposit', 'withdrawal')),
  amount numeric(14, 2) not null check (amount > 0),
  status text not null default 'completed' check (status in ('pending', 'completed', 'failed')),
  created_at timestamptz not null default now()
);
create index wallet_transactions_user_idx on public.wallet_transactions (user_id, created_at desc);

create table public.watchlist (
  user_id uuid not null references public.profiles (id) on delete cascade,
  token_id uuid not null references public.tokens (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (user_id, token_id)
);

create table public.reputation_history (
  token_id uuid not null references public.tokens (id) on delete cascade,
  month date not null check (extract(day from month) = 1),
  score numeric(5, 2) not null check (score between 0 and 100),
  primary key (token_id, month)
);

create table public.achievements (
  id bigint generated always as identity primary key,
  profile_id uuid not null references public.profiles (id) on delete cascade,
  title text not null,
  description text not null,
  achieved_on date not null
);
create index achievements_profile_idx on public.achievements (profile_id, achieved_on desc);

-- A new auth user gets a profile and an empty cash account. The username comes from the
-- sign-up's options.data (spec section 7: username, full_name).
create or replace function private.handle_new_user() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  wanted text := coalesce(nullif(trim(new.raw_user_meta_data ->> 'username'), ''), split_part(new.email, '@', 1));
begin
  if exists (select 1 from public.profiles where lower(username) = lower(wanted)) then
    raise exception 'The username "%" is already taken.', wanted using errcode = 'P0001';
  end if;
  insert into public.profiles (id, username, full_name)
  values (new.id, wanted, coalesce(nullif(trim(new.raw_user_meta_data ->> 'full_name'), ''), wanted));
  insert into public.cash_accounts (user_id) values (new.id);
  return new;
end $$;

create trigger on_auth_user_created after insert on auth.users
  for each row execute function private.handle_new_user();

-- A suspended account cannot sign in: suspension bans the auth user, reactivation lifts it.
create or replace function private.sync_suspension() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  update auth.users
     set banned_until = case when new.status = 'suspended' then 'infinity'::timestamptz end
   where id = new.id;
  return new;
end $$;

create trigger on_profile_status_changed after update of status on public.profiles
  for each row when (old.status is distinct from new.status) execute function private.sync_suspension();
