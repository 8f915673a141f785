-- The baseline: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

-- Core: what every domain of RepX builds on.
--
-- The database is described here, in supabase/schemas, one file per domain, applied in the order
-- supabase/config.toml lists them ([db.migrations] schema_paths). Each table, function, view,
-- trigger, policy and grant has its one definition in its domain's file. supabase/migrations moves
-- deployed databases forward; its files are derived from changes to these (docs/database.md).
--
-- Conventions, so that a rule reads the same wherever it is:
--   * Money is numeric(14,2) dollars and prices numeric(12,2); token amounts are whole (bigint).
--   * The browser reads through row-level security and acts through functions. It writes no table
--     directly, but for a person's own profile fields and watchlist.
--   * A function that acts is `security definer` with an empty search_path: every name in it is
--     schema-qualified, so no caller's search path can change what it reads.
--   * A refusal the person can fix is raised in words the browser shows as they are: SQLSTATE
--     P0001, or 22023 for malformed input and 42501 for a missing right.
--   * Grants follow each object. The private schema holds what no API role calls directly.
--   * Reference rows the schema cannot work without (the settings row, the categories, the offering
--     account, the avatars bucket) are inserted beside their tables.

create schema if not exists private;
revoke all on schema private from public;
-- Signed-in readers reach private helpers that views and policies call as them (private.is_admin).
grant usage on schema private to authenticated;

-- Trigram indexes answer the market's search (market.sql); available on Supabase and in PGlite.
create extension if not exists pg_trgm with schema extensions;

-- The exchange's settings, one row: read by the engine on every call and by the browser (the
-- order panel's fee, the wallet's limits, the market band); changed only by admin_update_settings
-- (admin.sql), which audits every change.
create table public.exchange_settings (
  id boolean primary key default true check (id),
  -- The trading fee on each side of a trade, in basis points (200 = 2%, spec section 9): the taker's,
  -- paid by the order that trades at once. The maker's, paid by the resting order it meets, may be
  -- lower, zero or a rebate (negative), never more than the taker's nor a rebate beyond it, so a
  -- trade never pays out more than it takes (matching.sql, settle_fills).
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
  updated_at timestamptz not null default now(),
  -- A new token's issue on approval (tokens.sql): its supply, the person's founder allocation
  -- (20%), and the price its offering is sold at.
  token_supply bigint not null default 1000000 check (token_supply between 1000 and 1000000000),
  token_founder_bps integer not null default 2000 check (token_founder_bps between 0 and 10000),
  token_issue_price numeric(12, 2) not null default 10 check (token_issue_price > 0 and token_issue_price <= 1000000),
  -- How long a newly added bank account waits before a withdrawal may go to it (money.sql); the
  -- Withdraw dialog reads it to say so.
  new_bank_account_hold_hours integer not null default 24 check (new_bank_account_hold_hours between 0 and 168),
  -- How far from the last price a market order may trade (matching.sql, match_order): 20%.
  market_band_bps integer not null default 2000 check (market_band_bps between 100 and 5000),
  -- Auto-Invest (auto_invest.sql): what one run of a plan may buy, and how many plans a person keeps.
  auto_invest_min numeric(14, 2) not null default 10 check (auto_invest_min > 0),
  auto_invest_max numeric(14, 2) not null default 10000 check (auto_invest_max >= auto_invest_min),
  auto_invest_max_plans integer not null default 10 check (auto_invest_max_plans between 1 and 100),
  -- The person behind a token receives this share of the exchange's fees on every trade in it
  -- (matching.sql, settle_fills): 2000 = 20%.
  creator_fee_share_bps integer not null default 2000 check (creator_fee_share_bps between 0 and 10000),
  -- A new token's founder allocation vests over these months, none of it before the cliff (tokens.sql).
  founder_vesting_months integer not null default 24 check (founder_vesting_months between 0 and 120),
  founder_cliff_months integer not null default 3 check (founder_cliff_months between 0 and 120),
  -- A new token's offering is a batch auction (offerings.sql): its subscription window, and the most
  -- one account may bid for, as a share of the offering (200 = 2%).
  offering_window_minutes integer not null default 1440 check (offering_window_minutes between 1 and 10080),
  offering_cap_bps integer not null default 200 check (offering_cap_bps between 1 and 10000),
  -- Whether an administrator must have an authenticator app turned on to act as one
  -- (accounts.sql, private.is_admin). Off in the seed, whose demo admin signs in with a password.
  admins_need_two_step boolean not null default false,
  -- The maker's fee (see fee_bps), in basis points; negative: a rebate.
  maker_fee_bps integer not null default 200,
  constraint maker_fee_within_taker_fee check (maker_fee_bps between -fee_bps and fee_bps)
);
comment on column public.exchange_settings.new_bank_account_hold_hours is 'Hours a newly added bank account waits before it may receive a withdrawal.';
alter table public.exchange_settings enable row level security;
create policy "settings are visible to signed-in users" on public.exchange_settings for select to authenticated using (true);
revoke all on public.exchange_settings from anon;
revoke insert, update, delete, truncate on public.exchange_settings from authenticated;

insert into public.exchange_settings default values;

-- Where the project is served from: the public address of its API, whose storage URLs a profile's
-- images must name (storage.sql). The local server writes it at every start; a hosted project sets
-- it once to https://<project-ref>.supabase.co (docs/operating.md). Until it is set, no profile
-- image is accepted.
create table private.deployment (
  id boolean primary key default true check (id),
  public_url text not null check (public_url ~ '^https?://[^/?#@]+$')
);

-- Raised for every refusal the person can fix; the message is shown as it is.
create function private.refuse(message text) returns void
language plpgsql volatile as $$ begin raise exception '%', message using errcode = 'P0001'; end $$;
revoke execute on function private.refuse(text) from public;

-- An admin's reason for an action on someone (kept in the audit log and often shown to them): 3 to
-- 500 characters once trimmed, or the action is refused in `p_refusal`'s words. The one home of
-- that rule.
create function private.require_reason(p_reason text, p_refusal text) returns void
language plpgsql immutable as $$
begin
  if char_length(trim(coalesce(p_reason, ''))) not between 3 and 500 then perform private.refuse(p_refusal); end if;
end $$;
revoke execute on function private.require_reason(text, text) from public;

-- A count of a token in messages, singular or plural: '1 Sarah Chen token', '1,200 Sarah Chen tokens'.
create function private.tokens_of(n numeric, token_name text) returns text
language sql immutable as $$
  select to_char(n, 'FM999,999,999,990') || ' ' || token_name || case when n = 1 then ' token' else ' tokens' end
$$;
revoke execute on function private.tokens_of(numeric, text) from public;

-- Money in messages: $30,600.00
create function private.money(n numeric) returns text
language sql immutable as $$ select '$' || to_char(n, 'FM999,999,999,990.00') $$;
revoke execute on function private.money(numeric) from public;
grant execute on function private.money(numeric) to authenticated;

-- '1 hour', '24 hours'.
create function private.hours(p interval) returns text
language sql immutable set search_path = '' as $$
  select (extract(epoch from p)::bigint / 3600)::text || case when extract(epoch from p) = 3600 then ' hour' else ' hours' end
$$;
revoke execute on function private.hours(interval) from public;

-- Accounts: a person's profile, who they are to the database (signed in, active, admin), and the
-- text they show to others.
--
-- One profile per auth user, made by a trigger when the user is created, with an empty cash
-- account; money.sql moves the cash. Profiles are public to signed-in users: traders look each other up. A
-- person edits only their own name, bio, location and images (a column grant and a policy).

create table public.profiles (
  id uuid primary key references auth.users (id) on delete cascade,
  username text not null unique check (char_length(username) between 2 and 30 and username ~ '^[A-Za-z0-9_.-]+$'),
  full_name text not null check (char_length(full_name) between 1 and 80),
  bio text not null default '' check (char_length(bio) <= 500),
  location text not null default '' check (char_length(location) <= 80),
  avatar_url text,
  cover_url text,
  -- 'system' is the offering account's (tokens.sql): nobody signs in to it.
  role text not null default 'user' check (role in ('user', 'admin', 'system')),
  status text not null default 'active' check (status in ('active', 'suspended')),
  verified boolean not null default false,
  -- Social Impact: kept by social.sql from the connected accounts (the seed's sample people carry
  -- the specification's figures); nobody writes them directly.
  followers integer not null default 0 check (followers >= 0),
  following integer not null default 0 check (following >= 0),
  engagement_rate numeric(5, 2) not null default 0 check (engagement_rate between 0 and 100),
  created_at timestamptz not null default now()
);
-- The admin's accounts table pages newest first (admin_list_users).
create index profiles_created_idx on public.profiles (created_at desc, id);
alter table public.profiles enable row level security;
create policy "profiles are visible to signed-in users" on public.profiles
  for select to authenticated using (true);
-- auth.uid() in a sub-select is evaluated once per statement, not once per row (Supabase's
-- advice for fast policies); every policy here is written so.
create policy "users edit their own profile" on public.profiles
  for update to authenticated using (id = (select auth.uid())) with check (id = (select auth.uid()));
revoke all on public.profiles from anon;
revoke insert, update, delete, truncate on public.profiles from authenticated;
grant update (full_name, bio, location, avatar_url, cover_url) on public.profiles to authenticated;

-- Who the caller is, as each function that acts asks it.

-- An admin is an active profile with the admin role, past the second step when the account has
-- one (sessions.sql). Policies call it in a sub-select, once per statement; it is PL/pgSQL so that
-- each connection plans it once (a SQL function with a SET clause is planned at every call before
-- PostgreSQL 18).
-- An administrator acts as one when active, past the second step, and, where the exchange asks it
-- of admins (exchange_settings.admins_need_two_step), with an authenticator app turned on.
create function private.is_admin() returns boolean
language plpgsql stable security definer set search_path = '' as $$
begin
  -- An admin's API key is not an admin: keys act only as a trader (api_keys.sql).
  if private.api_key() is not null
     or not exists (select 1 from public.profiles where id = auth.uid() and role = 'admin' and status = 'active') then
    return false;
  end if;
  return not private.second_step_due() and not private.admin_two_step_missing();
end $$;
grant execute on function private.is_admin() to authenticated;

-- Whether the exchange asks admins for two-step verification and the caller has no app turned on.
create function private.admin_two_step_missing() returns boolean
language plpgsql stable security definer set search_path = '' as $$
begin
  return (select e.admins_need_two_step from public.exchange_settings e) and not private.has_app(auth.uid());
end $$;
revoke execute on function private.admin_two_step_missing() from public;

create function private.require_admin() returns uuid
language plpgsql stable security definer set search_path = '' as $$
begin
  perform private.require_session('make an admin call');
  if not private.is_admin() then
    if private.admin_two_step_missing()
       and exists (select 1 from public.profiles where id = auth.uid() and role = 'admin' and status = 'active') then
      raise exception 'Administrators must use two-step verification: turn it on in Profile › Settings, then sign in at the admin page again.'
        using errcode = '42501', hint = 'admin_two_step_required';
    end if;
    raise exception 'Admin privileges required.' using errcode = '42501';
  end if;
  return auth.uid();
end $$;
revoke execute on function private.require_admin() from public;

-- Nothing, to an admin who may act as one; otherwise require_admin's refusal in its words. The
-- admin sign-in page and the admin area's guard ask it after reading the role.
create function public.admin_check() returns void
language plpgsql stable security definer set search_path = '' as $$
begin
  perform private.require_admin();
end $$;
revoke execute on function public.admin_check() from public, anon;

-- The caller of a function that moves money or changes an account: signed in, not suspended, and
-- past the second step.
create function private.active_caller() returns uuid
language plpgsql stable security definer set search_path = '' as $$
declare
  uid uuid := auth.uid();
begin
  if uid is null then raise exception 'Sign in first.' using errcode = '42501'; end if;
  if exists (select 1 from public.profiles where id = uid and status <> 'active') then
    raise exception 'Your account is suspended.' using errcode = '42501';
  end if;
  perform private.require_second_step();
  return uid;
end $$;
revoke execute on function private.active_caller() from public;

-- Cash of an account. `available` and `reserved` mean the same here and in holdings; cash has no
-- total of its own.
create table public.cash_accounts (
  user_id uuid primary key references public.profiles (id) on delete cascade,
  available numeric(14, 2) not null default 0 check (available >= 0),
  reserved numeric(14, 2) not null default 0 check (reserved >= 0),
  pending_withdrawal numeric(14, 2) not null default 0 check (pending_withdrawal >= 0)
);
comment on column public.cash_accounts.available is
  'Cash the owner may spend or withdraw now. Excludes reserved and pending_withdrawal.';
comment on column public.cash_accounts.reserved is
  'Cash held back by the owner''s resting buy orders (value + fee); released on cancel, spent on fill.';
comment on column public.cash_accounts.pending_withdrawal is
  'Cash held for the owner''s pending withdrawals; paid out, or back to available if cancelled or failed.';
alter table public.cash_accounts enable row level security;
create policy "own cash" on public.cash_accounts
  for select to authenticated using (user_id = (select auth.uid()) or (select private.is_admin()));
revoke all on public.cash_accounts from anon;
revoke insert, update, delete, truncate on public.cash_accounts from authenticated;

-- A new auth user gets a profile and an empty cash account. The username comes from the
-- sign-up's options.data (spec section 7: username, full_name).
create function private.handle_new_user() returns trigger
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
revoke execute on function private.handle_new_user() from public;
create trigger on_auth_user_created after insert on auth.users
  for each row execute function private.handle_new_user();

-- A suspended account cannot sign in: suspension bans the auth user, reactivation lifts it.
create function private.sync_suspension() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  update auth.users
     set banned_until = case when new.status = 'suspended' then 'infinity'::timestamptz end
   where id = new.id;
  return new;
end $$;
revoke execute on function private.sync_suspension() from public;
create trigger on_profile_status_changed after update of status on public.profiles
  for each row when (old.status is distinct from new.status) execute function private.sync_suspension();

-- Names and bios that other people read hold no control or invisible formatting characters. A
-- right-to-left override turns 'Alex<U+202E>areviR' into what reads as 'AlexRivera', and a
-- zero-width space or a direction mark makes a copy of an existing name that looks the same: ways
-- to pass as someone else on the market, or to an admin reviewing an application. Joiners (U+200C,
-- U+200D) stay: scripts and emoji need them.
--
-- Refuses, in words, control characters (a bio may have line breaks) and invisible formatting: the
-- Arabic letter mark, zero-width space, direction marks, embeddings, overrides and isolates,
-- invisible operators, the byte-order mark and interlinear annotation marks.
create function private.refuse_hidden_characters(p_text text, p_what text, p_lines boolean default false)
returns void language plpgsql immutable as $$
begin
  if p_text ~ (case when p_lines then '[\x01-\x09\x0b\x0c\x0e-\x1f' else '[\x01-\x1f' end
               || '\x7f-\x9f\u061c\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb]') then
    raise exception '% cannot hold control characters%or invisible formatting characters (such as a right-to-left override).',
      p_what, case when p_lines then ' (line breaks aside) ' else ' ' end using errcode = 'P0001';
  end if;
end $$;
revoke execute on function private.refuse_hidden_characters(text, text, boolean) from public;

-- The profile's checks say in words what its constraints only refuse (so the Edit dialog need not
-- restate them), and a name of spaces only is refused as blank. Only a field that changes is
-- checked, so older text does not block other edits.
create function private.check_profile_text() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'INSERT' or new.full_name is distinct from old.full_name then
    if char_length(btrim(new.full_name)) not between 1 and 80 then raise exception 'A name needs 1 to 80 characters.'; end if;
    perform private.refuse_hidden_characters(new.full_name, 'A name');
  end if;
  if tg_op = 'INSERT' or new.location is distinct from old.location then
    if char_length(new.location) > 80 then raise exception 'A location has at most 80 characters.'; end if;
    perform private.refuse_hidden_characters(new.location, 'A location');
  end if;
  if tg_op = 'INSERT' or new.bio is distinct from old.bio then
    if char_length(new.bio) > 500 then raise exception 'A bio has at most 500 characters.'; end if;
    perform private.refuse_hidden_characters(new.bio, 'A bio', true);
  end if;
  return new;
end $$;
revoke execute on function private.check_profile_text() from public;
create trigger check_profile_text before insert or update of full_name, location, bio on public.profiles
  for each row execute function private.check_profile_text();

-- Tokens and offerings: what is listed, who holds it, and how a person's own token comes to be.
--
-- A person applies for their own token; an admin approves or rejects. Approval issues the token in
-- one transaction: its supply, the person's founder allocation, and an offering of the rest at
-- the issue price, resting on the book as a sell order of the offering account. Each fill of the
-- offering pays the person (value - fee); the offering account only ever holds the unsold tokens.
-- The invariant per token: sum(holdings.amount) + unissued = total_supply.

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
  created_at timestamptz not null default now(),
  -- What the market's search matches (market.sql): one lower-cased column, so one trigram index
  -- answers a search of any of the three.
  search_text text generated always as (lower(name || E'\n' || username || E'\n' || category)) stored,
  -- An admin halts trading in one token, with a reason traders read (admin_set_token_halt).
  halt_reason text check (char_length(halt_reason) between 3 and 200),
  halted_at timestamptz,
  constraint tokens_halt_whole check ((halt_reason is null) = (halted_at is null))
);
comment on column public.tokens.search_text is
  'The name, username and category, lower-cased and joined by line breaks: what the market''s search matches (like ''%term%'').';
create index tokens_category_idx on public.tokens (category);
create index tokens_search_trgm_idx on public.tokens using gin (search_text extensions.gin_trgm_ops);
create index tokens_reputation_idx on public.tokens (reputation_score, id);
alter table public.tokens enable row level security;
create policy "tokens are visible to signed-in users" on public.tokens
  for select to authenticated using (true);
revoke all on public.tokens from anon;
revoke insert, update, delete, truncate on public.tokens from authenticated;

-- Tokens held by an account. Reserved tokens back the account's resting sell orders.
create table public.holdings (
  user_id uuid not null references public.profiles (id) on delete cascade,
  token_id uuid not null references public.tokens (id) on delete cascade,
  amount bigint not null default 0 check (amount >= 0),
  reserved bigint not null default 0 check (reserved >= 0 and reserved <= amount),
  primary key (user_id, token_id),
  -- A founder's tokens not vested yet (vesting_grants): held and counted, not for sale.
  locked bigint not null default 0 check (locked >= 0),
  -- Derived once, so the engine checks it and the trading screen shows it without restating it.
  available bigint generated always as (amount - reserved - locked) stored,
  check (reserved + locked <= amount)
);
-- `available` and `reserved` mean the same here and in cash_accounts: what the owner may sell
-- now, and what their resting orders hold back. Holdings has a total of its own; cash has none.
comment on column public.holdings.amount is
  'Tokens the owner holds in all, including those reserved by resting sell orders.';
comment on column public.holdings.reserved is
  'Tokens held back by the owner''s resting sell orders; part of amount, released on cancel.';
comment on column public.holdings.available is
  'Tokens the owner may sell now: amount - reserved - locked (generated).';
comment on column public.holdings.locked is
  'A founder''s tokens not vested yet (vesting_grants): part of amount, released on the schedule.';
-- All of a token's holders (the market's holder count, a token's reputation). Not partial on
-- amount > 0: a fill then changes the row in place (a heap-only update) instead of an index.
create index holdings_token_idx on public.holdings (token_id);
alter table public.holdings enable row level security;
create policy "own holdings" on public.holdings
  for select to authenticated using (user_id = (select auth.uid()) or (select private.is_admin()));
revoke all on public.holdings from anon;
revoke insert, update, delete, truncate on public.holdings from authenticated;

-- Tokens leave the unissued pool into an account (a person receiving their own tokens).
create function private.issue_tokens(p_token uuid, p_user uuid, p_amount bigint)
returns void language plpgsql security definer set search_path = '' as $$
declare
  held bigint;
  supply bigint;
begin
  select total_supply into supply from public.tokens where id = p_token for no key update;
  select coalesce(sum(amount), 0) into held from public.holdings where token_id = p_token;
  if p_amount <= 0 or held + p_amount > supply then
    raise exception 'Cannot issue % tokens: only % remain unissued.', p_amount, supply - held using errcode = 'P0001';
  end if;
  insert into public.holdings (user_id, token_id, amount) values (p_user, p_token, p_amount)
  on conflict (user_id, token_id) do update set amount = public.holdings.amount + excluded.amount;
end $$;
revoke execute on function private.issue_tokens(uuid, uuid, bigint) from public;

-- A founder's allocation vests: none before the cliff, then released linearly from the token's
-- approval to the end of the period (exchange_settings.founder_vesting_months and
-- founder_cliff_months, 24 and 3). Unvested tokens are holdings.locked: counted as held, not for
-- sale; the engine refuses the excess in words. private.release_vesting (the scheduler, every
-- minute; pg_cron on a hosted project) lowers `locked` as time passes.
create table public.vesting_grants (
  token_id uuid primary key references public.tokens (id) on delete cascade,
  user_id uuid not null references public.profiles (id) on delete cascade,
  total bigint not null check (total > 0),
  starts_at timestamptz not null default now(),
  cliff_months integer not null check (cliff_months >= 0),
  months integer not null check (months >= cliff_months)
);
-- A vesting schedule is public: investors weigh what the person may sell, and when.
alter table public.vesting_grants enable row level security;
create policy "vesting schedules are visible to signed-in users" on public.vesting_grants
  for select to authenticated using (true);
revoke all on public.vesting_grants from anon;
revoke insert, update, delete, truncate on public.vesting_grants from authenticated;

-- How much of a grant has vested at p_at.
create function private.vested(g public.vesting_grants, p_at timestamptz) returns bigint
language sql stable set search_path = '' as $$
  select case when g.months = 0 or p_at >= g.starts_at + make_interval(months => g.months) then g.total
              when p_at < g.starts_at + make_interval(months => g.cliff_months) then 0
              else floor(g.total * extract(epoch from p_at - g.starts_at)
                         / extract(epoch from (g.starts_at + make_interval(months => g.months)) - g.starts_at))::bigint end
$$;
revoke execute on function private.vested(public.vesting_grants, timestamptz) from public;
grant execute on function private.vested(public.vesting_grants, timestamptz) to authenticated;

-- Lowers each founder's locked tokens to what has not vested yet, every minute (the local server's
-- scheduler; pg_cron on a hosted project, supabase/cron.sql). Returns how many holdings changed.
create function private.release_vesting() returns integer
language plpgsql security definer set search_path = '' as $$
declare
  n integer;
begin
  update public.holdings h set locked = g.total - private.vested(g, now())
    from public.vesting_grants g
   where h.token_id = g.token_id and h.user_id = g.user_id and h.locked > g.total - private.vested(g, now());
  get diagnostics n = row_count;
  return n;
end $$;
revoke execute on function private.release_vesting() from public;

-- Each token's founder vesting as its screens show it: the grant, its dates, and what has vested.
create view public.token_vesting with (security_invoker = true) as
select g.token_id, g.user_id, g.total, g.starts_at,
       g.starts_at + make_interval(months => g.cliff_months) as cliff_at,
       g.starts_at + make_interval(months => g.months) as ends_at,
       private.vested(g, now()) as vested
from public.vesting_grants g;
revoke all on public.token_vesting from anon;
revoke insert, update, delete, truncate on public.token_vesting from authenticated;

-- The offering account: an account nobody can sign in to (no password, banned), holding what is
-- left of each token offering.
create function private.issuance_account() returns uuid
language sql immutable as $$ select '00000000-0000-4000-8000-00000000155e'::uuid $$;
grant execute on function private.issuance_account() to authenticated;
insert into auth.users (id, email, raw_user_meta_data, banned_until)
values (private.issuance_account(), 'issuance@system.repx.dev',
        '{"username": "repx_offering", "full_name": "RepX Token Offering"}', 'infinity');
update public.profiles set role = 'system', bio = 'Sells the initial offering of newly issued tokens.' where id = private.issuance_account();

-- The categories a person may list under (spec section 3): one list, read by the browser.
create table public.categories (name text primary key, position smallint not null unique);
alter table public.categories enable row level security;
create policy "categories are visible to signed-in users" on public.categories for select to authenticated using (true);
revoke all on public.categories from anon;
revoke insert, update, delete, truncate on public.categories from authenticated;
insert into public.categories (name, position) values
  ('Tech Influencer', 1), ('Business Leader', 2), ('Fitness Coach', 3), ('Content Creator', 4), ('Crypto Expert', 5), ('Designer', 6);

-- Applications for a token.
create table public.token_applications (
  id bigint generated always as identity primary key,
  user_id uuid not null references public.profiles (id) on delete cascade,
  display_name text not null check (char_length(display_name) between 2 and 80),
  category text not null references public.categories (name),
  bio text not null default '' check (char_length(bio) <= 500),
  -- [{"platform": "x", "handle": "alexr", "url": "https://x.com/alexr"}]
  socials jsonb not null default '[]' check (jsonb_typeof(socials) = 'array'),
  status text not null default 'pending' check (status in ('pending', 'approved', 'rejected')),
  reason text,
  token_id uuid references public.tokens (id),
  decided_by uuid references public.profiles (id),
  decided_at timestamptz,
  created_at timestamptz not null default now()
);
create unique index token_applications_one_pending_idx on public.token_applications (user_id) where status = 'pending';
create index token_applications_status_idx on public.token_applications (status, created_at);
alter table public.token_applications enable row level security;
create policy "own applications" on public.token_applications
  for select to authenticated using (user_id = (select auth.uid()) or (select private.is_admin()));
revoke all on public.token_applications from anon;
revoke insert, update, delete, truncate on public.token_applications from authenticated;

-- What an application shows others holds no hidden characters (accounts.sql).
create function private.check_application_text() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'INSERT' or new.display_name is distinct from old.display_name then
    perform private.refuse_hidden_characters(new.display_name, 'The display name');
  end if;
  if tg_op = 'INSERT' or new.bio is distinct from old.bio then
    perform private.refuse_hidden_characters(new.bio, 'The bio', true);
  end if;
  return new;
end $$;
revoke execute on function private.check_application_text() from public;
create trigger check_application_text before insert or update of display_name, bio on public.token_applications
  for each row execute function private.check_application_text();

-- A person applies for their own token. The application lists the accounts they have connected
-- (social.sql), as links, for the admin's review beside their analysis; typed handles are not taken.
create function public.apply_for_token(p_display_name text, p_category text, p_bio text default '')
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.person_caller('apply for a token');
  app public.token_applications;
begin
  perform 1 from public.profiles where id = uid for no key update; -- one application at a time per person
  if exists (select 1 from public.tokens where owner_id = uid) then perform private.refuse('You already have a token.'); end if;
  if exists (select 1 from public.token_applications where user_id = uid and status = 'pending') then
    perform private.refuse('Your application is already waiting for review.');
  end if;
  if char_length(trim(coalesce(p_display_name, ''))) not between 2 and 80 then
    perform private.refuse('The display name needs 2 to 80 characters.');
  end if;
  if not exists (select 1 from public.categories where name = p_category) then
    perform private.refuse('Choose one of the categories.');
  end if;
  if char_length(coalesce(p_bio, '')) > 500 then perform private.refuse('The bio has at most 500 characters.'); end if;
  insert into public.token_applications (user_id, display_name, category, bio, socials)
  values (uid, trim(p_display_name), p_category, coalesce(trim(p_bio), ''),
          coalesce((select jsonb_agg(jsonb_build_object('platform', a.platform, 'handle', a.handle,
                                                        'url', private.social_url(a.platform, a.handle), 'followers', a.followers)
                                     order by a.platform)
                      from public.social_accounts a where a.user_id = uid and a.status = 'connected'), '[]'))
  returning * into app;
  return to_jsonb(app);
end $$;
revoke execute on function public.apply_for_token(text, text, text) from public, anon;

-- An application names the tokens already on the market under the same name (letter case and
-- spacing aside), so the admin who reviews 'Sarah Chen' sees that @sarahchen is listed as Sarah
-- Chen before issuing a second one: people share names, but a reputation exchange must not let one
-- pass for another. Each names the applicant's social analysis too.
create function public.admin_list_applications(p_status text default 'pending')
returns table (id bigint, user_id uuid, username text, email text, display_name text, category text, bio text, socials jsonb,
               status text, reason text, token_id uuid, created_at timestamptz, decided_at timestamptz, namesakes jsonb,
               analysis jsonb)
language plpgsql stable security definer set search_path = '' as $$
begin
  perform private.require_admin();
  return query
    select a.id, a.user_id, p.username, u.email::text, a.display_name, a.category, a.bio, a.socials, a.status, a.reason,
           a.token_id, a.created_at, a.decided_at,
           coalesce((select jsonb_agg(jsonb_build_object('name', t.name, 'username', t.username, 'verified', t.verified)
                                      order by t.username)
                       from public.tokens t
                      where private.name_key(t.name) = private.name_key(a.display_name)
                        and t.owner_id is distinct from a.user_id), '[]'::jsonb),
           -- The applicant's social analysis now, with its evidence and warnings (social.sql).
           private.social_analysis(a.user_id)
    from public.token_applications a join public.profiles p on p.id = a.user_id join auth.users u on u.id = a.user_id
    where p_status is null or a.status = p_status
    order by a.created_at, a.id
    limit 500;
end $$;
revoke execute on function public.admin_list_applications(text) from public, anon;

-- A name as it is compared: trimmed, lower-cased, its runs of spaces made one. Indexed.
create function private.name_key(p_name text) returns text
language sql immutable parallel safe as $$
  select lower(regexp_replace(btrim(p_name), '\s+', ' ', 'g'))
$$;
create index tokens_name_key on public.tokens (private.name_key(name));

-- Approval issues the token in this one transaction: supply, founder allocation, and the offering
-- of the rest by batch auction (offerings.sql). It is on the market at once, in its auction.
create function public.admin_approve_application(p_id bigint, p_total_supply bigint default null, p_issue_price numeric default null)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  admin uuid := private.require_admin();
  s public.exchange_settings;
  app public.token_applications;
  owner public.profiles;
  supply bigint;
  price numeric;
  founder bigint;
  tok uuid;
  offering_closes timestamptz;
begin
  select * into app from public.token_applications where id = p_id for update;
  if not found then perform private.refuse('There is no such application.'); end if;
  if app.status <> 'pending' then perform private.refuse(format('This application was already %s.', app.status)); end if;
  select * into owner from public.profiles where id = app.user_id for no key update;
  if owner.status <> 'active' then perform private.refuse('The applicant''s account is suspended.'); end if;
  if exists (select 1 from public.tokens where owner_id = app.user_id) then perform private.refuse('The applicant already has a token.'); end if;
  select * into s from public.exchange_settings;
  supply := coalesce(p_total_supply, s.token_supply);
  price := coalesce(p_issue_price, s.token_issue_price);
  if supply < 1000 or supply > 1000000000 then perform private.refuse('The total supply must be between 1,000 and 1,000,000,000 tokens.'); end if;
  -- No higher than anyone may ask on the market.
  if price <= 0 or price > s.max_price or price <> round(price, 2) then
    perform private.refuse(format('The issue price must be between $0.01 and %s, in cents.', private.money(s.max_price)));
  end if;
  if exists (select 1 from public.tokens where lower(username) = lower(owner.username)) then
    perform private.refuse(format('A token named @%s already exists.', owner.username));
  end if;
  founder := floor(supply * s.token_founder_bps / 10000.0)::bigint;

  insert into public.tokens (owner_id, name, username, category, reputation_score, total_supply, issue_price, avatar_url, verified)
  values (app.user_id, app.display_name, owner.username, app.category, 0, supply, price, owner.avatar_url, owner.verified)
  returning id into tok;
  if founder > 0 then
    perform private.issue_tokens(tok, app.user_id, founder);
    -- The founder's allocation vests (a zero-month period releases it at once).
    insert into public.vesting_grants (token_id, user_id, total, cliff_months, months)
    values (tok, app.user_id, founder, least(s.founder_cliff_months, s.founder_vesting_months), s.founder_vesting_months);
    update public.holdings h set locked = h.amount - private.vested(g, now())
      from public.vesting_grants g where g.token_id = tok and h.token_id = tok and h.user_id = app.user_id;
  end if;
  -- Its first score, by the formula (reputation.sql), and the month's history point.
  perform private.rescore(tok);
  insert into public.reputation_history (token_id, month, score)
  select tok, date_trunc('month', now())::date, reputation_score from public.tokens where id = tok;
  -- The rest is offered by batch auction (offerings.sql); trading opens when it closes.
  if supply > founder then
    perform private.issue_tokens(tok, private.issuance_account(), supply - founder);
    offering_closes := (private.open_offering(tok, supply - founder, price)).closes_at;
  end if;
  update public.token_applications set status = 'approved', token_id = tok, decided_by = admin, decided_at = now() where id = p_id
  returning * into app;
  perform private.tell_market(tok, 'listed');
  perform private.audit('application.approve', app.user_id, 'application ' || p_id, jsonb_build_object('status', 'pending'),
    jsonb_build_object('status', 'approved', 'token_id', tok, 'total_supply', supply, 'issue_price', price, 'founder_allocation', founder));
  return jsonb_build_object('application', to_jsonb(app), 'token_id', tok, 'total_supply', supply, 'issue_price', price,
    'founder_allocation', founder, 'offering', supply - founder, 'offering_closes_at', offering_closes);
end $$;
revoke execute on function public.admin_approve_application(bigint, bigint, numeric) from public, anon;

create function public.admin_reject_application(p_id bigint, p_reason text)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  admin uuid := private.require_admin();
  app public.token_applications;
begin
  perform private.require_reason(p_reason, 'Give the applicant a reason of 3 to 500 characters.');
  select * into app from public.token_applications where id = p_id for update;
  if not found then perform private.refuse('There is no such application.'); end if;
  if app.status <> 'pending' then perform private.refuse(format('This application was already %s.', app.status)); end if;
  update public.token_applications set status = 'rejected', reason = trim(p_reason), decided_by = admin, decided_at = now()
   where id = p_id returning * into app;
  perform private.audit('application.reject', app.user_id, 'application ' || p_id, jsonb_build_object('status', 'pending'),
    jsonb_build_object('status', 'rejected'), trim(p_reason));
  return to_jsonb(app);
end $$;
revoke execute on function public.admin_reject_application(bigint, text) from public, anon;

-- Trading: the order book, its trades and the engine that matches them. Each call is one
-- transaction. The engine is in six files, in the order config.toml applies them:
--
--   trading.sql        orders and trades, the fee, the caller's open orders, the book's views
--   orders.sql         placing an order: place_order, its checks, the book's lock, execute_order
--   matching.sql       matching against the book and settling the fills (the one place money and
--                      tokens move in a trade)
--   quotes.sql         what an order would do now (quote_order), walked by the engine's rules
--   stops.sql          stops and their triggering, take-profit and stop pairs, expiry
--   order_changes.sql  cancelling, cancelling all, replacing, and a token's trading halt
--
-- The order path:
--
--   place_order = check_order_request -> lock the book -> check_order_funds -> match_order
--                 -> lock the accounts -> settle_fills -> rest what is left -> write the order
--                 -> tell the market and the accounts involved (realtime.sql)
--
-- Matching is price-time priority against the token's book, at the resting order's price.
-- Fees (spec section 9): a share of value on each side (exchange_settings.fee_bps, 2%); the buyer
-- pays value + fee, the seller receives value - fee; both are the exchange's revenue, recorded on
-- the trade row and summed for reports (no hot 'fees' row).
--
-- Locking follows one order (docs/database.md): the person's row (for a count kept per person),
-- the books in token order, the resting orders of a book as the match reaches them, then the cash
-- accounts and the holdings of every account involved, in ascending user id.
--
-- Self-trade policy (expire maker, as common exchanges and nodejs-order-book define it): an order
-- never trades with its owner's own resting orders; each one the order meets while matching is
-- cancelled, its reservation released, and matching goes on. The book never crosses.
--
-- Market orders are immediate-or-cancel within a band around the last price: they take the best
-- prices until filled, the book runs out or the band's edge is reached, and never spend more than
-- the buyer's available cash; what cannot fill is cancelled. A market order that cannot fill at
-- all is refused and changes nothing.
--
-- The engine's functions keep one generic plan per connection (plan_cache_mode): none of their
-- statements changes shape with its values (rows are found by key, the book by its index in rank
-- order), and a fresh plan for each of an order's statements costs more than running it.

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
  -- open: on the book; pending: a stop waiting off the book for its trigger; filled, cancelled,
  -- expired (a good-til-date order past its time): closed.
  status text not null default 'open' check (status in ('open', 'pending', 'filled', 'cancelled', 'expired')),
  -- The order's time in the book: taken after the book's lock, so it follows every order before it.
  created_at timestamptz not null default now(),
  -- Fees are charged on each order's cumulative value: a fill pays fee(value filled so far) minus
  -- the fees the order already paid. So an order's fees come to the fee of its whole value, never
  -- a cent more than a resting buy reserved, however it is filled.
  filled_value numeric(14, 2) not null default 0 check (filled_value >= 0),
  fees_paid numeric(14, 2) not null default 0, -- net of a maker's rebates
  -- When the order stopped being open (filled or cancelled): spoofing is about how fast (fraud.sql).
  closed_at timestamptz,
  check ((type = 'limit') = (price is not null)),
  -- How long the order lives (docs/trading.md): gtc until cancelled, ioc fills what crosses and
  -- cancels the rest, fok fills entirely at once or is refused, gtd until expires_at.
  time_in_force text not null default 'gtc' check (time_in_force in ('gtc', 'ioc', 'fok', 'gtd')),
  expires_at timestamptz,
  -- A post-only order was refused if it would have taken liquidity: it only ever made it.
  post_only boolean not null default false,
  -- A stop: off the book until the last trade price reaches stop_price (at or above it for a buy,
  -- at or below it for a sell); then it enters the book as its type, at triggered_at.
  stop_price numeric(12, 2) check (stop_price > 0),
  triggered_at timestamptz,
  -- One-cancels-the-other: the take-profit limit and the stop of one pair name each other.
  oco_with bigint,
  check ((time_in_force = 'gtd') = (expires_at is not null)),
  check (status <> 'pending' or stop_price is not null)
);
create index orders_user_idx on public.orders (user_id, created_at desc);
-- The book, each side best first: rank is the price for asks and minus the price for bids, then
-- oldest first, then id (price-time priority). The match scans the other side in this order and
-- its price limit bounds the scan; the order book view reads the same index.
create index orders_book_rank_idx on public.orders
  (token_id, side, (case when side = 'buy' then -price else price end), created_at, id) where status = 'open';
-- A user's open orders newest first, all tokens or one: each list read in its index's order, so a
-- page stops at its end (list_open_orders).
create index orders_open_user_rank_idx on public.orders (user_id, created_at desc, id desc) where status in ('open', 'pending');
create index orders_open_user_token_idx on public.orders (user_id, token_id, created_at desc, id desc) where status in ('open', 'pending');
-- Each book's waiting stops, the one its trigger crossed first at the head: the lowest buy
-- trigger, the highest sell trigger, then the oldest (private.trigger_stops).
create index orders_stops_idx on public.orders
  (token_id, side, (case when side = 'buy' then stop_price else -stop_price end), id) where status = 'pending';
-- Good-til-date orders still live, soonest first (private.expire_orders).
create index orders_expiry_idx on public.orders (expires_at) where status in ('open', 'pending') and expires_at is not null;
alter table public.orders enable row level security;
create policy "own orders" on public.orders
  for select to authenticated using (user_id = (select auth.uid()) or (select private.is_admin()));
revoke all on public.orders from anon;
revoke insert, update, delete, truncate on public.orders from authenticated;

-- A trade's value: price x tokens, rounded half up to the cent. Its one definition, read by the
-- trades' generated column and by the engine before a trade exists (an order's cost, a fill).
create function private.trade_value(price numeric, amount numeric) returns numeric
language sql immutable parallel safe as $$ select round(price * amount, 2) $$;
revoke execute on function private.trade_value(numeric, numeric) from public;

-- The exchange's fee rate, read once per order so that the fees and their record agree; and the
-- fee on `value` at `bps` basis points, rounded half up to the cent.
create function private.fee_bps() returns integer
language plpgsql stable security definer set search_path = '' as $$
declare
  bps integer;
begin
  select fee_bps into bps from public.exchange_settings;
  return bps;
end $$;
revoke execute on function private.fee_bps() from public;
create function private.fee(value numeric, bps integer) returns numeric
language sql immutable as $$ select round(value * bps / 10000.0, 2) $$;
revoke execute on function private.fee(numeric, integer) from public;

-- What buying `amount` at `price` costs: its value and the fee on it at `bps`.
create function private.buy_cost(price numeric, amount numeric, bps integer) returns numeric
language sql immutable as $$ select private.trade_value(price, amount) + private.fee(private.trade_value(price, amount), bps) $$;
revoke execute on function private.buy_cost(numeric, numeric, integer) from public;

-- Every fill. Both fees are recorded with the rate they were charged at.
create table public.trades (
  id bigint generated always as identity primary key,
  token_id uuid not null references public.tokens (id) on delete cascade,
  -- An order is written once it is settled (place_order), after the trades that name it: these
  -- references are checked at commit.
  buy_order_id bigint references public.orders (id) deferrable initially deferred,
  sell_order_id bigint references public.orders (id) deferrable initially deferred,
  buyer_id uuid not null references public.profiles (id),
  seller_id uuid not null references public.profiles (id),
  price numeric(12, 2) not null check (price > 0),
  amount bigint not null check (amount > 0),
  value numeric generated always as (private.trade_value(price, amount)) stored,
  taker_side text not null check (taker_side in ('buy', 'sell')),
  -- A maker's fee is negative when it is a rebate; the two never sum below zero.
  buyer_fee numeric(14, 2) not null,
  seller_fee numeric(14, 2) not null,
  created_at timestamptz not null default now(),
  -- The taker's rate (the maker's is maker_fee_bps).
  fee_bps integer not null check (fee_bps between 0 and 1000),
  -- Who receives a sale's proceeds when it is not the seller: the person behind an offering.
  proceeds_to uuid references public.profiles (id),
  -- The person behind the token, credited creator_share of the two fees in the trade's transaction
  -- (exchange_settings.creator_fee_share_bps); the exchange keeps the rest.
  creator_id uuid references public.profiles (id),
  creator_share numeric(14, 2) not null default 0 check (creator_share >= 0 and creator_share <= buyer_fee + seller_fee),
  -- The maker's rate (null on trades settled before makers had their own).
  maker_fee_bps integer check (maker_fee_bps between -1000 and 1000),
  check (buyer_fee + seller_fee >= 0),
  check (buyer_id <> seller_id)
);
create index trades_token_time_idx on public.trades (token_id, created_at desc, id desc);
create index trades_buyer_idx on public.trades (buyer_id, created_at desc);
create index trades_seller_idx on public.trades (seller_id, created_at desc);
create index trades_proceeds_idx on public.trades (proceeds_to, created_at desc) where proceeds_to is not null;
create index trades_creator_idx on public.trades (creator_id, created_at desc) where creator_share > 0;

-- What a trade's taker paid in fees (its maker paid the rest of the two, or was rebated it).
create function private.taker_fee(t public.trades) returns numeric
language sql immutable as $$ select case when t.taker_side = 'buy' then t.buyer_fee else t.seller_fee end $$;
revoke execute on function private.taker_fee(public.trades) from public;
alter table public.trades enable row level security;
create policy "own trades" on public.trades
  for select to authenticated
  using (buyer_id = (select auth.uid()) or seller_id = (select auth.uid()) or proceeds_to = (select auth.uid())
         or creator_id = (select auth.uid()) or (select private.is_admin()));
revoke all on public.trades from anon;
revoke insert, update, delete, truncate on public.trades from authenticated;

-- The caller's open orders, newest first, all tokens or one, a page at a time. Each case has its
-- own statement and its own index holding the list's whole order, so the kept generic plan walks
-- the index in order and stops at the page's end.
create function public.list_open_orders(p_token uuid default null, p_limit integer default 100, p_offset integer default 0)
returns setof public.orders
language plpgsql stable security invoker set search_path = '' set plan_cache_mode = force_generic_plan as $$
begin
  if p_token is null then
    return query
    select * from public.orders
    where user_id = (select auth.uid()) and status in ('open', 'pending')
    order by created_at desc, id desc
    limit least(greatest(coalesce(p_limit, 100), 1), 500) offset greatest(coalesce(p_offset, 0), 0);
  else
    return query
    select * from public.orders
    where user_id = (select auth.uid()) and status in ('open', 'pending') and token_id = p_token
    order by created_at desc, id desc
    limit least(greatest(coalesce(p_limit, 100), 1), 500) offset greatest(coalesce(p_offset, 0), 0);
  end if;
end $$;
revoke execute on function public.list_open_orders(uuid, integer, integer) from public, anon;

-- What screens read of the book and the tape. Public aggregates (no account is named) are plain
-- views, which read as their owner; views of one account's data are security_invoker, so
-- row-level security applies to the reader.

-- Open limit orders, aggregated per price level: what an order book shows.
create view public.order_book as
select token_id, side, price, sum(amount - filled)::bigint as amount, count(*)::int as orders
from public.orders
where status = 'open' and type = 'limit'
group by token_id, side, price;
revoke all on public.order_book from anon;
revoke insert, update, delete, truncate on public.order_book from authenticated;

-- The tape: trades without the names of the accounts.
create view public.recent_trades as
select id, token_id, price, amount, value, taker_side as type, created_at from public.trades;
revoke all on public.recent_trades from anon;
revoke insert, update, delete, truncate on public.recent_trades from authenticated;

-- The signed-in account's trades, from its own side: a buy costs value + fee, a sell yields value - fee
-- (a maker's rebate is a negative fee).
create view public.my_trades with (security_invoker = true) as
select
  tr.id,
  tr.token_id,
  t.name,
  t.username,
  case when tr.buyer_id = auth.uid() then 'buy' else 'sell' end as type,
  tr.amount,
  tr.price,
  tr.value,
  case when tr.buyer_id = auth.uid() then tr.buyer_fee else tr.seller_fee end as fee,
  case when tr.buyer_id = auth.uid() then tr.value + tr.buyer_fee else tr.value - tr.seller_fee end as total,
  tr.created_at,
  -- Whether the account's order traded at once (taker) or waited in the book (maker): which fee applied.
  case when (tr.buyer_id = auth.uid()) = (tr.taker_side = 'buy') then 'taker' else 'maker' end as liquidity
from public.trades tr
join public.tokens t on t.id = tr.token_id
where tr.buyer_id = auth.uid() or tr.seller_id = auth.uid();
revoke all on public.my_trades from anon;
revoke insert, update, delete, truncate on public.my_trades from authenticated;

-- Placing an order (trading.sql has the engine's map): place_order, the book's lock, execute_order,
-- and the checks a request passes before anything is matched.

-- Places an order: the caller's, now, in one transaction. Returns what happened to it (filled,
-- resting, cancelled, or pending for a stop), its average price, value, fee and total. A trade it
-- makes may trigger waiting stops: they run in this same transaction (private.trigger_stops).
-- p_max_total caps what a market buy spends, fee included ("spend $50"): it buys the whole tokens
-- that sum covers, up to p_amount, and the rest stays cash. p_client_order_id makes a retry safe:
-- the same id from the same account within 24 hours returns the first order's result (with
-- "replayed": true) and places nothing (private.claim_client_order).
create function public.place_order(
  p_token uuid, p_side text, p_type text, p_amount numeric, p_price numeric default null,
  p_time_in_force text default 'gtc', p_expires_at timestamptz default null, p_post_only boolean default false,
  p_stop_price numeric default null, p_max_total numeric default null, p_client_order_id text default null
) returns jsonb language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  settings public.exchange_settings;
  tok public.tokens;
  result jsonb;
begin
  if p_client_order_id is not null then
    result := private.claim_client_order(p_client_order_id);
    if result is not null then return result; end if;
  end if;
  settings := private.check_order_request(auth.uid(), p_side, p_type, p_amount, p_price,
    p_time_in_force, p_expires_at, p_post_only, p_stop_price);
  tok := private.lock_book(p_token, p_amount);
  if p_max_total is not null then
    if p_side <> 'buy' or p_type <> 'market' or p_stop_price is not null then
      perform private.refuse('A spending limit (p_max_total) is for market buys only.');
    elsif p_max_total = 'NaN' or p_max_total <= 0 or p_max_total <> round(p_max_total, 2) then
      perform private.refuse('The amount to spend must be above $0.00, with at most two decimals.');
    end if;
  end if;
  if p_stop_price is not null then
    result := private.hold_stop(auth.uid(), tok, p_side, p_type, p_amount::bigint, p_price, p_stop_price,
      coalesce(p_time_in_force, 'gtc'), p_expires_at, settings.fee_bps);
  else
    result := private.execute_order(auth.uid(), tok, null, p_side, p_type, p_amount::bigint, p_price,
      coalesce(p_time_in_force, 'gtc'), p_expires_at, coalesce(p_post_only, false), settings.fee_bps, p_max_total);
    -- Stops run after a trade, where the book has any (one probe of the waiting stops' index).
    if (result->>'value')::numeric > 0 and exists (select 1 from public.orders o where o.token_id = p_token and o.status = 'pending') then
      perform private.trigger_stops(tok, settings.fee_bps);
    end if;
  end if;
  if p_client_order_id is not null then
    result := result || jsonb_build_object('client_order_id', p_client_order_id);
    update private.client_orders set answer = result
     where user_id = auth.uid() and client_order_id = p_client_order_id;
  end if;
  return result;
end $$;
revoke execute on function public.place_order(uuid, text, text, numeric, numeric, text, timestamp with time zone, boolean, numeric, numeric, text) from public, anon;

-- Orders placed with a client order id, and what placing them returned: a retry within 24 hours
-- gets that result back. Pruned after a day (sessions.sql, private.prune).
create table private.client_orders (
  user_id uuid not null references public.profiles (id) on delete cascade,
  client_order_id text not null,
  answer jsonb,
  created_at timestamptz not null default now(),
  primary key (user_id, client_order_id)
);

-- Claims a client order id for the caller's order: null when it is theirs to place now, else the
-- earlier order's result. A retry sent while the first is still running waits on the id's row
-- and then reads what the first returned; if the first was refused, nothing of it stays and the
-- retry places the order.
create function private.claim_client_order(p_id text) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := auth.uid();
  earlier jsonb;
begin
  if uid is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_scope('trade');
  if char_length(p_id) not between 1 and 64 or p_id !~ '^[A-Za-z0-9._:-]+$' then
    perform private.refuse('A client order id has 1 to 64 letters, digits or . _ : -');
  end if;
  delete from private.client_orders where user_id = uid and client_order_id = p_id and created_at < now() - interval '24 hours';
  insert into private.client_orders (user_id, client_order_id) values (uid, p_id) on conflict do nothing;
  if found then return null; end if;
  select answer into earlier from private.client_orders where user_id = uid and client_order_id = p_id;
  return earlier || jsonb_build_object('replayed', true);
end $$;
revoke execute on function private.claim_client_order(text) from public;

-- Places several orders (up to 20) in one call, each as place_order would, each on its own: one
-- that is refused (cash, a bad price, a halt) is reported with why and changes nothing, and the
-- others are placed all the same. It is not one transaction across books: a bot that needs
-- both or neither must check each result. Orders in one token keep their given order (their
-- time priority); different tokens' books are locked in token order, as the engine takes them.
-- Each element: {token, side, type, amount, price, time_in_force, expires_at, post_only,
-- stop_price, max_total, client_order_id}. Returns one result per order, in the order given:
-- place_order's, or {error}.
create function public.place_orders(p_orders jsonb) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  o record;
  results jsonb := '{}';
begin
  if auth.uid() is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_scope('trade');
  if jsonb_typeof(p_orders) is distinct from 'array' or jsonb_array_length(p_orders) not between 1 and 20 then
    perform private.refuse('Send 1 to 20 orders, as a JSON array.');
  end if;
  for o in select e.value as v, e.i from jsonb_array_elements(p_orders) with ordinality e (value, i)
           order by (case when jsonb_typeof(e.value) = 'object' then e.value ->> 'token' end) nulls first, e.i
  loop
    begin
      if jsonb_typeof(o.v) <> 'object' then perform private.refuse('Each order is a JSON object.'); end if;
      results := results || jsonb_build_object(o.i::text, public.place_order(
        (o.v ->> 'token')::uuid, o.v ->> 'side', o.v ->> 'type', (o.v ->> 'amount')::numeric, (o.v ->> 'price')::numeric,
        coalesce(o.v ->> 'time_in_force', 'gtc'), (o.v ->> 'expires_at')::timestamptz, coalesce((o.v ->> 'post_only')::boolean, false),
        (o.v ->> 'stop_price')::numeric, (o.v ->> 'max_total')::numeric, o.v ->> 'client_order_id'));
    exception when others then
      results := results || jsonb_build_object(o.i::text, jsonb_build_object('error',
        case when sqlstate in ('22P02', '22007', '22008') then 'Order ' || o.i || ': ' || sqlerrm else sqlerrm end));
    end;
  end loop;
  return (select jsonb_agg(results -> i::text order by i) from generate_series(1, jsonb_array_length(p_orders)) i);
end $$;
revoke execute on function public.place_orders(jsonb) from public, anon;

-- The book's lock: one order at a time per token. Refuses an unknown or halted token, one whose
-- offering is still open (offerings.sql), and an amount above its supply. Returns the token's row.
create function private.lock_book(p_token uuid, p_amount numeric) returns public.tokens
language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  tok public.tokens;
  offering_closes timestamptz;
begin
  select * into tok from public.tokens where id = p_token for no key update;
  if not found then raise exception 'There is no such token.' using errcode = 'P0001'; end if;
  select closes_at into offering_closes from public.offerings where token_id = p_token and closed_at is null;
  if offering_closes is not null then
    raise exception 'Trading in % opens when its offering closes (% UTC). Until then, place a bid in the offering.',
      tok.name, to_char(offering_closes at time zone 'UTC', 'YYYY-MM-DD HH24:MI') using errcode = 'P0001';
  end if;
  if tok.halt_reason is not null then
    raise exception 'Trading in % is halted: %. Cancelling open orders still works.', tok.name, rtrim(tok.halt_reason, '.')
      using errcode = 'P0001';
  end if;
  if p_amount > tok.total_supply then
    raise exception 'The amount cannot exceed the total supply of % tokens.', tok.total_supply using errcode = '22023';
  end if;
  return tok;
end $$;
revoke execute on function private.lock_book(uuid, numeric) from public;

-- Runs an order against the book and settles it. The caller holds the book's lock and has checked
-- the request. p_order is a triggered stop's row (null: a new order); p_budget caps what a buy
-- spends (a triggered stop-market buy spends no more than it reserved).
create function private.execute_order(
  p_user uuid, tok public.tokens, p_order bigint, p_side text, p_type text, p_amount bigint, p_price numeric,
  p_tif text, p_expires_at timestamptz, p_post_only boolean, p_bps integer, p_budget numeric
) returns jsonb language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  v_order bigint := p_order;
  budget numeric;
  matched record;
  spent numeric;
  rest_cost numeric := 0;
  final_status text;
  fee_sum numeric := 0;
  -- The order's time in the book: after the book's lock, so it follows every order before it.
  book_time timestamptz := clock_timestamp();
  -- What is left of a limit order rests, unless its time in force says it may not.
  rests boolean;
  -- The token's figures before the trades, so the market's message can say how its totals moved.
  before jsonb;
begin
  budget := private.check_order_funds(p_user, tok.id, tok.name, p_side, p_type, p_amount, p_price, p_bps);
  if p_budget is not null then budget := least(budget, p_budget); end if;
  if p_post_only or p_tif = 'fok' then
    perform private.check_maker_terms(p_user, tok, p_side, p_amount, p_price, p_post_only);
  end if;

  -- The order's id, drawn now: its trades name it, and its row is written once it is settled.
  if v_order is null then v_order := nextval(pg_get_serial_sequence('public.orders', 'id')); end if;

  matched := private.match_order(p_user, tok.id, v_order, p_side, p_type, p_amount, p_price, budget, p_bps);
  if p_type = 'market' and jsonb_array_length(matched.fills) = 0 then
    if exists (select 1 from public.orders where token_id = tok.id and status = 'open' and user_id <> p_user
                 and side = case when p_side = 'buy' then 'sell' else 'buy' end) then
      raise exception 'Insufficient funds: you cannot afford one % token at the best price.', tok.name using errcode = 'P0001';
    end if;
    raise exception 'There are no % orders for % right now. Place a limit order to wait for a %.',
      case when p_side = 'buy' then 'sell' else 'buy' end, tok.name,
      case when p_side = 'buy' then 'seller' else 'buyer' end using errcode = 'P0001';
  end if;
  rests := p_type = 'limit' and matched.remaining > 0 and p_tif in ('gtc', 'gtd');

  -- Every account involved, cash then holdings, in ascending user id (no deadlocks): the caller and
  -- the makers it met; the person behind the token receives a share of the fees (and an offering's
  -- proceeds), so their cash is locked too.
  perform 1 from public.cash_accounts
   where user_id = any(p_user || matched.makers || case when tok.owner_id is not null then array[tok.owner_id] else '{}' end)
   order by user_id for update;
  perform 1 from public.holdings where token_id = tok.id and user_id = any(p_user || matched.makers)
   order by user_id for update;

  -- Own resting orders met while matching are expired (self-trade prevention).
  if cardinality(matched.expire) > 0 then
    perform private.release_order(x) from unnest(matched.expire) x;
  end if;

  -- What was read before the locks still holds.
  spent := matched.spent_value + private.fee(matched.spent_value, p_bps);
  if p_side = 'buy' then
    rest_cost := case when rests
      then private.trade_value(p_price, matched.remaining) + private.fee(matched.spent_value + private.trade_value(p_price, matched.remaining), p_bps)
           - private.fee(matched.spent_value, p_bps) else 0 end;
    if (select available from public.cash_accounts where user_id = p_user) < spent + rest_cost then
      raise exception 'Insufficient funds: your available cash changed while the order was placed. Please try again.' using errcode = 'P0001';
    end if;
  else
    -- An assignment rather than `perform`: no executor of its own. A sell's budget is 0, and unused.
    budget := private.check_order_funds(p_user, tok.id, tok.name, p_side, p_type, p_amount, p_price, p_bps);
  end if;

  if jsonb_array_length(matched.fills) > 0 then
    before := (select jsonb_build_object('market_cap', s.market_cap, 'volume_24h', s.volume_24h)
                 from private.token_stats s where s.token_id = tok.id);
    fee_sum := private.settle_fills(tok.id, p_side, matched.fills, book_time, p_bps);
  end if;

  -- What is left of a limit order rests on the book, its cost or tokens held back.
  if rests then
    if p_side = 'buy' then
      update public.cash_accounts set available = available - rest_cost, reserved = reserved + rest_cost where user_id = p_user;
    else
      update public.holdings set reserved = reserved + matched.remaining where user_id = p_user and token_id = tok.id;
    end if;
    final_status := 'open';
  else
    final_status := case when matched.remaining = 0 then 'filled' else 'cancelled' end;
  end if;
  if p_order is null then
    insert into public.orders (id, user_id, token_id, side, type, price, amount, filled, filled_value, fees_paid,
                               reserved, status, created_at, closed_at, time_in_force, expires_at, post_only)
    overriding system value
    values (v_order, p_user, tok.id, p_side, p_type, p_price, p_amount, p_amount - matched.remaining, matched.spent_value,
            fee_sum, rest_cost, final_status, book_time, case when final_status <> 'open' then clock_timestamp() end,
            p_tif, p_expires_at, p_post_only);
  else
    -- A triggered stop's row is there already: it enters the book now, at its trigger's time.
    update public.orders
       set filled = p_amount - matched.remaining, filled_value = matched.spent_value, fees_paid = fee_sum,
           reserved = rest_cost, status = final_status, created_at = book_time,
           closed_at = case when final_status <> 'open' then clock_timestamp() end
     where id = v_order;
  end if;

  -- The market hears the levels this order rested at or expired (its trades' levels are read with
  -- them); the accounts whose orders traded, and the person whose fee share came, hear of it.
  perform private.tell_market(tok.id, case when matched.spent_value > 0 then 'trade' else 'book' end,
    case when rests then jsonb_build_array(jsonb_build_object('side', p_side, 'price', p_price)) else '[]' end
      || case when cardinality(matched.expire) > 0 then private.order_levels(matched.expire) else '[]' end,
    case when jsonb_array_length(matched.fills) > 0 then book_time end, before);
  if jsonb_array_length(matched.fills) > 0 then
    perform private.tell_accounts(p_user || matched.makers, 'fills', tok.id);
    if tok.owner_id is not null then perform private.tell_accounts(array[tok.owner_id], 'cash', tok.id); end if;
  else
    perform private.tell_accounts(array[p_user], 'orders', tok.id);
  end if;

  return jsonb_build_object(
    'order_id', v_order,
    'status', final_status,
    'side', p_side,
    'type', p_type,
    'time_in_force', p_tif,
    'amount', p_amount,
    'filled', p_amount - matched.remaining,
    'resting', case when final_status = 'open' then matched.remaining else 0 end,
    'average_price', case when p_amount > matched.remaining then round(matched.spent_value / (p_amount - matched.remaining), 2) end,
    'value', matched.spent_value,
    'fee', fee_sum,
    'total', case when p_side = 'buy' then matched.spent_value + fee_sum else matched.spent_value - fee_sum end
  );
end $$;
revoke execute on function private.execute_order(uuid, public.tokens, bigint, text, text, bigint, numeric, text, timestamp with time zone, boolean, integer, numeric) from public;

-- A post-only order must not take liquidity, and a fill-or-kill order must fill entirely at once:
-- both are refused, in words, before anything is matched. Others' orders count for a fill-or-kill
-- (one's own are expired, never filled); any order at a crossing price refuses a post-only, as
-- nodejs-order-book does.
create function private.check_maker_terms(
  p_user uuid, tok public.tokens, p_side text, p_amount bigint, p_price numeric, p_post_only boolean
) returns void language plpgsql stable security definer set search_path = '' as $$
declare
  other text := case when p_side = 'buy' then 'sell' else 'buy' end;
  best numeric;
  offered bigint;
begin
  if p_post_only then
    select case when p_side = 'buy' then min(price) else max(price) end into best
      from public.orders where token_id = tok.id and side = other and status = 'open'
       and (case when p_side = 'buy' then price <= p_price else price >= p_price end);
    if best is not null then
      perform private.refuse(format('Post-only: at %s this order would trade at once with the best %s at %s, so it was not placed. Choose a price %s %s, or turn post-only off.',
        private.money(p_price), case when p_side = 'buy' then 'ask' else 'bid' end, private.money(best),
        case when p_side = 'buy' then 'below' else 'above' end, private.money(best)));
    end if;
  else
    select coalesce(sum(amount - filled), 0) into offered
      from public.orders where token_id = tok.id and side = other and status = 'open' and user_id <> p_user
       and (case when p_side = 'buy' then price <= p_price else price >= p_price end);
    if offered < p_amount then
      perform private.refuse(format('Fill or kill: %s %s %s at %s or better right now, fewer than the %s asked, so nothing was placed.',
        private.tokens_of(offered, tok.name), case when offered = 1 then 'is' else 'are' end, case when p_side = 'buy' then 'offered' else 'bid for' end, private.money(p_price), p_amount));
    end if;
  end if;
end $$;
revoke execute on function private.check_maker_terms(uuid, public.tokens, text, bigint, numeric, boolean) from public;

-- A token's last price: its last trade's, or its issue price before a trade. PL/pgSQL: the
-- maintained figures are defined later, in market.sql.
create function private.last_price(p_token uuid) returns numeric
language plpgsql stable security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
begin
  return coalesce((select s.price from private.token_stats s where s.token_id = p_token),
                  (select t.issue_price from public.tokens t where t.id = p_token));
end $$;
revoke execute on function private.last_price(uuid) from public;

-- The furthest price a market order accepts, `ref` moved by the market band
-- (exchange_settings.market_band_bps), rounded to the cent inward: the most a buy pays, the least
-- a sell accepts. PL/pgSQL so that its plan is kept: an SQL function with SET is planned at every
-- call, and every market order calls this.
create function private.band_edge(ref numeric, p_side text) returns numeric
language plpgsql stable security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
begin
  return (select case when p_side = 'buy' then floor(ref * (1 + e.market_band_bps / 10000.0) * 100) / 100
                      else ceil(ref * (1 - e.market_band_bps / 10000.0) * 100) / 100 end
          from public.exchange_settings e);
end $$;
revoke execute on function private.band_edge(numeric, text) from public;

-- The request's checks, before the book's lock: who is asking, what, and the exchange's limits.
-- Returns the settings row, read once for the whole order. A limit or stop order also takes the
-- person's row first, so that orders placed at once cannot pass the open-order count together.
create function private.check_order_request(
  p_user uuid, p_side text, p_type text, p_amount numeric, p_price numeric,
  p_tif text default 'gtc', p_expires_at timestamptz default null, p_post_only boolean default false,
  p_stop_price numeric default null
) returns public.exchange_settings language plpgsql security definer set search_path = ''
set plan_cache_mode = force_generic_plan as $$
declare
  settings public.exchange_settings;
  read record;
  tif text := coalesce(p_tif, 'gtc');
begin
  if p_user is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_second_step();
  perform private.require_scope('trade');
  select s as settings, coalesce(p.status <> 'active', false) as suspended into read
    from public.exchange_settings s left join public.profiles p on p.id = p_user;
  settings := read.settings;
  if p_side is null or p_side not in ('buy', 'sell') then
    raise exception 'The side must be buy or sell.' using errcode = '22023';
  end if;
  if p_type is null or p_type not in ('market', 'limit') then
    raise exception 'The order type must be market or limit.' using errcode = '22023';
  end if;
  if p_amount is null or p_amount = 'NaN' or p_amount < 1 or p_amount <> trunc(p_amount) then
    raise exception 'The amount must be a whole number of tokens, at least 1.' using errcode = '22023';
  end if;
  if p_type = 'limit' then
    if p_price is null or p_price = 'NaN' or p_price <= 0 then raise exception 'A limit order needs a price above $0.00.' using errcode = '22023'; end if;
    if p_price <> round(p_price, 2) then raise exception 'The limit price has at most two decimals.' using errcode = '22023'; end if;
    if p_price > settings.max_price then
      raise exception 'The limit price cannot exceed %.', private.money(settings.max_price) using errcode = '22023';
    end if;
  elsif p_price is not null then
    raise exception 'A market order takes no price: it trades at the best prices in the book.' using errcode = '22023';
  end if;
  if tif <> 'gtc' or p_expires_at is not null or p_post_only or p_stop_price is not null then -- a plain order skips the call
    perform private.check_order_terms(settings, p_type, tif, p_expires_at, p_post_only, p_stop_price);
  end if;
  if read.suspended then
    raise exception 'Your account is suspended: trading is disabled.' using errcode = '42501';
  end if;
  if settings.trading_halted then
    raise exception 'Trading is halted%. Cancelling open orders still works.',
      coalesce(': ' || nullif(settings.halt_reason, ''), '') using errcode = 'P0001';
  end if;
  if p_amount < settings.min_order_amount then
    raise exception 'The minimum order is % tokens.', settings.min_order_amount using errcode = '22023';
  end if;
  if p_type = 'limit' or p_stop_price is not null then
    -- The person's row, before any book: two orders at once cannot both pass the count.
    perform 1 from public.profiles where id = p_user for no key update;
  end if;
  if (p_type = 'limit' or p_stop_price is not null)
     and (select count(*) from public.orders where user_id = p_user and status in ('open', 'pending')) >= settings.max_open_orders then
    raise exception 'You have % open orders, the most allowed. Cancel one before placing another limit or stop order.',
      settings.max_open_orders using errcode = 'P0001';
  end if;
  return settings;
end $$;
revoke execute on function private.check_order_request(uuid, text, text, numeric, numeric, text, timestamp with time zone, boolean, numeric) from public;

-- How long an order lives, whether it may take liquidity, and its trigger: each term on its own,
-- then the terms together.
create function private.check_order_terms(
  settings public.exchange_settings, p_type text, tif text, p_expires_at timestamptz, p_post_only boolean, p_stop_price numeric
) returns void language plpgsql stable security definer set search_path = '' as $$
begin
  if tif not in ('gtc', 'ioc', 'fok', 'gtd') then
    perform private.refuse('The time in force must be gtc (good til cancelled), ioc (immediate or cancel), fok (fill or kill) or gtd (good til date).');
  end if;
  if tif = 'gtd' and p_expires_at is null then
    perform private.refuse('A good-til-date order needs the date and time it expires.');
  elsif tif <> 'gtd' and p_expires_at is not null then
    perform private.refuse('Only a good-til-date (gtd) order takes an expiry.');
  elsif tif = 'gtd' and p_expires_at < now() + interval '1 minute' then
    perform private.refuse('A good-til-date order must expire at least one minute from now.');
  elsif tif = 'gtd' and p_expires_at > now() + interval '90 days' then
    perform private.refuse('A good-til-date order expires within 90 days; for longer, use good til cancelled.');
  end if;
  if p_type = 'market' and tif = 'fok' then
    perform private.refuse('Fill or kill is for limit orders: a market order already fills what it can at once and cancels the rest.');
  elsif p_type = 'market' and tif = 'gtd' and p_stop_price is null then
    perform private.refuse('A market order never waits, so it cannot be good til a date: use a limit order, or a stop.');
  end if;
  if coalesce(p_post_only, false) then
    if p_type <> 'limit' or p_stop_price is not null then
      perform private.refuse('Post-only is for limit orders placed on the book now.');
    elsif tif in ('ioc', 'fok') then
      perform private.refuse('A post-only order waits on the book, so it cannot be immediate or cancel, nor fill or kill.');
    end if;
  end if;
  if p_stop_price is not null then
    if p_stop_price = 'NaN' or p_stop_price <= 0 then
      perform private.refuse('A stop needs a trigger price above $0.00.');
    elsif p_stop_price <> round(p_stop_price, 2) then
      perform private.refuse('The trigger price has at most two decimals.');
    elsif p_stop_price > settings.max_price then
      perform private.refuse(format('The trigger price cannot exceed %s.', private.money(settings.max_price)));
    elsif p_type = 'market' and tif = 'ioc' then
      perform private.refuse('A stop-market order becomes a market order, which is immediate or cancel already: use gtc or gtd for how long it waits.');
    end if;
  end if;
end $$;
revoke execute on function private.check_order_terms(public.exchange_settings, text, text, timestamp with time zone, boolean, numeric) from public;

-- What the caller can spend or sell now: for a sell, the tokens not held back; for a limit buy,
-- enough available cash for its value and fee. Returns the available cash (0 for a sell). Run
-- again after the accounts' locks, so what was read before them still holds.
create function private.check_order_funds(
  p_user uuid, p_token uuid, p_token_name text, p_side text, p_type text, p_amount bigint, p_price numeric, p_bps integer
) returns numeric language plpgsql stable security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  have numeric;
  vesting bigint;
  budget numeric;
begin
  if p_side = 'sell' then
    select coalesce(max(available), 0), coalesce(max(locked), 0) into have, vesting
      from public.holdings where user_id = p_user and token_id = p_token;
    if have < p_amount then
      raise exception 'You have % available to sell%; this order needs %.', private.tokens_of(have, p_token_name),
        case when vesting > 0 then format(' (%s more are still vesting)', vesting) else '' end, p_amount using errcode = 'P0001';
    end if;
    return 0;
  end if;
  select coalesce(max(available), 0) into budget from public.cash_accounts where user_id = p_user;
  if p_type = 'limit' and budget < private.buy_cost(p_price, p_amount, p_bps) then
    raise exception 'Insufficient funds: this order needs % (value + % fee) and you have % available.',
      private.money(private.buy_cost(p_price, p_amount, p_bps)),
      trim_scale(p_bps / 100.0)::text || '%', private.money(budget) using errcode = 'P0001';
  end if;
  return budget;
end $$;
revoke execute on function private.check_order_funds(uuid, uuid, text, text, text, bigint, numeric, integer) from public;

-- Matching an order against the book and settling its fills (trading.sql has the engine's map);
-- and the seed's ways to rest an order and record a fill through the same settlement.

-- Matches against the other side of the book, in rank order, locking each resting order as it is
-- reached and stopping when the order is filled. Returns the fills (as JSON for settle_fills), the
-- caller's own orders met (to expire), what is left, the value spent and the makers met (whose
-- accounts place_order locks).
--
-- A market order trades within a band around the last price: a market buy pays at most, and a
-- market sell accepts at least, the token's last price (its issue price before a trade) moved by
-- exchange_settings.market_band_bps, rounded to the cent inward. On a thin book one ask far above
-- the last price would otherwise fill a market buy there, while the order panel's estimate showed
-- the last price. What lies beyond the band is not met.
create function private.match_order(
  p_user uuid, p_token uuid, p_order bigint, p_side text, p_type text, p_amount bigint, p_price numeric,
  p_budget numeric, p_bps integer,
  out fills jsonb, out expire bigint[], out remaining bigint, out spent_value numeric, out makers uuid[]
) language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  other text := case when p_side = 'buy' then 'sell' else 'buy' end;
  -- A market order's band: the token's last price (its issue price before a trade) and the
  -- exchange's distance from it, the furthest price a market buy pays or a market sell accepts.
  ref numeric := case when p_type = 'market' then private.last_price(p_token) end;
  -- The worst rank the order accepts, as ranked on the other side: its limit price, or the band's edge.
  worst numeric := case when p_type = 'market' and p_side = 'buy' then private.band_edge(ref, 'buy')
                        when p_type = 'market' then -private.band_edge(ref, 'sell')
                        when p_side = 'buy' then p_price else -p_price end;
  book cursor for
    select o.id, o.user_id, o.price, o.amount - o.filled as open_amount, o.reserved
    from public.orders o
    where o.token_id = p_token and o.side = other and o.status = 'open'
      and (case when o.side = 'buy' then -o.price else o.price end) <= worst
    order by o.token_id, o.side, (case when o.side = 'buy' then -o.price else o.price end), o.created_at, o.id
    for update;
  maker record;
  n bigint;
  seq integer := 0;
begin
  fills := '[]';
  expire := '{}';
  makers := '{}';
  remaining := p_amount;
  spent_value := 0;
  for maker in book loop
    if maker.user_id = p_user then
      expire := expire || maker.id; -- met one's own order: expire it, go on
      continue;
    end if;
    n := least(remaining, maker.open_amount);
    if p_side = 'buy' and p_type = 'market' then
      n := private.affordable(n, maker.price, spent_value, p_budget, p_bps);
      exit when n <= 0;
    end if;
    seq := seq + 1;
    fills := fills || jsonb_build_object('seq', seq, 'price', maker.price, 'amount', n,
      'buyer', case when p_side = 'buy' then p_user else maker.user_id end,
      'seller', case when p_side = 'buy' then maker.user_id else p_user end,
      'buy_order', case when p_side = 'buy' then p_order else maker.id end,
      'sell_order', case when p_side = 'buy' then maker.id else p_order end,
      'buyer_reserved', case when p_side = 'buy' then 0 else maker.reserved end,
      'buyer_completes', n = maker.open_amount,
      'seller_reserved', p_side = 'buy');
    spent_value := spent_value + private.trade_value(maker.price, n);
    remaining := remaining - n;
    if not maker.user_id = any(makers) then makers := makers || maker.user_id; end if;
    exit when remaining = 0; -- before the next order is read and locked
  end loop;
  -- Nothing met, and the nearest of others' orders lies beyond the band: said as such, not as no orders.
  if p_type = 'market' and seq = 0 and (
    select min(case when o.side = 'buy' then -o.price else o.price end) from public.orders o
    where o.token_id = p_token and o.side = other and o.status = 'open' and o.user_id <> p_user) > worst then
    raise exception 'No % order for % is within % of its last price (%): a market order trades no further from it. Place a limit order at the price you accept.',
      other, (select t.name from public.tokens t where t.id = p_token),
      rtrim(rtrim(to_char((select e.market_band_bps from public.exchange_settings e) / 100.0, 'FM990.99'), '0'), '.') || '%',
      '$' || to_char(ref, 'FM999,999,990.00')
      using errcode = 'P0001';
  end if;
end $$;
revoke execute on function private.match_order(uuid, uuid, bigint, text, text, bigint, numeric, numeric, integer) from public;

-- How many of `p_want` tokens at `p_price` a market buy can still pay for, having spent
-- `p_spent` of value already: its value and the fee on the whole order's value within `p_budget`.
-- The one rule for a budget, shared by the engine (match_order) and its quote (quote_order).
create function private.affordable(p_want bigint, p_price numeric, p_spent numeric, p_budget numeric, p_bps integer)
returns bigint language plpgsql immutable set search_path = '' as $$
declare
  n bigint := least(p_want, floor((p_budget - p_spent - private.fee(p_spent, p_bps)) / (p_price * (1 + p_bps / 10000.0)))::bigint);
begin
  while n > 0 and p_spent + private.trade_value(p_price, n) + private.fee(p_spent + private.trade_value(p_price, n), p_bps) > p_budget loop
    n := n - 1;
  end loop;
  return greatest(n, 0);
end $$;
revoke execute on function private.affordable(bigint, numeric, numeric, numeric, integer) from public;

-- Settles all of an order's fills in one statement: one insert into trades, one update of each
-- account's cash, one of the sellers' holdings, one upsert of the buyers', one update of each
-- resting order met. It is the one place money and tokens move in a trade. The taker's own order
-- is written by place_order after it; this returns the fees the taker paid over the fills.
-- The taker pays p_bps (the exchange's taker fee unless told), the resting order the maker fee,
-- at most p_bps: a maker's rebate never exceeds what the same fill's taker pays, so no trade pays
-- out more than it takes.
create function private.settle_fills(
  p_token uuid, p_taker_side text, p_fills jsonb, p_at timestamptz default now(), p_bps integer default null,
  p_maker_bps integer default null
)
returns numeric language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  rules public.exchange_settings := (select e from public.exchange_settings e); -- read once: the fees and their record agree
  bps integer := coalesce(p_bps, rules.fee_bps);
  maker_bps integer := least(coalesce(p_maker_bps, rules.maker_fee_bps), bps);
  share_bps integer := rules.creator_fee_share_bps;
  taker_fees numeric;
  sellers integer;
  sellers_found integer;
begin
  if exists (select 1 from jsonb_to_recordset(p_fills) b(buyer uuid) join jsonb_to_recordset(p_fills) s(seller uuid) on b.buyer = s.seller) then
    raise exception 'An account cannot trade with itself.' using errcode = 'P0001';
  end if;
  with fill as (
    select f.*, private.trade_value(f.price, f.amount) as value, t.owner_id as creator,
           case when f.seller = private.issuance_account() then coalesce(t.owner_id, f.seller) else f.seller end as payee
    from private.fill_rows(p_fills) as f
    cross join (select owner_id from public.tokens where id = p_token) t
  ),
  charged as (
    select fill.*,
      private.fill_fee(coalesce(bo.filled_value, 0),
        coalesce(sum(fill.value) over (partition by coalesce(fill.buy_order, -fill.seq) order by fill.seq
                                       rows between unbounded preceding and 1 preceding), 0), fill.value,
        case when p_taker_side = 'buy' then bps else maker_bps end) as buyer_fee,
      private.fill_fee(coalesce(so.filled_value, 0),
        coalesce(sum(fill.value) over (partition by coalesce(fill.sell_order, -fill.seq) order by fill.seq
                                       rows between unbounded preceding and 1 preceding), 0), fill.value,
        case when p_taker_side = 'sell' then bps else maker_bps end) as seller_fee
    from fill
    left join public.orders bo on bo.id = fill.buy_order
    left join public.orders so on so.id = fill.sell_order
  ),
  -- A rebate is at most the same fill's taker fee (each is rounded on its own order's total).
  priced as (
    select c.seq, c.buyer, c.seller, c.buy_order, c.sell_order, c.price, c.amount, c.buyer_reserved, c.buyer_completes,
           c.seller_reserved, c.value, c.creator, c.payee,
           case when p_taker_side = 'sell' then greatest(c.buyer_fee, -c.seller_fee) else c.buyer_fee end as buyer_fee,
           case when p_taker_side = 'buy' then greatest(c.seller_fee, -c.buyer_fee) else c.seller_fee end as seller_fee
    from charged c
  ),
  moved as (
    select priced.*,
           case when buyer_reserved = 0 then 0
                when buyer_completes then buyer_reserved
                else least(buyer_reserved, value + buyer_fee) end as release,
           case when creator is null then 0 else round(greatest(buyer_fee + seller_fee, 0) * share_bps / 10000.0, 2) end as creator_share
    from priced
  ),
  trade as (
    insert into public.trades (token_id, buy_order_id, sell_order_id, buyer_id, seller_id, price, amount, taker_side,
                               buyer_fee, seller_fee, created_at, proceeds_to, fee_bps, maker_fee_bps, creator_id, creator_share)
    select p_token, buy_order, sell_order, buyer, seller, price, amount, p_taker_side,
           buyer_fee, seller_fee, p_at, nullif(payee, seller), bps, maker_bps, creator, creator_share
    from moved order by seq
  ),
  cash as (
    update public.cash_accounts c
       set available = c.available + m.available, reserved = c.reserved + m.reserved
      from (select user_id, sum(available) as available, sum(reserved) as reserved from (
              select buyer as user_id, release - value - buyer_fee as available, -release as reserved from moved
              union all
              select payee, value - seller_fee, 0 from moved
              union all
              select creator, creator_share, 0 from moved where creator_share > 0) x
            group by user_id) m
     where c.user_id = m.user_id
  ),
  sold as (
    update public.holdings h
       set amount = h.amount - m.amount, reserved = h.reserved - m.reserved
      from (select seller, sum(amount) as amount, sum(case when seller_reserved then amount else 0 end) as reserved
            from moved group by seller) m
     where h.user_id = m.seller and h.token_id = p_token
    returning h.user_id
  ),
  bought as (
    insert into public.holdings (user_id, token_id, amount)
    select buyer, p_token, sum(amount) from moved group by buyer
    on conflict (user_id, token_id) do update set amount = public.holdings.amount + excluded.amount
  ),
  filled as (
    update public.orders o
       set filled = o.filled + m.amount, filled_value = o.filled_value + m.value, fees_paid = o.fees_paid + m.fee,
           reserved = o.reserved - m.release,
           status = case when o.filled + m.amount = o.amount then 'filled' else o.status end
      from (select buy_order as id, sum(amount) as amount, sum(value) as value, sum(buyer_fee) as fee, sum(release) as release
            from moved where buy_order is not null group by buy_order
            union all
            select sell_order, sum(amount), sum(value), sum(seller_fee), 0
            from moved where sell_order is not null group by sell_order) m
     where o.id = m.id
  )
  select (select count(*) from sold), (select count(distinct seller) from moved),
         (select coalesce(sum(case when p_taker_side = 'buy' then buyer_fee else seller_fee end), 0) from moved)
    into sellers_found, sellers, taker_fees;
  if sellers_found < sellers then raise exception 'The seller holds none of these tokens.' using errcode = 'P0001'; end if;
  return taker_fees;
end $$;
revoke execute on function private.settle_fills(uuid, text, jsonb, timestamp with time zone, integer, integer) from public;

-- The fills' JSON as rows. PL/pgSQL, so its plan is kept (a SQL function with this estimate is not inlined).
create function private.fill_rows(p_fills jsonb)
returns table (seq integer, buyer uuid, seller uuid, buy_order bigint, sell_order bigint, price numeric, amount bigint,
               buyer_reserved numeric, buyer_completes boolean, seller_reserved boolean)
language plpgsql immutable rows 4 set search_path = '' as $$
begin
  return query
  select * from jsonb_to_recordset(p_fills) as f(seq integer, buyer uuid, seller uuid, buy_order bigint, sell_order bigint,
    price numeric, amount bigint, buyer_reserved numeric, buyer_completes boolean, seller_reserved boolean);
end $$;
revoke execute on function private.fill_rows(jsonb) from public;

-- What fill `value` of an order costs in fees at `bps`, the order having filled `base_value` before
-- this statement and `before` of value in earlier fills of the same statement: the fee on its
-- cumulative value less the fee on what came before, so an order filled in parts at one rate pays
-- what it would pay filled at once (one rounding per order). Negative for a maker's rebate.
create function private.fill_fee(base_value numeric, before numeric, value numeric, bps integer)
returns numeric language sql immutable as $$
  select private.fee(base_value + before + value, bps) - private.fee(base_value + before, bps)
$$;
revoke execute on function private.fill_fee(numeric, numeric, numeric, integer) from public;

-- Puts a limit order on the book without matching it, reserving what it may spend: cash
-- (value + fee) for a buy, tokens for a sell. Used by the seed.
create function private.rest_order(
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
revoke execute on function private.rest_order(uuid, uuid, text, numeric, bigint, timestamp with time zone) from public;

-- One fill between two accounts (the seed and tests use it), through settle_fills.
create function private.settle_trade(
  p_token uuid, p_buyer uuid, p_seller uuid, p_price numeric, p_amount bigint, p_taker_side text,
  p_buy_order bigint default null, p_sell_order bigint default null,
  p_buyer_reserved numeric default 0, p_seller_reserved boolean default false,
  p_at timestamptz default now()
) returns bigint language sql security definer set search_path = '' as $$
  select private.settle_fills(p_token, p_taker_side, jsonb_build_array(jsonb_build_object(
    'seq', 1, 'buyer', p_buyer, 'seller', p_seller, 'buy_order', p_buy_order, 'sell_order', p_sell_order,
    'price', p_price, 'amount', p_amount, 'buyer_reserved', p_buyer_reserved, 'buyer_completes', true,
    'seller_reserved', p_seller_reserved)), p_at)
$$;
revoke execute on function private.settle_trade(uuid, uuid, uuid, numeric, bigint, text, bigint, bigint, numeric, boolean, timestamp with time zone) from public;

-- What an order would do if it were placed now: the order panel's estimate, from the engine's own
-- rules (trading.sql has the engine's map), so that the screen and the engine cannot disagree.

-- Walks the other side of a token's book for `p_user`'s order as match_order does, without locking
-- or writing: others' open orders (never the user's own, which the engine expires) in rank order,
-- up to `p_worst` (ranked as match_order ranks: a buy's highest price, minus a sell's lowest), for
-- `p_want` tokens, a market buy within `p_budget` by the engine's budget rule (private.affordable).
-- Returns the tokens it fills, their value, the levels met [{price, amount}], the first and last
-- prices, and what stopped it: 'filled', 'cash', 'limit' (the bound, with the book going on beyond
-- it) or 'book' (the book ran out).
create function private.walk_book(
  p_user uuid, p_token uuid, p_side text, p_worst numeric, p_want bigint, p_budget numeric, p_bps integer,
  out filled bigint, out spent numeric, out levels jsonb, out first_price numeric, out last_fill numeric, out stopped text
) language plpgsql stable security definer set search_path = '' as $$
declare
  other text := case when p_side = 'buy' then 'sell' else 'buy' end;
  remaining bigint := p_want;
  level_price numeric;
  level_amount bigint := 0;
  maker record;
  n bigint;
begin
  spent := 0;
  levels := '[]';
  stopped := 'book';
  for maker in
    select o.price, o.amount - o.filled as open_amount
      from public.orders o
     where o.token_id = p_token and o.side = other and o.status = 'open' and o.user_id is distinct from p_user
       and (case when o.side = 'buy' then -o.price else o.price end) <= p_worst
     order by o.token_id, o.side, (case when o.side = 'buy' then -o.price else o.price end), o.created_at, o.id
  loop
    n := least(remaining, maker.open_amount);
    if p_budget is not null then
      n := private.affordable(n, maker.price, spent, p_budget, p_bps);
      if n <= 0 then stopped := 'cash'; exit; end if;
    end if;
    if level_price is distinct from maker.price then
      if level_amount > 0 then levels := levels || jsonb_build_object('price', level_price, 'amount', level_amount); end if;
      level_price := maker.price;
      level_amount := 0;
    end if;
    level_amount := level_amount + n;
    first_price := coalesce(first_price, maker.price);
    last_fill := maker.price;
    spent := spent + private.trade_value(maker.price, n);
    remaining := remaining - n;
    if remaining = 0 then stopped := 'filled'; exit; end if;
    if n < maker.open_amount then stopped := 'cash'; exit; end if; -- the budget stopped it within this order
  end loop;
  if level_amount > 0 then levels := levels || jsonb_build_object('price', level_price, 'amount', level_amount); end if;
  -- The walk ended at the order's bound with the book going on beyond it.
  if stopped = 'book' and exists (
    select 1 from public.orders o
     where o.token_id = p_token and o.side = other and o.status = 'open' and o.user_id is distinct from p_user
       and (case when o.side = 'buy' then -o.price else o.price end) > p_worst) then
    stopped := 'limit';
  end if;
  filled := p_want - remaining;
end $$;
revoke execute on function private.walk_book(uuid, uuid, text, numeric, bigint, numeric, integer) from public;

-- Walks the book as match_order would for the caller's order, without locking or writing anything:
-- others' open orders on the other side in rank order, within the order's limit price or, for a
-- market order, the band around the last price; a market buy stops where the caller's cash (or
-- p_max_total, "spend $50") runs out, by the engine's rule for a budget (private.affordable). The
-- caller's own orders are skipped, as the engine expires them. p_amount may be null for a market buy
-- with p_max_total: then the walk buys as many tokens as the sum covers.
--
-- Returns, in numbers the panel formats:
--   filled, value, fee, total (a buy pays value + fee, a sell receives value - fee),
--   average_price, best_price and worst_price of the fills, levels [{price, amount}] met;
--   remaining, what did not fill at once, and why (stopped_by: 'filled', 'cash', 'limit' for a
--   limit price or the market band, 'book' when the book ran out); resting, what of it would wait
--   on the book (a limit order good til cancelled or a date), rest_value at its limit, rest_fee (the
--   fee's rise when it fills) and, for a buy, rest_cost, the cash it holds back;
--   last_price, band_bps, band_edge (the furthest price a market order meets), impact_bps (how far
--   the worst fill lies from the last price), best_bid, best_ask (others' orders);
--   cash and held (what the caller may spend and sell); blocked, a halt, and refusal, what the
--   engine's funds check (or, for a post-only or fill-or-kill limit, its maker terms) would refuse
--   the order with, each in the engine's words.
create function public.quote_order(
  p_token uuid, p_side text, p_type text default 'market', p_amount numeric default null,
  p_price numeric default null, p_time_in_force text default 'gtc', p_max_total numeric default null,
  p_post_only boolean default false
) returns jsonb language plpgsql stable security definer set search_path = '' as $$
declare
  uid uuid := auth.uid();
  settings public.exchange_settings;
  tok public.tokens;
  ref numeric;
  edge numeric;
  worst numeric;
  cash numeric := 0;
  held bigint := 0;
  budget numeric;
  want bigint;
  remaining bigint;
  spent numeric := 0;
  walk record;
  fee numeric;
  rests boolean;
  rest_value numeric := 0;
  rest_fee numeric := 0;
  blocked text;
  refusal text;
begin
  if p_side is null or p_side not in ('buy', 'sell') then perform private.refuse('The side must be buy or sell.'); end if;
  if p_type is null or p_type not in ('market', 'limit') then perform private.refuse('The order type must be market or limit.'); end if;
  if p_amount is not null and (p_amount = 'NaN' or p_amount < 1 or p_amount <> trunc(p_amount)) then
    perform private.refuse('The amount must be a whole number of tokens, at least 1.');
  end if;
  if p_type = 'limit' and (p_price is null or p_price = 'NaN' or p_price <= 0) then
    perform private.refuse('A limit order needs a price above $0.00.');
  end if;
  if p_max_total is not null and (p_side <> 'buy' or p_type <> 'market' or p_max_total = 'NaN' or p_max_total <= 0) then
    perform private.refuse('A spending limit is for market buys, above $0.00.');
  end if;
  if p_amount is null and p_max_total is null then perform private.refuse('Give an amount of tokens or a sum to spend.'); end if;

  select * into settings from public.exchange_settings;
  select * into tok from public.tokens where id = p_token;
  if not found then perform private.refuse('There is no such token.'); end if;
  if tok.halt_reason is not null then
    blocked := format('Trading in %s is halted: %s.', tok.name, rtrim(tok.halt_reason, '.'));
  elsif settings.trading_halted then
    blocked := 'Trading is halted' || coalesce(': ' || nullif(rtrim(settings.halt_reason, '.'), ''), '') || '.';
  end if;
  if uid is not null then
    select coalesce(max(available), 0) into cash from public.cash_accounts where user_id = uid;
    select coalesce(max(available), 0) into held from public.holdings where user_id = uid and token_id = p_token;
  end if;

  -- What the engine's funds check would say of this order (the same function, its words).
  if uid is not null and p_amount is not null then
    begin
      perform private.check_order_funds(uid, p_token, tok.name, p_side, p_type, p_amount::bigint, p_price, settings.fee_bps);
    exception when sqlstate 'P0001' then
      refusal := sqlerrm;
    end;
  end if;
  -- And what the engine says of a post-only order that would trade, or a fill-or-kill that cannot fill.
  if uid is not null and p_amount is not null and refusal is null and p_type = 'limit'
     and (coalesce(p_post_only, false) or p_time_in_force = 'fok') then
    begin
      perform private.check_maker_terms(uid, tok, p_side, p_amount::bigint, p_price, coalesce(p_post_only, false));
    exception when sqlstate 'P0001' then
      refusal := sqlerrm;
    end;
  end if;

  ref := private.last_price(p_token);
  edge := private.band_edge(ref, p_side);
  -- The worst rank the order accepts, ranked as match_order ranks the other side.
  worst := case when p_type = 'market' and p_side = 'buy' then edge when p_type = 'market' then -edge
                when p_side = 'buy' then p_price else -p_price end;
  budget := case when p_side = 'buy' and p_type = 'market'
                 then case when uid is null then coalesce(p_max_total, 'Infinity') else least(cash, coalesce(p_max_total, cash)) end end;
  want := coalesce(p_amount, tok.total_supply)::bigint;

  walk := private.walk_book(uid, p_token, p_side, worst, want, budget, settings.fee_bps);
  -- "Spend $50" asks for what the sum covers, so nothing of it remains.
  if p_amount is null then want := walk.filled; end if;
  remaining := want - walk.filled;
  spent := walk.spent;

  fee := private.fee(spent, settings.fee_bps);
  rests := p_type = 'limit' and remaining > 0 and coalesce(p_time_in_force, 'gtc') in ('gtc', 'gtd');
  if rests then
    rest_value := private.trade_value(p_price, remaining);
    rest_fee := private.fee(spent + rest_value, settings.fee_bps) - fee; -- one fee on the order's whole value
  end if;

  return jsonb_build_object(
    'side', p_side,
    'type', p_type,
    'amount', want,
    'filled', walk.filled,
    'value', spent,
    'fee', fee,
    'total', case when p_side = 'buy' then spent + fee else spent - fee end,
    'average_price', case when spent > 0 then round(spent / walk.filled, 2) end,
    'best_price', walk.first_price,
    'worst_price', walk.last_fill,
    'levels', walk.levels,
    'remaining', remaining,
    'stopped_by', walk.stopped,
    'resting', case when rests then remaining else 0 end,
    'rest_value', rest_value,
    'rest_fee', rest_fee,
    'rest_cost', case when p_side = 'buy' then rest_value + rest_fee else 0 end,
    'last_price', ref,
    'band_bps', settings.market_band_bps,
    'band_edge', edge,
    'impact_bps', case when walk.last_fill is not null and ref > 0 then round((walk.last_fill - ref) / ref * 10000) end,
    'best_bid', (select max(o.price) from public.orders o where o.token_id = p_token and o.side = 'buy' and o.status = 'open' and o.user_id is distinct from uid),
    'best_ask', (select min(o.price) from public.orders o where o.token_id = p_token and o.side = 'sell' and o.status = 'open' and o.user_id is distinct from uid),
    'fee_bps', settings.fee_bps,
    'cash', cash,
    'held', held,
    'blocked', blocked,
    'refusal', refusal
  );
end $$;
revoke execute on function public.quote_order(uuid, text, text, numeric, numeric, text, numeric, boolean) from public, anon;

-- Stops (held off the book until their trigger), take-profit and stop pairs, and the expiry of
-- good-til-date orders (trading.sql has the engine's map).

-- Holds a stop off the book until its trigger (private.trigger_stops), reserving now what it may
-- spend, as a resting order does: a sell its tokens; a stop-limit buy its limit's value and fee; a
-- stop-market buy the value and fee of its amount at the band's edge from the trigger, the most a
-- market buy may pay when the price reaches the trigger (should the price be beyond by then, it
-- fills what that covers and cancels the rest). The stop leg of a pair (p_oco_with) shares its
-- take-profit's tokens and reserves none of its own.
create function private.hold_stop(
  p_user uuid, tok public.tokens, p_side text, p_type text, p_amount bigint, p_price numeric, p_stop numeric,
  p_tif text, p_expires_at timestamptz, p_bps integer, p_oco_with bigint default null
) returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  last numeric := private.last_price(tok.id);
  cost numeric := 0;
  v_order bigint;
begin
  perform private.check_stop_terms(p_side, p_type, p_price, p_stop, last);
  if p_side = 'buy' then
    cost := private.buy_cost(coalesce(p_price, private.band_edge(p_stop, 'buy')), p_amount, p_bps);
    perform private.check_order_funds(p_user, tok.id, tok.name, 'buy', 'limit', p_amount,
      coalesce(p_price, private.band_edge(p_stop, 'buy')), p_bps);
    update public.cash_accounts set available = available - cost, reserved = reserved + cost where user_id = p_user;
  elsif p_oco_with is null then
    perform private.check_order_funds(p_user, tok.id, tok.name, 'sell', p_type, p_amount, p_price, p_bps);
    update public.holdings set reserved = reserved + p_amount where user_id = p_user and token_id = tok.id;
  end if;
  insert into public.orders (user_id, token_id, side, type, price, amount, reserved, status, created_at,
                             time_in_force, expires_at, stop_price, oco_with)
  values (p_user, tok.id, p_side, p_type, p_price, p_amount, cost, 'pending', clock_timestamp(),
          p_tif, p_expires_at, p_stop, p_oco_with)
  returning id into v_order;
  perform private.tell_accounts(array[p_user], 'orders', tok.id); -- a stop waits off the book: the market sees nothing
  return jsonb_build_object('order_id', v_order, 'status', 'pending', 'side', p_side, 'type', p_type,
    'time_in_force', p_tif, 'amount', p_amount, 'filled', 0, 'resting', 0, 'stop_price', p_stop,
    'average_price', null, 'value', 0, 'fee', 0, 'total', 0, 'reserved', cost);
end $$;
revoke execute on function private.hold_stop(uuid, public.tokens, text, text, bigint, numeric, numeric, text, timestamp with time zone, integer, bigint) from public;

-- A stop waits for the price to move to it: a buy stop's trigger above the last price, a sell
-- stop's below (at it, it would trigger at once). A stop-limit's limit lies on the far side of its
-- trigger, so that it can trade once triggered: at or above it for a buy, at or below for a sell.
create function private.check_stop_terms(p_side text, p_type text, p_price numeric, p_stop numeric, last numeric)
returns void language plpgsql stable security definer set search_path = '' as $$
begin
  if p_side = 'buy' and p_stop <= last then
    perform private.refuse(format('A buy stop triggers when the price rises to it, so its trigger must be above the last price of %s. To buy now, place a market or limit order.', private.money(last)));
  elsif p_side = 'sell' and p_stop >= last then
    perform private.refuse(format('A sell stop triggers when the price falls to it, so its trigger must be below the last price of %s. To sell now, place a market or limit order.', private.money(last)));
  end if;
  if p_type = 'limit' and p_side = 'buy' and p_price < p_stop then
    perform private.refuse(format('A buy stop-limit''s limit price must be at or above its trigger of %s: it buys once the price has risen there.', private.money(p_stop)));
  elsif p_type = 'limit' and p_side = 'sell' and p_price > p_stop then
    perform private.refuse(format('A sell stop-limit''s limit price must be at or below its trigger of %s: it sells once the price has fallen there.', private.money(p_stop)));
  end if;
end $$;
revoke execute on function private.check_stop_terms(text, text, numeric, numeric, numeric) from public;

-- Runs the book's stops that the last price has reached, in the transaction of the trade that moved
-- it. One at a time, in a fixed order: buy stops before sell stops, the trigger the price crossed
-- first (lowest buy, highest sell), then the oldest; the last price is read again after each, so
-- one stop's fills may trigger the next (a cascade). Each stop enters the book at its trigger's
-- time as its owner's order, through the same engine, fees and band. One that cannot trade then (a
-- market stop facing an empty book or band, a fill-or-kill that cannot fill, funds that changed) is
-- cancelled and its reservation released, without undoing the trade that triggered it. At most
-- 1,000 stops run per transaction; any left wait for the next trade. Returns how many ran.
--
-- A stop's accounts are locked after the accounts of the trade that triggered it, so not in the
-- engine's ascending order: another trade, in another token, may hold one of them and wait for one
-- of ours (a deadlock, which PostgreSQL would end by failing one of the two orders). So a stop
-- waits at most 100 ms for a lock; one that cannot have it is left waiting, the cascade ends, the
-- trade commits, and private.run_due_stops runs the stop within seconds.
create function private.trigger_stops(tok public.tokens, p_bps integer) returns integer
language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  -- The cascade's bound: enough for any book we have seen, and an order's time stays bounded.
  cap constant integer := 1000;
  last numeric;
  s public.orders;
  n integer := 0;
  lock_wait text := current_setting('lock_timeout');
begin
  perform set_config('lock_timeout', '100ms', true);
  while n < cap loop
    last := private.last_price(tok.id);
    select * into s from public.orders o
     where o.token_id = tok.id and o.side = 'buy' and o.status = 'pending' and o.stop_price <= last
     order by o.token_id, o.side, (case when o.side = 'buy' then o.stop_price else -o.stop_price end), o.id
     limit 1 for update;
    if not found then
      select * into s from public.orders o
       where o.token_id = tok.id and o.side = 'sell' and o.status = 'pending' and -o.stop_price <= -last
       order by o.token_id, o.side, (case when o.side = 'buy' then o.stop_price else -o.stop_price end), o.id
       limit 1 for update;
      exit when not found;
    end if;
    n := n + 1;
    begin
      update public.orders set triggered_at = clock_timestamp() where id = s.id;
      if s.side = 'buy' then
        update public.cash_accounts set available = available + s.reserved, reserved = reserved - s.reserved where user_id = s.user_id;
      elsif s.oco_with is null then
        update public.holdings set reserved = reserved - s.amount where user_id = s.user_id and token_id = tok.id;
      else
        perform private.release_order(s.oco_with); -- the take-profit gives the pair's tokens back
      end if;
      perform private.execute_order(s.user_id, tok, s.id, s.side, s.type, s.amount, s.price, s.time_in_force,
        s.expires_at, false, p_bps, case when s.side = 'buy' then s.reserved end);
    exception
      when sqlstate 'P0001' or sqlstate '22023' then
        begin
          perform private.release_order(s.id);
        exception when lock_not_available then
          exit; -- refused again by the sweep, and released then
        end;
      when lock_not_available then
        exit;
    end;
  end loop;
  perform set_config('lock_timeout', lock_wait, true);
  return n;
end $$;
revoke execute on function private.trigger_stops(public.tokens, integer) from public;

-- Runs the stops whose trigger the last price has reached but that a trade's transaction left
-- waiting (their accounts were busy: private.trigger_stops), each book's lock first. Run every few
-- seconds by the local server's scheduler; on a hosted project by pg_cron (supabase/cron.sql).
create function private.run_due_stops() returns integer
language plpgsql security definer set search_path = '' as $$
declare
  due uuid;
  tok public.tokens;
  n integer := 0;
begin
  for due in
    select distinct o.token_id from public.orders o join private.token_stats s on s.token_id = o.token_id
    where o.status = 'pending'
      and ((o.side = 'buy' and o.stop_price <= s.price) or (o.side = 'sell' and o.stop_price >= s.price))
    order by o.token_id
  loop
    select * into tok from public.tokens where id = due for no key update;
    if tok.halt_reason is null then n := n + private.trigger_stops(tok, private.fee_bps()); end if;
  end loop;
  return n;
end $$;
revoke execute on function private.run_due_stops() from public;

-- A take-profit and a stop on one holding, one cancelling the other, in one transaction: a sell
-- limit above the last price and a sell stop (market, or limit at p_stop_limit) below it, on one
-- reservation of the tokens, held by the take-profit. When the take-profit fills, the stop is
-- cancelled; when it partly fills, the stop shrinks to what is left (private.oco_follow); when the
-- stop triggers, the take-profit is cancelled; cancelling either cancels both. Holdings are never
-- short, so a pair protects a holding: it sells.
create function public.place_oco(
  p_token uuid, p_amount numeric, p_take_profit numeric, p_stop_price numeric, p_stop_limit numeric default null,
  p_time_in_force text default 'gtc', p_expires_at timestamptz default null
) returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  settings public.exchange_settings := private.check_order_request(auth.uid(), 'sell', 'limit', p_amount, p_take_profit,
    p_time_in_force, p_expires_at, false, null);
  tok public.tokens;
  tif text := coalesce(p_time_in_force, 'gtc');
  take_profit jsonb;
  stop jsonb;
begin
  if tif not in ('gtc', 'gtd') then
    perform private.refuse('A take-profit and stop pair waits for the price: its time in force is gtc or gtd.');
  end if;
  perform private.check_order_request(auth.uid(), 'sell', case when p_stop_limit is null then 'market' else 'limit' end,
    p_amount, p_stop_limit, tif, p_expires_at, false, p_stop_price);
  tok := private.lock_book(p_token, p_amount);
  if p_take_profit <= private.last_price(p_token) then
    perform private.refuse(format('A take-profit sells above the last price of %s: set it higher, or sell now with a market or limit order.',
      private.money(private.last_price(p_token))));
  end if;
  perform private.check_stop_terms('sell', case when p_stop_limit is null then 'market' else 'limit' end,
    p_stop_limit, p_stop_price, private.last_price(p_token));
  take_profit := private.execute_order(auth.uid(), tok, null, 'sell', 'limit', p_amount::bigint, p_take_profit, tif,
    p_expires_at, false, settings.fee_bps, null);
  if take_profit->>'status' = 'open' then
    stop := private.hold_stop(auth.uid(), tok, 'sell', case when p_stop_limit is null then 'market' else 'limit' end,
      (take_profit->>'resting')::bigint, p_stop_limit, p_stop_price, tif, p_expires_at, settings.fee_bps,
      (take_profit->>'order_id')::bigint);
    update public.orders set oco_with = (stop->>'order_id')::bigint where id = (take_profit->>'order_id')::bigint;
  end if;
  if (take_profit->>'value')::numeric > 0 then perform private.trigger_stops(tok, settings.fee_bps); end if;
  return jsonb_build_object('take_profit', take_profit, 'stop', stop);
end $$;
revoke execute on function public.place_oco(uuid, numeric, numeric, numeric, numeric, text, timestamp with time zone) from public, anon;

-- A pair's take-profit filled: all of it cancels its stop; part of it shrinks the stop to what is
-- left, so the stop never sells tokens the take-profit sold.
create function private.oco_follow() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if new.filled = new.amount then
    update public.orders set status = 'cancelled' where id = new.oco_with and status = 'pending' and triggered_at is null;
  else
    update public.orders set amount = new.amount - new.filled where id = new.oco_with and status = 'pending' and triggered_at is null;
  end if;
  return null;
end $$;
revoke execute on function private.oco_follow() from public;
create trigger orders_oco_follow after update of filled on public.orders
  for each row when (new.oco_with is not null and new.stop_price is null and new.filled > old.filled)
  execute function private.oco_follow();

-- Expires good-til-date orders past their time, each book's lock first, as the engine takes them;
-- their reservations are released. Run every few seconds by the local server's scheduler; on a
-- hosted project by pg_cron (supabase/cron.sql).
create function private.expire_orders() returns integer
language plpgsql security definer set search_path = '' as $$
declare
  o record;
  n integer := 0;
begin
  for o in
    select id, token_id, user_id from public.orders
    where status in ('open', 'pending') and expires_at is not null and expires_at <= now()
    order by expires_at limit 500
  loop
    perform 1 from public.tokens where id = o.token_id for no key update;
    perform private.release_order(o.id, 'expired');
    perform private.tell_market(o.token_id, 'book', private.order_levels(array[o.id]));
    perform private.tell_accounts(array[o.user_id], 'orders', o.token_id);
    n := n + 1;
  end loop;
  return n;
end $$;
revoke execute on function private.expire_orders() from public;

-- Changing what is on the book: releasing, cancelling one order or all, replacing one, and a
-- token's trading halt (trading.sql has the engine's map).

-- Closes an open order or a waiting stop (cancelled, or expired) and releases what it held back.
-- Cancelling one order of a take-profit and stop pair cancels the other. The caller holds the
-- book's lock.
create function private.release_order(p_order bigint, p_status text default 'cancelled') returns void
language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  o public.orders;
begin
  select * into o from public.orders where id = p_order for update;
  -- Closed already, or a stop entering the book now (private.trigger_stops).
  if o.status not in ('open', 'pending') or (o.status = 'pending' and o.triggered_at is not null) then return; end if;
  if o.side = 'buy' then
    update public.cash_accounts set reserved = reserved - o.reserved, available = available + o.reserved where user_id = o.user_id;
  elsif not (o.status = 'pending' and o.oco_with is not null) then -- a pair's waiting stop holds no tokens of its own
    update public.holdings set reserved = reserved - (o.amount - o.filled) where user_id = o.user_id and token_id = o.token_id;
  end if;
  update public.orders set status = p_status, reserved = 0 where id = p_order;
  if o.oco_with is not null then perform private.release_order(o.oco_with, p_status); end if;
end $$;
revoke execute on function private.release_order(bigint, text) from public;

-- The time an order stops being open, whoever closes it.
create function private.stamp_closed() returns trigger
language plpgsql as $$
begin
  if new.status not in ('open', 'pending') and old.status in ('open', 'pending') then new.closed_at := clock_timestamp(); end if;
  return new;
end $$;
revoke execute on function private.stamp_closed() from public;
create trigger orders_closed_at before update of status on public.orders
  for each row execute function private.stamp_closed();

-- Cancels one of the caller's open orders.
create function public.cancel_order(p_order bigint) returns jsonb
language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  uid uuid := auth.uid();
  o public.orders;
  levels jsonb;
begin
  if uid is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_second_step();
  perform private.require_scope('trade');
  select * into o from public.orders where id = p_order and user_id = uid;
  if not found then raise exception 'You have no order #%.', p_order using errcode = 'P0001'; end if;
  perform 1 from public.tokens where id = o.token_id for no key update; -- the book's lock first
  select * into o from public.orders where id = p_order for update;
  if o.status not in ('open', 'pending') then raise exception 'Order #% is already %.', p_order, o.status using errcode = 'P0001'; end if;
  perform private.release_order(p_order);
  levels := private.order_levels(array[p_order]);
  -- A waiting stop (and a stop-market pair's stop) never was on the book: the market sees nothing.
  if jsonb_array_length(levels) > 0 then perform private.tell_market(o.token_id, 'book', levels); end if;
  perform private.tell_accounts(array[uid], 'orders', o.token_id);
  return jsonb_build_object('order_id', p_order, 'status', 'cancelled', 'released_tokens',
    case when o.side = 'sell' then o.amount - o.filled else 0 end, 'released_cash', o.reserved);
end $$;
revoke execute on function public.cancel_order(bigint) from public, anon;

-- Cancels all of the caller's open orders, or those in one token. Returns how many.
create function public.cancel_all_orders(p_token uuid default null) returns integer
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := auth.uid();
begin
  if uid is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_second_step();
  perform private.require_scope('trade');
  return private.cancel_all_of(uid, p_token);
end $$;
revoke execute on function public.cancel_all_orders(uuid) from public, anon;

-- Cancels all of an account's open orders (or those in one token): every book's lock first, in
-- token order, as the engine takes them; the market and the owner's screens are told.
create function private.cancel_all_of(p_user uuid, p_token uuid) returns integer
language plpgsql security definer set search_path = '' as $$
declare
  books uuid[];
  o bigint;
  released bigint[] := '{}';
  b uuid;
  n integer := 0;
begin
  select coalesce(array_agg(distinct token_id order by token_id), '{}') into books
  from public.orders where user_id = p_user and status in ('open', 'pending') and (p_token is null or token_id = p_token);
  perform 1 from public.tokens where id = any (books) order by id for no key update;
  for o in
    select id from public.orders
    where user_id = p_user and status in ('open', 'pending') and token_id = any (books)
    order by id for update
  loop
    perform private.release_order(o);
    released := released || o;
    n := n + 1;
  end loop;
  foreach b in array books loop
    perform private.tell_market(b, 'book', private.order_levels(
      array(select r.id from public.orders r where r.id = any (released) and r.token_id = b)));
  end loop;
  if n > 0 then perform private.tell_accounts(array[p_user], 'orders', p_token); end if;
  return n;
end $$;
revoke execute on function private.cancel_all_of(uuid, uuid) from public;

-- Cancels several of the caller's orders (up to 100), each on its own: one that cannot be
-- cancelled (unknown, already filled) is reported with why, and the others are cancelled all the
-- same. Books are locked in token order, as the engine takes them. Returns one result per id, in
-- the order given: cancel_order's, or {order_id, error}.
create function public.cancel_orders(p_orders bigint[]) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := auth.uid();
  results jsonb := '{}';
  o record;
begin
  if uid is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_scope('trade');
  if p_orders is null or cardinality(p_orders) not between 1 and 100 then
    perform private.refuse('Name 1 to 100 orders to cancel.');
  end if;
  for o in
    select distinct x.id, r.token_id from unnest(p_orders) x (id) left join public.orders r on r.id = x.id and r.user_id = uid
    order by r.token_id nulls first, x.id
  loop
    begin
      results := results || jsonb_build_object(o.id::text, public.cancel_order(o.id));
    exception when others then
      results := results || jsonb_build_object(o.id::text, jsonb_build_object('order_id', o.id, 'error', sqlerrm));
    end;
  end loop;
  return (select jsonb_agg(results -> x::text order by i) from unnest(p_orders) with ordinality u (x, i));
end $$;
revoke execute on function public.cancel_orders(bigint[]) from public, anon;

-- The dead-man's switch, as Kraken has it: cancel_all_after(60) arms it, and if it is not called
-- again within 60 seconds every open order of the account is cancelled (private.fire_cancel_after,
-- every second) and the owner is told. A bot calls it as a heartbeat, so a crash or a lost
-- connection leaves no stale quotes; 0 turns it off. Returns when it fires (null: off).
create table private.cancel_after (
  user_id uuid primary key references public.profiles (id) on delete cascade,
  deadline timestamptz not null,
  seconds integer not null
);
create index cancel_after_deadline_idx on private.cancel_after (deadline);

create function public.cancel_all_after(p_seconds integer) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.trading_caller();
  at timestamptz;
begin
  if p_seconds is null or p_seconds not between 0 and 86400 then
    perform private.refuse('Give the seconds to wait, 1 to 86400, or 0 to turn the switch off.');
  end if;
  if p_seconds = 0 then
    delete from private.cancel_after where user_id = uid;
    return jsonb_build_object('armed', false, 'deadline', null);
  end if;
  insert into private.cancel_after (user_id, deadline, seconds) values (uid, now() + make_interval(secs => p_seconds), p_seconds)
  on conflict (user_id) do update set deadline = excluded.deadline, seconds = excluded.seconds
  returning deadline into at;
  return jsonb_build_object('armed', true, 'deadline', at, 'seconds', p_seconds);
end $$;
revoke execute on function public.cancel_all_after(integer) from public, anon;

-- Fires the switches whose time has come: each account's open orders cancelled, and the owner
-- mailed. Each account in its own subtransaction, so one that fails waits for the next run.
create function private.fire_cancel_after() returns integer
language plpgsql security definer set search_path = '' as $$
declare
  due private.cancel_after;
  n integer;
  fired integer := 0;
begin
  for due in
    delete from private.cancel_after where user_id in
      (select user_id from private.cancel_after where deadline <= now() order by deadline limit 100 for update skip locked)
    returning *
  loop
    begin
      n := private.cancel_all_of(due.user_id, null);
      insert into private.account_mail (user_id, subject, body)
      values (due.user_id, 'Your orders were cancelled by your dead-man''s switch',
        format(E'Your API client had not called cancel_all_after within %s seconds (by %s UTC), so RepX '
               'cancelled your %s open order%s, as you asked. Call cancel_all_after again to re-arm it.',
               due.seconds, to_char(due.deadline at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS'), n, case when n = 1 then '' else 's' end));
      fired := fired + 1;
    exception when others then
      insert into private.cancel_after values (due.user_id, now() + interval '1 second', due.seconds);
    end;
  end loop;
  return fired;
end $$;
revoke execute on function private.fire_cancel_after() from public;

-- Edits a resting order or a waiting stop: cancels it and places its new terms, in one
-- transaction. A refused new order (cash, a halt, bad input) leaves the old one as it was; the new
-- one takes the book's time of now and trades at once if it crosses, as replaced orders do on most
-- exchanges. It keeps the old one's time in force and post-only. A stop keeps its type and takes a
-- new trigger (p_stop_price, or its old one); p_price is a stop-limit's limit (none for a
-- stop-market). `p_filled` is what the owner saw filled: if a taker met the order meanwhile,
-- nothing is changed (PostgREST's 409), so an edit never puts back what was taken. A pair's order
-- is not edited on its own: cancelling it cancels both.
create function public.replace_order(
  p_order bigint, p_amount numeric, p_price numeric, p_filled bigint default null, p_stop_price numeric default null
) returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  o public.orders;
  filled_now bigint;
  stop numeric;
begin
  perform private.require_scope('trade');
  select * into o from public.orders where id = p_order and user_id = auth.uid();
  stop := case when o.status = 'pending' then coalesce(p_stop_price, o.stop_price) end;
  if o.status in ('open', 'pending') and p_amount = o.amount - o.filled and p_price is not distinct from o.price
     and stop is not distinct from o.stop_price then
    raise exception 'Order #% already % at that price and amount.', p_order,
      case when o.status = 'pending' then 'waits' else 'rests' end using errcode = 'P0001';
  end if;
  if o.oco_with is not null and o.status in ('open', 'pending') then
    perform private.refuse(format('Order #%s is one of a take-profit and stop pair: cancel the pair and place it again.', p_order));
  end if;
  -- It refuses a caller signed out, an order not theirs, one no longer open.
  perform public.cancel_order(p_order);
  select filled into filled_now from public.orders where id = p_order;
  if p_filled is not null and filled_now is distinct from p_filled then
    raise exception 'Order #% traded while you were changing it: % of % tokens are filled now, % left. Nothing was changed.',
      p_order, filled_now, o.amount, o.amount - filled_now using errcode = 'PT409';
  end if;
  return public.place_order(o.token_id, o.side, case when stop is null then 'limit' else o.type end, p_amount, p_price,
    o.time_in_force, o.expires_at, o.post_only, stop) || jsonb_build_object('replaced', p_order);
end $$;
revoke execute on function public.replace_order(bigint, numeric, numeric, bigint, numeric) from public, anon;

-- An admin halts trading in one token, with a reason, as exchanges halt one symbol: while a fraud
-- alert on it is reviewed, or news is pending. New orders on it are refused with the reason (the
-- book's lock is taken first, so an order that arrives during the halt never trades); its resting
-- orders stay on the book and may be cancelled; the rest of the market trades on. Resuming lifts
-- it. Both are audited, mailed to the token's person, and told to the market (realtime.sql),
-- so open trading screens follow at once.
create function public.admin_set_token_halt(p_token uuid, p_halted boolean, p_reason text default null)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  admin uuid := private.require_admin();
  tok public.tokens;
  reason text := nullif(btrim(p_reason), '');
begin
  if p_halted is null then perform private.refuse('Say whether trading in the token is halted.'); end if;
  select * into tok from public.tokens where id = p_token for no key update; -- the book's lock: no order is half through
  if not found then perform private.refuse('There is no such token.'); end if;
  if p_halted and (reason is null or char_length(reason) not between 3 and 200) then
    perform private.refuse('Give a reason of 3 to 200 characters: traders see it.');
  end if;
  if p_halted then perform private.refuse_hidden_characters(reason, 'The reason'); end if;
  if p_halted = (tok.halt_reason is not null) and (not p_halted or reason = tok.halt_reason) then
    perform private.refuse(format('Trading in %s is %s already.', tok.name, case when p_halted then 'halted' else 'open' end));
  end if;
  update public.tokens
     set halt_reason = case when p_halted then reason end,
         halted_at = case when p_halted then coalesce(tok.halted_at, now()) end
   where id = p_token;
  perform private.tell_market(p_token, 'halt');
  if tok.owner_id is not null then
    insert into private.account_mail (user_id, subject, body)
    values (tok.owner_id,
      case when p_halted then 'Trading in your RepX token is halted' else 'Trading in your RepX token has resumed' end,
      case when p_halted
        then format(E'RepX halted trading in your token %s on %s: %s.\n'
                    'Orders already on the book stay there and may be cancelled; no new order is accepted until trading resumes. We will email you when it does.',
               tok.name, to_char(now() at time zone 'UTC', 'Mon FMDD, YYYY, HH24:MI "UTC"'), rtrim(reason, '.'))
        else format('Trading in your token %s resumed on %s: orders are accepted again.',
               tok.name, to_char(now() at time zone 'UTC', 'Mon FMDD, YYYY, HH24:MI "UTC"'))
      end);
    perform pg_notify('repx_mail', '');
  end if;
  perform private.audit(case when p_halted then 'token.halt' else 'token.resume' end, tok.owner_id, tok.name,
    jsonb_build_object('halt_reason', tok.halt_reason), jsonb_build_object('halt_reason', case when p_halted then reason end),
    case when p_halted then reason end);
  return jsonb_build_object('token_id', p_token, 'halted', p_halted, 'halt_reason', case when p_halted then reason end);
end $$;
revoke execute on function public.admin_set_token_halt(uuid, boolean, text) from public, anon;

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
  insert into private.account_mail (user_id, subject, body)
  values (uid, 'A withdrawal was requested from your RepX account',
    format(E'A withdrawal of %s to %s was requested from your RepX account.\n'
           'If it was not you, cancel it in your Wallet while it is pending, then reset your password with Forgot password? on the sign-in page.',
      private.money(p_amount), w.method));
  perform pg_notify('repx_mail', '');
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
  insert into private.account_mail (user_id, subject, body)
  values (uid, 'A bank account was added to your RepX account',
    format(E'The bank account %s •••• %s was added to your RepX account. For your security, it can receive withdrawals from %s.\n'
           'If it was not you, reset your password now with Forgot password? on the sign-in page, then remove the account in your Wallet.',
      d.label, d.account_last4, to_char(d.usable_from at time zone 'UTC', 'Mon FMDD, YYYY, HH24:MI "UTC"')));
  perform pg_notify('repx_mail', '');
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

-- The market: what every screen shows about a token (its price, market cap, 24h change, 24h
-- volume and holders), the market's list, search and counts, and a token's price history.
--
-- The figures are maintained, not recomputed on every read: one row per token holds them, kept
-- exact by triggers in the transaction that changes trades, holdings or the token (so they hold
-- whoever writes: the engine, an offering, the seed), and indexed for every sort the market offers.
--
-- Sliding: a trade leaves the 24h window 24 hours after it was made, which changes that token's
-- volume and the price its change compares with. `slides_at` is the next such moment for the
-- token; private.slide_token_stats() (run every few seconds by the scheduler, pg_cron on a hosted
-- project) recomputes the tokens whose moment has come. Between two runs a figure can be a few
-- seconds late; it is never approximate.

create table private.token_stats (
  token_id uuid primary key references public.tokens (id) on delete cascade,
  price numeric(12, 2) not null,
  market_cap numeric not null,
  change_24h numeric not null default 0,
  volume_24h numeric not null default 0,
  holders bigint not null default 0,
  -- The newest trade: a trade older than it (a back-dated insert) recomputes the row instead.
  last_trade_at timestamptz,
  last_trade_id bigint,
  -- What the 24h change compares with: the last price at least 24 hours old, else the first trade's.
  day_ago_price numeric,
  first_price numeric,
  slides_at timestamptz,
  -- The token's own fields that the market filters on, copied from its row (tokens_stats_copy),
  -- so that a filtered count reads this one table (market_tokens leaves tokens out of it).
  category text not null,
  reputation_score numeric(5, 2) not null,
  verified boolean not null,
  halted boolean not null
);
-- (sort column, token) serves both directions of each sort, ties broken by token id.
create index token_stats_market_cap_idx on private.token_stats (market_cap, token_id);
create index token_stats_price_idx on private.token_stats (price, token_id);
create index token_stats_change_idx on private.token_stats (change_24h, token_id);
create index token_stats_volume_idx on private.token_stats (volume_24h, token_id);
create index token_stats_holders_idx on private.token_stats (holders, token_id);
create index token_stats_reputation_idx on private.token_stats (reputation_score, token_id);
create index token_stats_category_idx on private.token_stats (category);
create index token_stats_slides_idx on private.token_stats (slides_at) where slides_at is not null;

create function private.change_pct(price numeric, base numeric) returns numeric
language sql immutable as $$ select coalesce(round((price - base) / nullif(base, 0) * 100, 2), 0) $$;

-- The exact figures of one token, from its trades and holdings (the definition the triggers keep).
-- Holders are counted when the row is made; after that the holdings trigger alone keeps them (a
-- recount here could meet holdings changes whose triggers have not fired yet, and count them twice).
create function private.refresh_token_stats(p_token uuid) returns void
language plpgsql security definer set search_path = '' as $$
declare
  day_start timestamptz := now() - interval '24 hours';
  tok record;
  last_trade record;
  day_ago numeric;
  first numeric;
  volume numeric;
  oldest timestamptz;
  held bigint;
  price numeric;
begin
  select t.total_supply, t.issue_price, t.category, t.reputation_score, t.verified, t.halt_reason is not null as halted
    into tok from public.tokens t where t.id = p_token;
  if not found then return; end if;
  select tr.price, tr.created_at, tr.id into last_trade
    from public.trades tr where tr.token_id = p_token order by tr.created_at desc, tr.id desc limit 1;
  select tr.price into day_ago
    from public.trades tr where tr.token_id = p_token and tr.created_at <= day_start order by tr.created_at desc, tr.id desc limit 1;
  select tr.price into first from public.trades tr where tr.token_id = p_token order by tr.created_at, tr.id limit 1;
  select coalesce(sum(tr.value), 0), min(tr.created_at) into volume, oldest
    from public.trades tr where tr.token_id = p_token and tr.created_at > day_start;
  select count(*) into held from public.holdings h
   where h.token_id = p_token and h.amount > 0 and h.user_id <> private.issuance_account();
  price := coalesce(last_trade.price, tok.issue_price);
  insert into private.token_stats as s (token_id, price, market_cap, change_24h, volume_24h, holders,
                                        last_trade_at, last_trade_id, day_ago_price, first_price, slides_at,
                                        category, reputation_score, verified, halted)
  values (p_token, price, round(price * tok.total_supply, 2),
          private.change_pct(price, coalesce(day_ago, first, tok.issue_price)), volume, held,
          last_trade.created_at, last_trade.id, day_ago, first, oldest + interval '24 hours',
          tok.category, tok.reputation_score, tok.verified, tok.halted)
  on conflict (token_id) do update set
    price = excluded.price, market_cap = excluded.market_cap, change_24h = excluded.change_24h,
    volume_24h = excluded.volume_24h, last_trade_at = excluded.last_trade_at,
    last_trade_id = excluded.last_trade_id, day_ago_price = excluded.day_ago_price,
    first_price = excluded.first_price, slides_at = excluded.slides_at, category = excluded.category,
    reputation_score = excluded.reputation_score, verified = excluded.verified, halted = excluded.halted;
end $$;
revoke execute on function private.refresh_token_stats(uuid) from public;

-- A token's figures and its candles move once per settlement: a statement trigger sees the
-- statement's trades together (settle_fills inserts an order's trades in one statement) and
-- updates each token's row once, not once per trade under the book's lock. The newest trade sets
-- the price and the change, the volume grows by the trades' sum, and the oldest sets the first
-- price and when the volume starts to slide, if they were not set. Trades older than the token's
-- last trade or than 24 hours (a back-dated insert) recompute the token's figures from its trades
-- instead. The candles (below) are upserted in the same pass: one trigger rather than two, since
-- every settlement pays for each trigger it fires.
create function private.stats_on_trades() returns trigger
language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  batch record;
  oldest public.trades;
  newest public.trades;
begin
  for batch in
    select n.token_id, sum(n.value) as value, array_agg(n::public.trades order by n.created_at, n.id) as trades,
           max(n.price) as high, min(n.price) as low, sum(n.amount)::bigint as volume, count(*)::integer as count
    from new_trades n group by n.token_id
  loop
    oldest := batch.trades[1];
    newest := batch.trades[cardinality(batch.trades)];
    update private.token_stats s set
      price = newest.price,
      market_cap = round(newest.price * (select total_supply from public.tokens where id = batch.token_id), 2),
      volume_24h = s.volume_24h + batch.value,
      first_price = coalesce(s.first_price, oldest.price),
      change_24h = private.change_pct(newest.price, coalesce(s.day_ago_price, s.first_price, oldest.price)),
      last_trade_at = newest.created_at,
      last_trade_id = newest.id,
      slides_at = coalesce(s.slides_at, oldest.created_at + interval '24 hours')
    where s.token_id = batch.token_id
      and oldest.created_at > now() - interval '24 hours'
      and (s.last_trade_at is null or (oldest.created_at, oldest.id) > (s.last_trade_at, s.last_trade_id));
    if not found then
      perform private.refresh_token_stats(batch.token_id); -- no row yet, or back-dated: recompute
    end if;

    -- One candle row per interval. A settlement's trades share one time, so they fall in one
    -- bucket of each interval and fold into six rows without grouping them again; trades at
    -- several times (the seed, a bulk load) go through candle_rows, which groups them by bucket.
    insert into public.candles as c
    select * from private.candle_rows(batch.trades) where oldest.created_at <> newest.created_at
    union all
    select batch.token_id, i.seconds, to_timestamp(floor(extract(epoch from oldest.created_at) / i.seconds) * i.seconds),
           oldest.price, batch.high, batch.low, newest.price, batch.volume, batch.count,
           oldest.created_at, oldest.id, newest.created_at, newest.id
    from unnest(array[60, 300, 900, 3600, 14400, 86400]) i (seconds) where oldest.created_at = newest.created_at
    on conflict (token_id, seconds, bucket) do update set
      open = case when (excluded.opened_at, excluded.opened_id) < (c.opened_at, c.opened_id) then excluded.open else c.open end,
      opened_at = least(c.opened_at, excluded.opened_at),
      opened_id = case when (excluded.opened_at, excluded.opened_id) < (c.opened_at, c.opened_id) then excluded.opened_id else c.opened_id end,
      close = case when (excluded.closed_at, excluded.closed_id) > (c.closed_at, c.closed_id) then excluded.close else c.close end,
      closed_at = greatest(c.closed_at, excluded.closed_at),
      closed_id = case when (excluded.closed_at, excluded.closed_id) > (c.closed_at, c.closed_id) then excluded.closed_id else c.closed_id end,
      high = greatest(c.high, excluded.high),
      low = least(c.low, excluded.low),
      volume = c.volume + excluded.volume,
      trades = c.trades + excluded.trades;
  end loop;
  return null;
end $$;
create trigger trades_stats after insert on public.trades
  referencing new table as new_trades
  for each statement execute function private.stats_on_trades();

-- A holder is an account (not the offering account) holding at least one token: only a change
-- between none and some moves the count, so most fills do not touch the row here.
create function private.stats_on_holding() returns trigger
language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  was boolean := tg_op <> 'INSERT' and old.amount > 0 and old.user_id <> private.issuance_account();
  now_held boolean := tg_op <> 'DELETE' and new.amount > 0 and new.user_id <> private.issuance_account();
begin
  if was <> now_held then
    update private.token_stats set holders = holders + case when now_held then 1 else -1 end
     where token_id = case when tg_op = 'DELETE' then old.token_id else new.token_id end;
  end if;
  return null;
end $$;
create trigger holdings_stats_insert after insert on public.holdings
  for each row when (new.amount > 0) execute function private.stats_on_holding();
create trigger holdings_stats_update after update of amount on public.holdings
  for each row when ((old.amount > 0) <> (new.amount > 0)) execute function private.stats_on_holding();
create trigger holdings_stats_delete after delete on public.holdings
  for each row when (old.amount > 0) execute function private.stats_on_holding();

create function private.stats_on_token() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform private.refresh_token_stats(new.id);
  return null;
end $$;
create trigger tokens_stats_insert after insert on public.tokens
  for each row execute function private.stats_on_token();
create trigger tokens_stats_update after update of issue_price, total_supply on public.tokens
  for each row execute function private.stats_on_token();

-- The fields the market filters on follow the token's row: a rescoring, a verification, a halt,
-- a move to another category.
create function private.stats_copy_token() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  update private.token_stats
     set category = new.category, reputation_score = new.reputation_score, verified = new.verified,
         halted = new.halt_reason is not null
   where token_id = new.id;
  return null;
end $$;
create trigger tokens_stats_copy after update of category, reputation_score, verified, halt_reason on public.tokens
  for each row when (old.category is distinct from new.category or old.reputation_score is distinct from new.reputation_score
                     or old.verified is distinct from new.verified or (old.halt_reason is null) is distinct from (new.halt_reason is null))
  execute function private.stats_copy_token();

-- Recomputes the tokens a trade has just left the 24h window of, a batch at a time. Each token's
-- row lock is taken first, as the engine takes it, so a trade cannot slip between read and write.
create function private.slide_token_stats() returns integer
language plpgsql security definer set search_path = '' as $$
declare
  tid uuid;
  before jsonb;
  n integer := 0;
begin
  -- The batch due first, locked in token order, as the hourly rescoring locks tokens: two
  -- transactions that lock several tokens in one order cannot deadlock.
  for tid in select x.token_id from (select d.token_id from private.token_stats d where d.slides_at <= now()
                                     order by d.slides_at limit 500) x order by x.token_id loop
    perform 1 from public.tokens where id = tid for no key update;
    before := (select jsonb_build_object('market_cap', s.market_cap, 'volume_24h', s.volume_24h)
                 from private.token_stats s where s.token_id = tid);
    perform private.refresh_token_stats(tid);
    perform private.tell_market(tid, 'stats', '[]', null, before);
    n := n + 1;
  end loop;
  return n;
end $$;
revoke execute on function private.slide_token_stats() from public;

-- How many tokens each category has, kept by a trigger: the market's page count and its category
-- list read a handful of rows instead of counting every token.
create table private.token_counts (
  category text primary key,
  tokens bigint not null check (tokens >= 0)
);
create function private.count_tokens() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op in ('UPDATE', 'DELETE') then
    update private.token_counts set tokens = tokens - 1 where category = old.category;
    delete from private.token_counts where category = old.category and tokens = 0;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    insert into private.token_counts as c (category, tokens) values (new.category, 1)
    on conflict (category) do update set tokens = c.tokens + 1;
  end if;
  return null;
end $$;
create trigger tokens_count after insert or delete or update of category on public.tokens
  for each row execute function private.count_tokens();

-- The market's table: each token with its figures. search_text is what the search matches
-- (tokens.sql); `halted` tells a trader before they open one. Built on token_stats, with tokens
-- joined on the left: a query that asks for no column of tokens (a filtered count) reads one
-- table, as PostgreSQL leaves out a left join to a unique key that nothing uses.
create view public.market_tokens as
select
  s.token_id as id,
  t.owner_id,
  t.name,
  t.username,
  s.category,
  s.reputation_score,
  t.avatar_url,
  s.verified,
  t.total_supply,
  s.price,
  s.change_24h,
  s.volume_24h,
  s.market_cap,
  s.holders,
  t.total_supply - (select coalesce(sum(h.amount), 0) from public.holdings h
                    where h.token_id = t.id and h.user_id <> private.issuance_account()) as available_supply,
  t.search_text,
  s.halted
from private.token_stats s
left join public.tokens t on t.id = s.token_id;
revoke all on public.market_tokens from anon;
revoke insert, update, delete, truncate on public.market_tokens from authenticated;

-- The categories with their token counts (the market's filter).
create view public.token_categories as
select category, tokens::int as tokens from private.token_counts;
revoke all on public.token_categories from anon;

-- The four figures above the market table.
create view public.market_summary as
select
  (select coalesce(sum(market_cap), 0) from private.token_stats) as total_market_cap,
  (select coalesce(sum(value), 0) from public.trades where created_at > now() - interval '24 hours') as volume_24h,
  (select coalesce(sum(tokens), 0)::bigint from private.token_counts) as active_tokens,
  (select count(distinct user_id) from public.holdings where amount > 0 and user_id <> private.issuance_account()) as total_traders;
revoke all on public.market_summary from anon;

-- Candles: each token's open, high, low, close and volume per interval (1m, 5m, 15m, 1h, 4h, 1d),
-- kept up to date by the trades' statement trigger (private.stats_on_trades, above), so the chart
-- reads stored rows and never aggregates trades per request. Buckets are UTC, aligned to their
-- interval from the Unix epoch. The open and the close are the first and last trade by (time,
-- id), whatever order trades are inserted in (the seed back-dates them); a bucket without trades
-- has no row.
create table public.candles (
  token_id uuid not null references public.tokens (id) on delete cascade,
  seconds integer not null check (seconds in (60, 300, 900, 3600, 14400, 86400)),
  bucket timestamptz not null,
  open numeric(12, 2) not null,
  high numeric(12, 2) not null,
  low numeric(12, 2) not null,
  close numeric(12, 2) not null,
  -- Tokens traded, and how many trades.
  volume bigint not null,
  trades integer not null,
  opened_at timestamptz not null,
  opened_id bigint not null,
  closed_at timestamptz not null,
  closed_id bigint not null,
  primary key (token_id, seconds, bucket)
) with (fillfactor = 70); -- room on each page, so a candle's update stays on its page (HOT)
alter table public.candles enable row level security;
create policy "candles are visible to signed-in users" on public.candles
  for select to authenticated using (true);
revoke all on public.candles from anon;
revoke insert, update, delete, truncate on public.candles from authenticated;

-- The candle intervals, by the names the chart offers.
create function private.candle_seconds(p_interval text) returns integer
language sql immutable as $$
  select case p_interval when '1m' then 60 when '5m' then 300 when '15m' then 900
                         when '1h' then 3600 when '4h' then 14400 when '1d' then 86400 end
$$;
revoke execute on function private.candle_seconds(text) from public;

-- Trades folded into candle rows: one per token, interval and bucket they fall in. PL/pgSQL, so
-- that the trades' trigger does not plan it again at each call (a SQL function with SET would).
create function private.candle_rows(p_trades public.trades[]) returns setof public.candles
language plpgsql stable set search_path = '' as $$
begin
  -- The prices as the table types them: a PL/pgSQL result must match its columns' precision too.
  return query
  select b.token_id, b.seconds, b.bucket,
         (array_agg(b.price order by b.created_at, b.id))[1]::numeric(12, 2), max(b.price)::numeric(12, 2),
         min(b.price)::numeric(12, 2), (array_agg(b.price order by b.created_at desc, b.id desc))[1]::numeric(12, 2),
         sum(b.amount)::bigint, count(*)::integer,
         (array_agg(b.created_at order by b.created_at, b.id))[1], (array_agg(b.id order by b.created_at, b.id))[1],
         (array_agg(b.created_at order by b.created_at desc, b.id desc))[1],
         (array_agg(b.id order by b.created_at desc, b.id desc))[1]
  from (select n.token_id, n.id, n.price, n.amount, n.created_at, i.seconds,
               to_timestamp(floor(extract(epoch from n.created_at) / i.seconds) * i.seconds) as bucket
        from unnest(p_trades) n cross join (values (60), (300), (900), (3600), (14400), (86400)) i (seconds)) b
  group by b.token_id, b.seconds, b.bucket;
end $$;
revoke execute on function private.candle_rows(public.trades[]) from public;


-- Every candle computed again from the trades, a token and a UTC day at a time (no candle spans
-- two days, so no day's candles need another's trades): for a database whose trades came before
-- its candles (the migration that added them runs it).
create function private.rebuild_candles() returns void
language plpgsql security definer set search_path = '' as $$
declare
  d record;
begin
  delete from public.candles;
  for d in select distinct token_id, date_trunc('day', created_at at time zone 'UTC') as day from public.trades loop
    insert into public.candles
    select * from private.candle_rows(array(
      select t from public.trades t
      where t.token_id = d.token_id
        and t.created_at >= d.day at time zone 'UTC' and t.created_at < (d.day + interval '1 day') at time zone 'UTC'));
  end loop;
end $$;
revoke execute on function private.rebuild_candles() from public;

-- A token's latest `p_limit` candles of an interval (1m, 5m, 15m, 1h, 4h or 1d), oldest first:
-- the chart's read, a walk back along the primary key.
create function public.candles(p_token uuid, p_interval text default '1h', p_limit integer default 300)
returns table (bucket timestamptz, open numeric, high numeric, low numeric, close numeric, volume bigint)
language plpgsql stable security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
#variable_conflict use_column
declare
  secs integer := private.candle_seconds(p_interval);
begin
  if secs is null then perform private.refuse('The interval must be 1m, 5m, 15m, 1h, 4h or 1d.'); end if;
  return query
  select x.bucket, x.open, x.high, x.low, x.close, x.volume from (
    select c.bucket, c.open, c.high, c.low, c.close, c.volume from public.candles c
    where c.token_id = p_token and c.seconds = secs
    order by c.bucket desc
    limit least(greatest(coalesce(p_limit, 300), 1), 1000)) x
  order by x.bucket;
end $$;
revoke execute on function public.candles(uuid, text, integer) from public, anon;

-- Hourly closing prices of a token over the last `hours` hours (the price chart). An hour without
-- trades carries the previous close forward; an hour that ended before the token was listed has
-- no price, so a new token's chart starts at its listing.
create function public.price_history(p_token uuid, p_hours integer default 24)
returns table (bucket timestamptz, price numeric)
language plpgsql stable security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
#variable_conflict use_column
begin
  return query
  with hours as (
    select generate_series(date_trunc('hour', now()) - make_interval(hours => least(greatest(p_hours, 1), 720) - 1),
                           date_trunc('hour', now()), interval '1 hour') as bucket
  ),
  token as (select t.created_at, t.issue_price from public.tokens t where t.id = p_token)
  select h.bucket,
         case when h.bucket + interval '1 hour' > tk.created_at then
           coalesce(
             (select tr.price from public.trades tr
               where tr.token_id = p_token and tr.created_at < h.bucket + interval '1 hour'
               order by tr.created_at desc, tr.id desc limit 1),
             tk.issue_price)
         end as price
  from hours h left join token tk on true
  order by h.bucket;
end $$;
revoke execute on function public.price_history(uuid, integer) from public, anon;

-- Offerings: a new token's first sale is a batch (call) auction, not a race to the first buyer.
--
-- Approval (tokens.sql, admin_approve_application) opens a subscription window
-- (exchange_settings.offering_window_minutes, a day by default). During it anyone may place,
-- change and cancel one bid (a price and an amount); its cost (value + fee) is reserved as a
-- resting buy's is. Bids are sealed: the book shows only the indicative clearing price and the
-- total demand (public.offering_book). Until the close, continuous trading in the token is refused
-- (orders.sql, private.lock_book).
--
-- At the close one clearing price is set (private.offering_clearing), the price that fills the most
-- tokens; between prices that fill as many, the one that leaves the least demand unfilled; then
-- the higher. Everyone who bid at or above it pays that price; bids above it fill in full; bids at
-- it share what is left pro rata, rounded down, the tokens left over going one each by bid time
-- (private.offering_allocations). No account bids for more than a cap fixed at the opening
-- (exchange_settings.offering_cap_bps of the offering). What is not sold stays with the issuance
-- account. The close settles every allocation through the engine's settlement (matching.sql,
-- settle_fills: the person receives value - fee and their fee share), so continuous trading opens
-- at the clearing price, the last trade's.
--
-- The close happens once: the scheduler takes a due offering `for update skip locked` and closes
-- it in one transaction (a crash undoes all of it; another process skips it or finds it closed).
-- A hosted project's pg_cron calls private.close_due_offerings, which does the same (supabase/cron.sql).
-- Locks, always in this order: the offering, the token, then cash accounts and holdings in
-- ascending user id (as the engine's).

create table public.offerings (
  id bigint generated always as identity primary key,
  token_id uuid not null references public.tokens (id) on delete cascade,
  -- The tokens on offer, and the lowest price a bid may name: the token's issue price.
  supply bigint not null check (supply > 0),
  reserve_price numeric(12, 2) not null check (reserve_price > 0),
  -- The most one account may bid for, and the fee rate its trades pay: both fixed at the opening.
  account_cap bigint not null check (account_cap > 0),
  fee_bps integer not null check (fee_bps between 0 and 1000),
  opens_at timestamptz not null default now(),
  closes_at timestamptz not null,
  -- Set by the close: when, at what price (none without a bid), and how many tokens were sold.
  closed_at timestamptz,
  clearing_price numeric(12, 2) check (clearing_price > 0),
  sold bigint not null default 0,
  check (closes_at > opens_at),
  check (sold between 0 and supply),
  check (closed_at is not null or (clearing_price is null and sold = 0))
);
create unique index offerings_open_idx on public.offerings (token_id) where closed_at is null;
create index offerings_due_idx on public.offerings (closes_at) where closed_at is null;
create index offerings_token_idx on public.offerings (token_id, opens_at desc);
alter table public.offerings enable row level security;
create policy "offerings are visible to signed-in users" on public.offerings
  for select to authenticated using (true);
revoke all on public.offerings from anon;
revoke insert, update, delete, truncate on public.offerings from authenticated;

-- One bid per account and offering. `placed_at` is its time priority at the margin: a higher
-- price or a larger amount takes a new one, a smaller amount keeps it. At the close, `allocated`
-- is what it received and its reservation is released.
create table public.offering_bids (
  offering_id bigint not null references public.offerings (id) on delete cascade,
  user_id uuid not null references public.profiles (id) on delete cascade,
  price numeric(12, 2) not null check (price > 0),
  amount bigint not null check (amount > 0),
  reserved numeric(14, 2) not null check (reserved >= 0),
  placed_at timestamptz not null default clock_timestamp(),
  allocated bigint check (allocated between 0 and amount),
  primary key (offering_id, user_id)
);
create index offering_bids_user_idx on public.offering_bids (user_id);
alter table public.offering_bids enable row level security;
-- Sealed: a bidder sees their own bid, an admin every bid.
create policy "own bids" on public.offering_bids
  for select to authenticated using (user_id = (select auth.uid()) or (select private.is_admin()));
revoke all on public.offering_bids from anon;
revoke insert, update, delete, truncate on public.offering_bids from authenticated;

-- The price the offering would clear at now: the most tokens filled, then the least demand left
-- unfilled, then the higher price (among the prices bid). Its volume, and the total demand. Bids of
-- suspended accounts do not count. No bids: no price, nothing filled.
create function private.offering_clearing(p_offering bigint, out price numeric, out volume bigint, out demand bigint)
language sql stable security definer set search_path = '' as $$
  with bid as (
    select b.price, b.amount from public.offering_bids b
      join public.profiles p on p.id = b.user_id and p.status = 'active'
     where b.offering_id = p_offering
  ),
  curve as (
    select l.price, sum(l.amount) over (order by l.price desc) as wanted
      from (select bid.price, sum(bid.amount) as amount from bid group by bid.price) l
  ),
  best as (
    select c.price, least(c.wanted, f.supply)::bigint as volume
      from curve c cross join public.offerings f where f.id = p_offering
     order by least(c.wanted, f.supply) desc, abs(c.wanted - f.supply), c.price desc
     limit 1
  )
  select best.price, coalesce(best.volume, 0), (select coalesce(sum(bid.amount), 0)::bigint from bid)
    from (select 1) one left join best on true
$$;
revoke execute on function private.offering_clearing(bigint) from public;
-- offering_book calls it as its reader: it answers aggregates only.
grant execute on function private.offering_clearing(bigint) to authenticated;

-- What each bid receives at the clearing price: in full above it; pro rata at it, rounded down,
-- the tokens left over one each to the earliest bids (then by account id); nothing below it.
create function private.offering_allocations(p_offering bigint)
returns table (user_id uuid, price numeric, amount bigint, reserved numeric, allocated bigint)
language sql stable security definer set search_path = '' as $$
  with clearing as (select * from private.offering_clearing(p_offering)),
  bid as (
    select b.* from public.offering_bids b
      join public.profiles p on p.id = b.user_id and p.status = 'active'
     where b.offering_id = p_offering
  ),
  margin as (
    select coalesce(sum(b.amount) filter (where b.price = c.price), 0) as wanted,
           -- What the bids above the margin leave of the volume (all of the margin when undersubscribed).
           c.volume - coalesce(sum(b.amount) filter (where b.price > c.price), 0) as left_over
      from clearing c left join bid b on true
     group by c.volume
  ),
  base as (
    select b.user_id, b.price, b.amount, b.reserved, b.placed_at, b.price = c.price as marginal,
           case when b.price > c.price then b.amount
                when b.price = c.price then floor(b.amount * m.left_over / m.wanted::numeric)::bigint
                else 0 end as share
      from bid b cross join clearing c cross join margin m
  ),
  ranked as (
    select base.*,
           row_number() over (partition by base.marginal order by base.placed_at, base.user_id) as turn,
           (select m.left_over from margin m) - sum(base.share) filter (where base.marginal) over () as remainder
      from base
  )
  select r.user_id, r.price, r.amount, r.reserved,
         r.share + case when r.marginal and r.turn <= r.remainder then 1 else 0 end
    from ranked r
$$;
revoke execute on function private.offering_allocations(bigint) from public;

-- Opens a new token's offering of `p_supply` tokens, which the issuance account holds, at the
-- issue price; called by the approval. Returns the offering.
create function private.open_offering(p_token uuid, p_supply bigint, p_price numeric)
returns public.offerings language plpgsql security definer set search_path = '' as $$
declare
  s public.exchange_settings;
  f public.offerings;
begin
  select * into s from public.exchange_settings;
  insert into public.offerings (token_id, supply, reserve_price, account_cap, fee_bps, closes_at)
  values (p_token, p_supply, p_price, greatest(1, floor(p_supply * s.offering_cap_bps / 10000.0)::bigint), s.fee_bps,
          now() + make_interval(mins => s.offering_window_minutes))
  returning * into f;
  return f;
end $$;
revoke execute on function private.open_offering(uuid, bigint, numeric) from public;

-- An admin offers again what an offering left unsold (what the issuance account holds of the
-- token), by a new batch auction with the same rules: the window and cap of the settings now, the
-- lowest bid at `p_price` (the last price if none is given). Trading in the token waits for its
-- close, as at the launch; resting orders stay on the book and may be cancelled. Audited.
create function public.admin_offer_unsold(p_token uuid, p_price numeric default null) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  admin uuid := private.require_admin();
  tok public.tokens;
  unsold bigint;
  price numeric;
  f public.offerings;
begin
  select * into tok from public.tokens where id = p_token for no key update;
  if tok.id is null then perform private.refuse('There is no such token.'); end if;
  if exists (select 1 from public.offerings where token_id = p_token and closed_at is null) then
    perform private.refuse(format('An offering of %s is open already.', tok.name));
  end if;
  if tok.halt_reason is not null then perform private.refuse(format('Trading in %s is halted: resume it first.', tok.name)); end if;
  select h.amount - h.reserved into unsold from public.holdings h
   where h.token_id = p_token and h.user_id = private.issuance_account() for update;
  if coalesce(unsold, 0) <= 0 then
    perform private.refuse(format('Nothing of %s is left to offer: the issuance account holds none.', tok.name));
  end if;
  price := coalesce(p_price, private.last_price(p_token));
  if price <= 0 or price <> round(price, 2) or price > (select max_price from public.exchange_settings) then
    perform private.refuse(format('The lowest bid must be between $0.01 and %s, in cents.',
      private.money((select max_price from public.exchange_settings))));
  end if;
  f := private.open_offering(p_token, unsold, price);
  -- Its trading state changed: open screens read the token's offering again.
  perform private.tell_market(p_token, 'offering');
  perform private.audit('offering.open', tok.owner_id, tok.name, null,
    jsonb_build_object('offering', f.id, 'supply', f.supply, 'reserve_price', f.reserve_price, 'closes_at', f.closes_at));
  return to_jsonb(f);
end $$;
revoke execute on function public.admin_offer_unsold(uuid, numeric) from public, anon;

-- The token's open offering, locked, for a change to a bid now: refused in words when there is
-- none, when its window is over, or when the token is halted.
create function private.lock_open_offering(p_token uuid) returns public.offerings
language plpgsql security definer set search_path = '' as $$
declare
  f public.offerings;
  tok public.tokens;
begin
  select * into f from public.offerings where token_id = p_token and closed_at is null for update;
  select * into tok from public.tokens where id = p_token;
  if tok.id is null then perform private.refuse('There is no such token.'); end if;
  if f.id is null then perform private.refuse(format('%s has no open offering: trade it on the order book.', tok.name)); end if;
  if clock_timestamp() >= f.closes_at then
    perform private.refuse(format('The offering of %s has closed; its bids are being settled.', tok.name));
  end if;
  if tok.halt_reason is not null then
    perform private.refuse(format('Trading in %s is halted: %s. Cancelling a bid still works.', tok.name, rtrim(tok.halt_reason, '.')));
  end if;
  return f;
end $$;
revoke execute on function private.lock_open_offering(uuid) from public;

-- Places the caller's bid in a token's open offering, or changes it: its cost (value + fee at the
-- offering's rate) is reserved from available cash, the old bid's released. A bid is a limit buy
-- in the auction: the order's checks apply (sign-in, second step, whole tokens, a price in cents,
-- suspension, an exchange-wide halt), then the offering's: no lower than the issue price, no more
-- than the account cap, not in one's own token.
create function public.place_offering_bid(p_token uuid, p_price numeric, p_amount numeric)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := auth.uid();
  settings public.exchange_settings := private.check_order_request(uid, 'buy', 'limit', p_amount, p_price);
  f public.offerings := private.lock_open_offering(p_token);
  tok public.tokens;
  was public.offering_bids;
  bid public.offering_bids;
  cost numeric := private.buy_cost(p_price, p_amount, f.fee_bps);
begin
  select * into tok from public.tokens where id = p_token;
  if tok.owner_id = uid then perform private.refuse('You cannot bid in your own token''s offering.'); end if;
  if p_price < f.reserve_price then
    perform private.refuse(format('Bids start at the issue price, %s.', private.money(f.reserve_price)));
  end if;
  if p_amount > f.account_cap then
    perform private.refuse(format('One account may bid for at most %s tokens in this offering.',
      to_char(f.account_cap, 'FM999,999,999,990')));
  end if;
  perform 1 from public.cash_accounts where user_id = uid for update;
  select * into was from public.offering_bids where offering_id = f.id and user_id = uid for update;
  if was.user_id is not null then
    update public.cash_accounts set available = available + was.reserved, reserved = reserved - was.reserved where user_id = uid;
  end if;
  perform private.check_order_funds(uid, p_token, tok.name, 'buy', 'limit', p_amount::bigint, p_price, f.fee_bps);
  update public.cash_accounts set available = available - cost, reserved = reserved + cost where user_id = uid;
  insert into public.offering_bids (offering_id, user_id, price, amount, reserved)
  values (f.id, uid, p_price, p_amount, cost)
  on conflict (offering_id, user_id) do update
    set price = excluded.price, amount = excluded.amount, reserved = excluded.reserved,
        placed_at = case when excluded.price = was.price and excluded.amount <= was.amount then was.placed_at
                         else excluded.placed_at end
  returning * into bid;
  perform private.tell_market(p_token, 'offering');
  return jsonb_build_object('price', bid.price, 'amount', bid.amount, 'reserved', bid.reserved, 'placed_at', bid.placed_at,
                            'closes_at', f.closes_at);
end $$;
revoke execute on function public.place_offering_bid(uuid, numeric, numeric) from public, anon;

-- Cancels the caller's bid in a token's open offering and releases its reservation.
create function public.cancel_offering_bid(p_token uuid) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := auth.uid();
  f public.offerings;
  was public.offering_bids;
begin
  if uid is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_second_step();
  perform private.require_scope('trade');
  select * into f from public.offerings where token_id = p_token and closed_at is null for update;
  if f.id is null or clock_timestamp() >= f.closes_at then
    perform private.refuse('This offering has closed; its bids are settled.');
  end if;
  perform 1 from public.cash_accounts where user_id = uid for update;
  delete from public.offering_bids where offering_id = f.id and user_id = uid returning * into was;
  if was.user_id is null then perform private.refuse('You have no bid in this offering.'); end if;
  update public.cash_accounts set available = available + was.reserved, reserved = reserved - was.reserved where user_id = uid;
  perform private.tell_market(p_token, 'offering');
  return jsonb_build_object('released', was.reserved);
end $$;
revoke execute on function public.cancel_offering_bid(uuid) from public, anon;

-- Closes the offering that has been due longest, if any: allocates, settles every allocation as
-- one trade of the issuance account's at the clearing price, releases every reservation, records
-- the result and mails each bidder. Returns whether it closed one. An offering waits while its
-- token or the exchange is halted.
create function private.close_next_offering() returns boolean
language plpgsql security definer set search_path = '' as $$
declare
  f public.offerings;
  c record;
  tok public.tokens;
  fills jsonb;
  total_sold bigint;
begin
  select o.* into f from public.offerings o
   where o.closed_at is null and o.closes_at <= now()
     and not (select trading_halted from public.exchange_settings)
     and not exists (select 1 from public.tokens t where t.id = o.token_id and t.halt_reason is not null)
   order by o.closes_at
   limit 1 for update of o skip locked;
  if f.id is null then return false; end if;
  select * into tok from public.tokens where id = f.token_id for no key update;
  if tok.halt_reason is not null then return false; end if;
  perform 1 from public.cash_accounts
   where user_id in (select b.user_id from public.offering_bids b where b.offering_id = f.id) or user_id = tok.owner_id
   order by user_id for update;
  perform 1 from public.holdings
   where token_id = f.token_id
     and (user_id in (select b.user_id from public.offering_bids b where b.offering_id = f.id) or user_id = private.issuance_account())
   order by user_id for update;

  select * into c from private.offering_clearing(f.id);
  update public.offering_bids b set allocated = a.allocated
    from private.offering_allocations(f.id) a where b.offering_id = f.id and b.user_id = a.user_id;
  update public.offering_bids set allocated = 0 where offering_id = f.id and allocated is null; -- suspended accounts
  select coalesce(sum(b.allocated), 0) into total_sold from public.offering_bids b where b.offering_id = f.id;

  -- Each allocation is a trade: the bid's whole reservation is released, its value and fee paid.
  select jsonb_agg(jsonb_build_object('seq', n, 'buyer', user_id, 'seller', private.issuance_account(),
           'price', c.price, 'amount', allocated, 'buyer_reserved', reserved, 'buyer_completes', true,
           'seller_reserved', false) order by n)
    into fills
    from (select b.*, row_number() over (order by b.user_id) as n
            from public.offering_bids b where b.offering_id = f.id and b.allocated > 0) x;
  if fills is not null then
    perform private.settle_fills(f.token_id, 'buy', fills, now(), f.fee_bps, f.fee_bps);
  end if;
  -- Every other reservation (bids below the price, or of suspended accounts) goes back.
  update public.cash_accounts ca set available = ca.available + b.reserved, reserved = ca.reserved - b.reserved
    from public.offering_bids b
   where b.offering_id = f.id and b.user_id = ca.user_id and b.allocated = 0;
  update public.offering_bids set reserved = 0 where offering_id = f.id;
  update public.offerings set closed_at = now(), clearing_price = case when total_sold > 0 then c.price end, sold = total_sold
   where id = f.id;

  insert into private.account_mail (user_id, subject, body)
  select b.user_id,
         format('%s offering: %s', tok.name, case when b.allocated > 0 then format('%s tokens at %s', to_char(b.allocated, 'FM999,999,999,990'), private.money(c.price))
                                                 else 'no tokens' end),
         case when b.allocated > 0
              then format('The offering of %s closed at %s a token. Your bid for %s at %s received %s tokens; you paid %s plus the fee, and the rest of what your bid held back is available again.',
                          tok.name, private.money(c.price), to_char(b.amount, 'FM999,999,999,990'), private.money(b.price),
                          to_char(b.allocated, 'FM999,999,999,990'),
                          private.money(private.trade_value(c.price, b.allocated)))
              else format('The offering of %s closed%s. Your bid for %s at %s received no tokens, and all it held back is available again.',
                          tok.name, case when total_sold > 0 then ' at ' || private.money(c.price) || ' a token' else '' end,
                          to_char(b.amount, 'FM999,999,999,990'), private.money(b.price))
         end
    from public.offering_bids b where b.offering_id = f.id;
  perform pg_notify('repx_mail', '');
  perform private.tell_market(f.token_id, 'offering');
  perform private.tell_accounts(array(select b.user_id from public.offering_bids b where b.offering_id = f.id), 'fills', f.token_id);
  perform private.tell_accounts(array[tok.owner_id], 'cash', f.token_id);
  return true;
end $$;
revoke execute on function private.close_next_offering() from public;

-- Closes due offerings until none is left (or p_most), each in its own transaction: pg_cron's call
-- (supabase/cron.sql). A procedure that commits can have neither SECURITY DEFINER nor a
-- search_path of its own: hence the schema.
create procedure private.close_due_offerings(p_most integer default 100)
language plpgsql as $$
begin
  for i in 1..p_most loop
    exit when not private.close_next_offering();
    commit;
  end loop;
end $$;
revoke execute on procedure private.close_due_offerings(integer) from public;

-- What a screen reads of an offering: its terms, its window, its result once closed, and while it
-- is open the indicative clearing price, the volume it would fill and the total demand, never who
-- bid (a plain view: it reads the sealed bids as its owner, and names no account).
create view public.offering_book as
  select f.id, f.token_id, f.supply, f.reserve_price, f.account_cap, f.fee_bps, f.opens_at, f.closes_at, f.closed_at,
         f.clearing_price, f.sold, c.price as indicative_price, c.volume as indicative_volume, c.demand
    from public.offerings f
    left join lateral (select * from private.offering_clearing(f.id) where f.closed_at is null) c on true;
revoke all on public.offering_book from anon;
grant select on public.offering_book to authenticated;

-- Portfolio: what a person owns, what it cost them, and the tokens they watch.
--
-- Positions and profit & loss are computed in the database, the one owner of what a person owns
-- and what it cost them. Average cost: a buy adds its total (value + fee) to the position's cost;
-- a sell releases the average cost of the tokens sold and realizes (value - fee) minus that cost.
-- A person's own token is not an investment (they received it): the profile shows it instead.
-- The read functions are PL/pgSQL so that each connection plans their statements once.

-- The tokens a person follows on the dashboard.
create table public.watchlist (
  user_id uuid not null references public.profiles (id) on delete cascade,
  token_id uuid not null references public.tokens (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (user_id, token_id)
);
alter table public.watchlist enable row level security;
create policy "own watchlist" on public.watchlist
  for select to authenticated using (user_id = (select auth.uid()));
create policy "add to own watchlist" on public.watchlist
  for insert to authenticated with check (user_id = (select auth.uid()));
create policy "remove from own watchlist" on public.watchlist
  for delete to authenticated using (user_id = (select auth.uid()));
revoke all on public.watchlist from anon;
revoke update, truncate on public.watchlist from authenticated;

-- The caller's open positions: the tokens they hold (from holdings), their cost, value and P&L.
create function public.my_positions()
returns table (token_id uuid, name text, username text, category text, avatar_url text, verified boolean,
               tokens bigint, avg_price numeric, cost numeric, price numeric, value numeric, pnl numeric, pnl_percent numeric)
language plpgsql stable security definer set search_path = '' as $$
#variable_conflict use_column
begin
  perform private.require_second_step();
  return query
  select h.token_id, m.name, m.username, m.category, m.avatar_url, m.verified, h.amount,
         round(coalesce(b.cost, 0) / h.amount, 2), round(coalesce(b.cost, 0), 2), m.price,
         round(h.amount * m.price, 2), round(h.amount * m.price, 2) - round(coalesce(b.cost, 0), 2),
         case when coalesce(b.cost, 0) > 0 then round((h.amount * m.price - b.cost) / b.cost * 100, 2) else 0 end
  from public.holdings h
  join public.market_tokens m on m.id = h.token_id
  left join private.cost_basis(auth.uid(), now()) b on b.token_id = h.token_id
  where h.user_id = auth.uid() and h.amount > 0 and m.owner_id is distinct from auth.uid()
  order by round(h.amount * m.price, 2) desc, m.name;
end $$;
revoke execute on function public.my_positions() from public, anon;

-- The caller's P&L at the end of each of the last `p_days` days: realized, unrealized, invested
-- and the positions' value. JIT is off: the plan's estimate (a thousand days of generate_series
-- times a thousand positions, the defaults for function scans) is past every JIT threshold, and
-- compiling its expressions with LLVM costs far more than running a query this small.
create function public.my_pnl(p_days integer default 30)
returns table (at timestamptz, realized numeric, unrealized numeric, invested numeric, value numeric)
language plpgsql stable security definer set search_path = '' set jit = off as $$
#variable_conflict use_column
begin
  perform private.require_second_step();
  return query
  with moments as (
    select least(d + interval '1 day', now()) as at
    from generate_series(date_trunc('day', now()) - make_interval(days => least(greatest(p_days, 1), 365) - 1), date_trunc('day', now()), interval '1 day') d
  )
  select m.at,
         round(coalesce(sum(b.realized), 0), 2),
         round(coalesce(sum(b.tokens * private.price_at(b.token_id, m.at) - b.cost) filter (where b.tokens > 0), 0), 2),
         round(coalesce(sum(b.cost) filter (where b.tokens > 0), 0), 2),
         round(coalesce(sum(b.tokens * private.price_at(b.token_id, m.at)) filter (where b.tokens > 0), 0), 2)
  from moments m left join lateral private.cost_basis(auth.uid(), m.at) b on true
  group by m.at
  order by m.at;
end $$;
revoke execute on function public.my_pnl(integer) from public, anon;

-- One account's trades up to `p_at`, its own token left out (they received it): what the cost
-- basis and the lots fold over, token by token (`order by token_id, created_at, id`), so a fold
-- keeps one token's state at a time.
create function private.account_trades(p_user uuid, p_at timestamptz)
returns table (id bigint, token_id uuid, created_at timestamptz, bought boolean, amount bigint, value numeric, fee numeric)
language sql stable security definer set search_path = '' as $$
  select tr.id, tr.token_id, tr.created_at, tr.buyer_id = p_user, tr.amount, tr.value,
         case when tr.buyer_id = p_user then tr.buyer_fee else tr.seller_fee end
  from public.trades tr
  where (tr.buyer_id = p_user or tr.seller_id = p_user) and tr.created_at <= p_at
    and tr.token_id is distinct from (select k.id from public.tokens k where k.owner_id = p_user)
$$;
revoke execute on function private.account_trades(uuid, timestamp with time zone) from public;

-- The average-cost fold over one account's trades up to `p_at`: per token, what is still held by
-- trades, its cost, and what was realized.
create function private.cost_basis(p_user uuid, p_at timestamptz)
returns table (token_id uuid, tokens bigint, cost numeric, realized numeric)
language plpgsql stable security definer set search_path = '' as $$
declare
  t record;
  current_token uuid;
  held bigint;
  c numeric;
  r numeric;
  sold bigint;
  released numeric;
begin
  for t in select a.* from private.account_trades(p_user, p_at) a order by a.token_id, a.created_at, a.id loop
    if current_token is distinct from t.token_id then
      if current_token is not null then
        token_id := current_token; tokens := held; cost := c; realized := r;
        return next;
      end if;
      current_token := t.token_id; held := 0; c := 0; r := 0;
    end if;
    if t.bought then
      held := held + t.amount;
      c := c + t.value + t.fee;
    elsif held > 0 then
      sold := least(t.amount, held);
      released := c / held * sold;
      r := r + (t.value - t.fee) * sold / t.amount - released;
      c := c - released;
      held := held - sold;
    end if;
  end loop;
  if current_token is not null then
    token_id := current_token; tokens := held; cost := c; realized := r;
    return next;
  end if;
end $$;
revoke execute on function private.cost_basis(uuid, timestamp with time zone) from public;

-- Realized gains lot by lot, first in first out, for statements and the portfolio analysis (the
-- dashboard's P&L uses the average cost above). Each buy is a lot, its fee part of its cost; each
-- sale takes the oldest lots first, and each piece it takes is a row: the tokens, the lot's cost
-- for them, the sale's value and fee shared by tokens, and the gain (proceeds - fees - cost).
-- Tokens sold beyond the lots (none: the offering gives a person their own token, left out here)
-- are not a lot's. Full precision: a reader rounds to the cent. One token's lots at a time, in
-- arrays with a head index, so each trade costs the same however many lots came before.
create function private.fifo_lots(p_user uuid, p_at timestamptz)
returns table (token_id uuid, bought_at timestamptz, sold_at timestamptz, tokens bigint, cost numeric,
               proceeds numeric, fees numeric, gain numeric)
language plpgsql stable security definer set search_path = '' as $$
declare
  t record;
  current_token uuid;
  lot_at timestamptz[];
  lot_left bigint[];
  lot_unit numeric[];
  head integer;
  lots integer;
  left_in_sale bigint;
  piece bigint;
begin
  for t in select a.* from private.account_trades(p_user, p_at) a order by a.token_id, a.created_at, a.id loop
    if current_token is distinct from t.token_id then
      current_token := t.token_id; lot_at := '{}'; lot_left := '{}'; lot_unit := '{}'; head := 1; lots := 0;
    end if;
    if t.bought then
      lots := lots + 1;
      lot_at[lots] := t.created_at;
      lot_left[lots] := t.amount;
      lot_unit[lots] := (t.value + t.fee) / t.amount;
    else
      left_in_sale := t.amount;
      while left_in_sale > 0 and head <= lots loop
        piece := least(left_in_sale, lot_left[head]);
        token_id := t.token_id;
        bought_at := lot_at[head];
        sold_at := t.created_at;
        tokens := piece;
        cost := lot_unit[head] * piece;
        proceeds := t.value * piece / t.amount;
        fees := t.fee * piece / t.amount;
        gain := proceeds - fees - cost;
        return next;
        left_in_sale := left_in_sale - piece;
        lot_left[head] := lot_left[head] - piece;
        if lot_left[head] = 0 then head := head + 1; end if;
      end loop;
    end if;
  end loop;
end $$;
revoke execute on function private.fifo_lots(uuid, timestamp with time zone) from public;

-- The caller's realized lots (private.fifo_lots) sold within [p_from, p_to], in cents, oldest sale first.
create function public.my_realized_lots(p_from timestamptz default null, p_to timestamptz default null)
returns table (token_id uuid, name text, bought_at timestamptz, sold_at timestamptz, tokens bigint,
               cost numeric, proceeds numeric, fees numeric, gain numeric)
language plpgsql stable security definer set search_path = '' as $$
#variable_conflict use_column
begin
  perform private.require_second_step();
  return query
  select l.token_id, k.name, l.bought_at, l.sold_at, l.tokens, round(l.cost, 2), round(l.proceeds, 2),
         round(l.fees, 2), round(l.proceeds, 2) - round(l.fees, 2) - round(l.cost, 2)
  from private.fifo_lots(auth.uid(), coalesce(p_to, now())) l
  join public.tokens k on k.id = l.token_id
  where p_from is null or l.sold_at >= p_from
  order by l.sold_at, l.bought_at;
end $$;
revoke execute on function public.my_realized_lots(timestamp with time zone, timestamp with time zone) from public, anon;

-- A token's last price at `p_at` (its issue price before its first trade).
create function private.price_at(p_token uuid, p_at timestamptz) returns numeric
language plpgsql stable security definer set search_path = '' as $$
begin
  return coalesce(
    (select tr.price from public.trades tr where tr.token_id = p_token and tr.created_at <= p_at order by tr.created_at desc, tr.id desc limit 1),
    (select k.issue_price from public.tokens k where k.id = p_token));
end $$;
revoke execute on function private.price_at(uuid, timestamp with time zone) from public;

-- A new person's first steps, for the dashboard's checklist: whether they have put money in,
-- traded, connected a social account and asked for their own token; and whether they are new
-- (joined within 30 days), the only ones the dashboard shows the list to. One read, by key.
create function public.my_first_steps() returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  uid uuid := private.active_caller();
begin
  return jsonb_build_object(
    'new', (select p.created_at > now() - interval '30 days' from public.profiles p where p.id = uid),
    'deposited', exists (select 1 from public.wallet_transactions w
                          where w.user_id = uid and w.type = 'deposit' and w.status = 'completed'),
    'traded', exists (select 1 from public.trades t where t.buyer_id = uid)
              or exists (select 1 from public.trades t where t.seller_id = uid),
    'connected', exists (select 1 from public.social_accounts a where a.user_id = uid and a.status = 'connected'),
    'applied', exists (select 1 from public.token_applications a where a.user_id = uid)
               or exists (select 1 from public.tokens k where k.owner_id = uid));
end $$;
revoke execute on function public.my_first_steps() from public, anon;

-- Price alerts: a user asks to be told when a token's price reaches a level (at or above, at or
-- below) or moves by a share within 24 hours. Whether an alert fires is decided here, in the
-- transaction of the trades that crossed it, once: the user is told on any screen they have open
-- (the shell follows their alerts as it follows their fills) and by the account mail.

create table public.price_alerts (
  id bigint generated always as identity primary key,
  user_id uuid not null references public.profiles (id) on delete cascade,
  token_id uuid not null references public.tokens (id) on delete cascade,
  -- above: a trade at or above price; below: at or below it; move: the 24-hour change reaches
  -- move_pct either way.
  kind text not null check (kind in ('above', 'below', 'move')),
  price numeric(12, 2) check (price > 0),
  move_pct numeric(5, 2) check (move_pct > 0 and move_pct <= 100),
  created_at timestamptz not null default now(),
  -- When it fired, and the price that fired it; a fired alert stays listed until removed or re-armed.
  fired_at timestamptz,
  fired_price numeric(12, 2),
  check ((kind = 'move') = (move_pct is not null)),
  check ((kind = 'move') = (price is null))
);
-- The armed alerts of a book, which each settlement checks.
create index price_alerts_armed_idx on public.price_alerts (token_id) where fired_at is null;
create index price_alerts_user_idx on public.price_alerts (user_id, created_at desc);
alter table public.price_alerts enable row level security;
create policy "own alerts" on public.price_alerts
  for select to authenticated using (user_id = (select auth.uid()) or (select private.is_admin()));
revoke all on public.price_alerts from anon;
revoke insert, update, delete, truncate on public.price_alerts from authenticated;

-- Sets an alert, or changes one (p_alert), which arms it again. At most 20 alerts a user: enough
-- to watch a portfolio, few enough that a screen lists them all.
create function public.set_price_alert(p_token uuid, p_kind text, p_value numeric, p_alert bigint default null)
returns public.price_alerts language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.trading_caller();
  most constant integer := 20;
  tok public.tokens;
  last numeric;
  saved public.price_alerts;
begin
  select * into tok from public.tokens where id = p_token;
  if not found then perform private.refuse('There is no such token.'); end if;
  if p_kind is null or p_kind not in ('above', 'below', 'move') then
    perform private.refuse('An alert is for a price at or above a level, at or below one, or a move within 24 hours.');
  end if;
  if p_value is null or p_value = 'NaN' or p_value <= 0 then
    perform private.refuse(case when p_kind = 'move' then 'Give the move as a percentage above 0.' else 'Give the alert''s price, above $0.00.' end);
  end if;
  if p_value <> round(p_value, 2) then perform private.refuse('Use at most two decimals.'); end if;
  if p_kind = 'move' and p_value > 100 then perform private.refuse('A move is at most 100%.'); end if;
  last := private.last_price(p_token);
  if p_kind = 'above' and p_value <= last then
    perform private.refuse(format('%s is at %s already: set the alert above that.', tok.name, private.money(last)));
  elsif p_kind = 'below' and p_value >= last then
    perform private.refuse(format('%s is at %s already: set the alert below that.', tok.name, private.money(last)));
  end if;
  if p_alert is null then
    -- The person's row, so that two alerts set at once cannot both pass the count.
    perform 1 from public.profiles where id = uid for no key update;
    if (select count(*) from public.price_alerts where user_id = uid) >= most then
      perform private.refuse(format('You have %s price alerts, the most allowed. Remove one to set another.', most));
    end if;
    insert into public.price_alerts (user_id, token_id, kind, price, move_pct)
    values (uid, p_token, p_kind, case when p_kind <> 'move' then p_value end, case when p_kind = 'move' then p_value end)
    returning * into saved;
  else
    update public.price_alerts
       set kind = p_kind, price = case when p_kind <> 'move' then p_value end,
           move_pct = case when p_kind = 'move' then p_value end, fired_at = null, fired_price = null
     where id = p_alert and user_id = uid and token_id = p_token
    returning * into saved;
    if not found then perform private.refuse(format('You have no price alert #%s on %s.', p_alert, tok.name)); end if;
  end if;
  return saved;
end $$;
revoke execute on function public.set_price_alert(uuid, text, numeric, bigint) from public, anon;

-- Removes one of the caller's alerts.
create function public.delete_price_alert(p_alert bigint) returns void
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.trading_caller();
begin
  delete from public.price_alerts where id = p_alert and user_id = uid;
  if not found then perform private.refuse(format('You have no price alert #%s.', p_alert)); end if;
end $$;
revoke execute on function public.delete_price_alert(bigint) from public, anon;

-- Fires the armed alerts that a statement's trades crossed: a level by any of its trades, a move
-- by the 24-hour change as the statement left it. Named to follow trades_stats (a table's triggers
-- for one event fire in name order), so the change it reads includes these trades. Each fired
-- alert is mailed, and its owner's screens are told (realtime.sql) and read it from the table.
create function private.alerts_on_trades() returns trigger
language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  fired integer;
  owners uuid[];
begin
  -- Most settlements meet no armed alert: one probe of their index each.
  if not exists (select 1 from public.price_alerts a where a.fired_at is null
                   and a.token_id in (select n.token_id from new_trades n)) then
    return null;
  end if;
  with moved as (
    select n.token_id, max(n.price) as high, min(n.price) as low,
           (array_agg(n.price order by n.created_at desc, n.id desc))[1] as last
    from new_trades n group by n.token_id
  ),
  hit as (
    update public.price_alerts a
       set fired_at = now(),
           fired_price = case a.kind when 'above' then m.high when 'below' then m.low else m.last end
      from moved m left join private.token_stats s on s.token_id = m.token_id
     where a.token_id = m.token_id and a.fired_at is null
       and case a.kind when 'above' then m.high >= a.price
                       when 'below' then m.low <= a.price
                       else abs(coalesce(s.change_24h, 0)) >= a.move_pct end
    returning a.*
  ),
  mailed as (
    insert into private.account_mail (user_id, subject, body)
    select h.user_id, format('Price alert: %s at %s', t.name, private.money(h.fired_price)),
           private.alert_words(h, t.name) || E'\n\nThe alert stays on your list until you remove it or set it again.'
    from hit h join public.tokens t on t.id = h.token_id
    returning user_id
  )
  select count(*), array_agg(distinct user_id) into fired, owners from mailed;
  if fired > 0 then
    perform pg_notify('repx_mail', ''); -- only when one fired: a notifying commit serializes
    perform private.tell_accounts(owners, 'alert');
  end if;
  return null;
end $$;
revoke execute on function private.alerts_on_trades() from public;
create trigger trades_stats_alerts after insert on public.trades
  referencing new table as new_trades
  for each statement execute function private.alerts_on_trades();

-- What a fired alert says, in the mail and on screen.
create function private.alert_words(a public.price_alerts, token_name text) returns text
language sql immutable as $$
  select case a.kind
    when 'above' then format('%s traded at %s, at or above your alert at %s.', token_name, private.money(a.fired_price), private.money(a.price))
    when 'below' then format('%s traded at %s, at or below your alert at %s.', token_name, private.money(a.fired_price), private.money(a.price))
    else format('%s moved %s%% or more within 24 hours: it traded at %s.', token_name, trim_scale(a.move_pct)::text, private.money(a.fired_price))
  end
$$;
revoke execute on function private.alert_words(public.price_alerts, text) from public;
grant execute on function private.alert_words(public.price_alerts, text) to authenticated;

-- The caller's own alerts (an admin's too: the table lets admins read everyone's), with their
-- tokens' names and what each fired alert says.
create view public.my_price_alerts with (security_invoker = true) as
select a.id, a.token_id, t.name, t.username, a.kind, a.price, a.move_pct, a.created_at, a.fired_at, a.fired_price,
       case when a.fired_at is not null then private.alert_words(a, t.name) end as message
from public.price_alerts a
join public.tokens t on t.id = a.token_id
where a.user_id = auth.uid();
revoke all on public.my_price_alerts from anon;
revoke insert, update, delete, truncate on public.my_price_alerts from authenticated;

-- The RepX index: the market's benchmark, and the basket a recurring buy can invest in.
--
-- Its method (docs/investing.md says it in words):
-- - Members are chosen at each day's rebalance, 00:00 UTC: tokens listed for at least 7 days, not
--   halted, traded at least once in the 30 days before. Fewer than 4 such tokens leave the day
--   before's basket as it was (a cap of 25% needs at least 4).
-- - Weights are market caps at the rebalance, each capped at 25%, what a capped token loses shared
--   among the others in proportion to their caps, until none is above. Market cap, because a
--   benchmark should move as the market's value does; the cap, so that one token is not the index
--   while few are listed. The reputation score is left to traders, who price it already.
-- - The level: each member holds fixed units for the day, and the level is their value, each at
--   its last trade price (its issue price before one). At the rebalance the new units are set at
--   the level the old ones reached, so a rebalance never moves it.
-- - It starts at 1,000 at the first rebalance with 4 members, and is kept at every hour and at
--   every day's close (00:00 UTC, the next day's open).

-- The method's numbers, in one place: the rebalance reads them, and so does the market screen's
-- description of the index.
create function public.index_method(
  out listed_days integer, out traded_days integer, out weight_cap numeric, out base_level numeric, out min_members integer
) language sql immutable set search_path = '' as $$
  -- The fewest members a cap allows: four at 25%.
  select 7, 30, c, 1000::numeric, ceil(1 / c)::integer from (select 0.25::numeric as c) x
$$;
revoke execute on function public.index_method() from public, anon;
grant execute on function public.index_method() to authenticated;

create table public.index_members (
  day date not null,
  token_id uuid not null references public.tokens (id) on delete cascade,
  weight numeric(7, 6) not null check (weight > 0 and weight <= (public.index_method()).weight_cap),
  units numeric not null check (units > 0),
  primary key (day, token_id)
);
alter table public.index_members enable row level security;
create policy "the index's members are visible to signed-in users" on public.index_members
  for select to authenticated using (true);
revoke all on public.index_members from anon;
revoke insert, update, delete, truncate on public.index_members from authenticated;

create table public.index_levels (
  period text not null check (period in ('hour', 'day')),
  at timestamptz not null,
  level numeric(14, 4) not null check (level > 0),
  primary key (period, at)
);
alter table public.index_levels enable row level security;
create policy "the index's levels are visible to signed-in users" on public.index_levels
  for select to authenticated using (true);
revoke all on public.index_levels from anon;
revoke insert, update, delete, truncate on public.index_levels from authenticated;

-- A token's price at a moment is private.price_at (portfolio.sql).

-- A day's basket valued at a moment.
create function private.index_value(p_day date, p_at timestamptz) returns numeric
language plpgsql stable security definer set search_path = '' as $$
begin
  return (select sum(m.units * private.price_at(m.token_id, p_at)) from public.index_members m where m.day = p_day);
end $$;
revoke execute on function private.index_value(date, timestamptz) from public;

-- Sets a day's basket, once: its members, their capped weights, and units that carry the level on.
-- Returns whether the day has a basket (none before the index starts).
create function private.rebalance_index(p_day date) returns boolean
language plpgsql security definer set search_path = '' as $$
declare
  method record := public.index_method();
  cap numeric := method.weight_cap;
  at timestamptz := p_day::timestamp at time zone 'UTC';
  previous date := (select max(m.day) from public.index_members m where m.day < p_day);
  ids uuid[];
  prices numeric[];
  caps numeric[];
  weights numeric[];
  capped boolean[];
  level numeric;
  free numeric;
  free_caps numeric;
  again boolean := true;
begin
  if exists (select 1 from public.index_members m where m.day = p_day) then return true; end if;
  select array_agg(e.id order by e.id), array_agg(e.price order by e.id), array_agg(e.price * e.total_supply order by e.id)
    into ids, prices, caps
  from (select t.id, t.total_supply, private.price_at(t.id, at) as price from public.tokens t
        where t.created_at <= at - make_interval(days => method.listed_days) and t.halt_reason is null
          and exists (select 1 from public.trades tr where tr.token_id = t.id
                        and tr.created_at > at - make_interval(days => method.traded_days) and tr.created_at <= at)) e;

  if coalesce(cardinality(ids), 0) < method.min_members then
    if previous is null then return false; end if;
    insert into public.index_members (day, token_id, weight, units)
    select p_day, m.token_id, m.weight, m.units from public.index_members m where m.day = previous;
    return true;
  end if;

  -- Capping: a weight above the cap is set to it and the rest shared again by cap, until none is above.
  capped := array_fill(false, array[cardinality(ids)]);
  weights := array_fill(0::numeric, array[cardinality(ids)]);
  while again loop
    again := false;
    free := 1 - cap * (select count(*) from unnest(capped) c where c);
    free_caps := (select sum(x.c) from unnest(caps, capped) x (c, fixed) where not x.fixed);
    for i in 1 .. cardinality(ids) loop
      if capped[i] then continue; end if;
      weights[i] := free * caps[i] / free_caps;
      if weights[i] > cap then capped[i] := true; weights[i] := cap; again := true; end if;
    end loop;
  end loop;

  level := case when previous is null then method.base_level else private.index_value(previous, at) end;
  insert into public.index_members (day, token_id, weight, units)
  select p_day, ids[i], weights[i], level * weights[i] / prices[i] from generate_subscripts(ids, 1) i;
  return true;
end $$;
revoke execute on function private.rebalance_index(date) from public;

-- Records the levels due: every hour since the last recorded (or since the first trade, until the
-- index starts), each day's basket set as the day begins, the day's row at its 00:00. Run every
-- minute by the local server's scheduler; on a hosted project by pg_cron (supabase/cron.sql).
-- One run at a time (an advisory lock); each level is written once (its key). Returns how many hours it wrote.
create function private.record_index_levels() returns integer
language plpgsql security definer set search_path = '' as $$
declare
  h timestamptz;
  d date;
  value numeric;
  n integer := 0;
begin
  if not pg_try_advisory_xact_lock(hashtext('private.record_index_levels')) then return 0; end if;
  h := coalesce((select max(l.at) + interval '1 hour' from public.index_levels l where l.period = 'hour'),
                date_trunc('day', (select min(tr.created_at) from public.trades tr), 'UTC'));
  -- A bounded catch-up per run: a long history is written over a few runs.
  while h <= now() and n < 2000 loop
    d := (h at time zone 'UTC')::date;
    if not private.rebalance_index(d) then
      h := (d + 1)::timestamp at time zone 'UTC'; -- not started yet: try the next day
      continue;
    end if;
    value := round(private.index_value(d, h), 4);
    insert into public.index_levels (period, at, level) values ('hour', h, value) on conflict do nothing;
    if h = d::timestamp at time zone 'UTC' then
      insert into public.index_levels (period, at, level) values ('day', h, value) on conflict do nothing;
    end if;
    n := n + 1;
    h := h + interval '1 hour';
  end loop;
  -- Open market screens read the index again: a new hour's level, perhaps a new day's basket.
  if n > 0 then perform realtime.send(jsonb_build_object('kind', 'index', 'levels', n), 'index', 'market', true); end if;
  return n;
end $$;
revoke execute on function private.record_index_levels() from public;

-- The index as the market screen shows it: the latest basket's members with their weights, units
-- and last prices (so its level now is the sum of units times price).
create view public.index_basket as
select m.token_id, t.name, t.username, m.weight, m.units, s.price
from public.index_members m
join public.tokens t on t.id = m.token_id
join private.token_stats s on s.token_id = m.token_id
where m.day = (select max(x.day) from public.index_members x);
revoke all on public.index_basket from anon;

-- Auto-Invest: recurring buys. A plan buys a dollar amount of one token, or of the RepX index's
-- basket split by its weights, every day, every week on a weekday, or every month on a date.
--
-- The server runs plans, never the browser: the local server's scheduler calls
-- private.run_next_plan every few seconds until no plan is due, each call its own transaction (a
-- run holds its books' locks only while it buys); on a hosted project pg_cron calls
-- private.run_due_plans, which does the same (supabase/cron.sql).
-- Each period (a plan's scheduled date, UTC) runs at most once: a run's row is keyed by plan and
-- period and written in the transaction of its buys, so a crash undoes both and two server
-- processes cannot both write it. A period the server missed entirely (it was down all day) is not
-- bought later at other prices: the next run is the latest scheduled date.
--
-- A run buys as its owner, at market within the band, through the engine and its fees, as anyone's
-- market buy does. Tokens are whole: a run buys as many as its amount pays for, fee included, and
-- the rest stays in cash; an index plan's amount is split in whole tokens (private.index_split).
-- A run that cannot buy (not enough cash, a halted token, an empty book) is recorded as skipped
-- with the engine's reason, mailed, and the next period runs as usual.

create table public.invest_plans (
  id bigint generated always as identity primary key,
  user_id uuid not null references public.profiles (id) on delete cascade,
  -- The token bought; null buys the RepX index's basket.
  token_id uuid references public.tokens (id) on delete cascade,
  amount numeric(14, 2) not null check (amount > 0),
  frequency text not null check (frequency in ('daily', 'weekly', 'monthly')),
  -- weekly: the ISO weekday (1 Monday .. 7 Sunday); monthly: the date (a month shorter than it runs
  -- on its last day); daily: none.
  run_day smallint,
  paused boolean not null default false,
  -- The next scheduled date not yet run (UTC); the scheduler's due plans are those on or before today.
  next_run_on date not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (case frequency when 'daily' then run_day is null
                        when 'weekly' then run_day between 1 and 7
                        else run_day between 1 and 31 end)
);
create index invest_plans_due_idx on public.invest_plans (next_run_on) where not paused;
create index invest_plans_user_idx on public.invest_plans (user_id, created_at);
alter table public.invest_plans enable row level security;
create policy "own plans" on public.invest_plans
  for select to authenticated using (user_id = (select auth.uid()) or (select private.is_admin()));
revoke all on public.invest_plans from anon;
revoke insert, update, delete, truncate on public.invest_plans from authenticated;

-- One row per plan and period: what the run bought, or why it bought nothing.
create table public.invest_runs (
  id bigint generated always as identity primary key,
  plan_id bigint not null references public.invest_plans (id) on delete cascade,
  user_id uuid not null references public.profiles (id) on delete cascade,
  period date not null,
  amount numeric(14, 2) not null,
  -- bought: every target bought; partial: some did; skipped: none did (reason says why). running
  -- only inside the run's transaction: no one else ever reads it.
  status text not null check (status in ('running', 'bought', 'partial', 'skipped')),
  spent numeric(14, 2) not null default 0,
  fees numeric(14, 2) not null default 0,
  reason text,
  created_at timestamptz not null default now(),
  unique (plan_id, period)
);
create index invest_runs_user_idx on public.invest_runs (user_id, created_at desc);
alter table public.invest_runs enable row level security;
create policy "own runs" on public.invest_runs
  for select to authenticated using (user_id = (select auth.uid()) or (select private.is_admin()));
revoke all on public.invest_runs from anon;
revoke insert, update, delete, truncate on public.invest_runs from authenticated;

-- A run's buy in one token: its order and what it filled, or the reason it bought nothing.
create table public.invest_run_buys (
  run_id bigint not null references public.invest_runs (id) on delete cascade,
  token_id uuid not null references public.tokens (id) on delete cascade,
  budget numeric(14, 2) not null,
  order_id bigint references public.orders (id) on delete set null,
  tokens bigint not null default 0,
  value numeric(14, 2) not null default 0,
  fee numeric(14, 2) not null default 0,
  average_price numeric(12, 2),
  reason text,
  primary key (run_id, token_id)
);
alter table public.invest_run_buys enable row level security;
create policy "own run buys" on public.invest_run_buys
  for select to authenticated using (exists (
    select 1 from public.invest_runs r where r.id = run_id
      and (r.user_id = (select auth.uid()) or (select private.is_admin()))));
revoke all on public.invest_run_buys from anon;
revoke insert, update, delete, truncate on public.invest_run_buys from authenticated;

-- The first scheduled date on or after d.
create function private.plan_date_on_or_after(p_frequency text, p_day integer, d date) returns date
language plpgsql immutable set search_path = '' as $$
declare
  m date := date_trunc('month', d)::date;
begin
  if p_frequency = 'daily' then return d; end if;
  if p_frequency = 'weekly' then return d + ((p_day - extract(isodow from d)::integer + 7) % 7); end if;
  -- monthly: this month's date (its last day if shorter), else next month's.
  if private.month_date(m, p_day) >= d then return private.month_date(m, p_day); end if;
  return private.month_date((m + interval '1 month')::date, p_day);
end $$;
revoke execute on function private.plan_date_on_or_after(text, integer, date) from public;

-- The last scheduled date on or before d.
create function private.plan_date_on_or_before(p_frequency text, p_day integer, d date) returns date
language plpgsql immutable set search_path = '' as $$
declare
  m date := date_trunc('month', d)::date;
begin
  if p_frequency = 'daily' then return d; end if;
  if p_frequency = 'weekly' then return d - ((extract(isodow from d)::integer - p_day + 7) % 7); end if;
  if private.month_date(m, p_day) <= d then return private.month_date(m, p_day); end if;
  return private.month_date((m - interval '1 month')::date, p_day);
end $$;
revoke execute on function private.plan_date_on_or_before(text, integer, date) from public;

-- The p_day-th of the month starting m, or the month's last day if it has fewer.
create function private.month_date(m date, p_day integer) returns date
language sql immutable set search_path = '' as $$
  select least(m + (p_day - 1), (m + interval '1 month' - interval '1 day')::date)
$$;
revoke execute on function private.month_date(date, integer) from public;

-- Today on the plans' calendar.
create function private.plan_today() returns date
language sql stable set search_path = '' as $$ select (now() at time zone 'UTC')::date $$;
revoke execute on function private.plan_today() from public;

-- A plan's terms, said in words when refused: the amount within the admin's limits, the schedule,
-- a tradable token. Returns the run day as stored.
create function private.check_invest_plan(p_amount numeric, p_frequency text, p_day integer, p_token uuid)
returns smallint language plpgsql stable security definer set search_path = '' as $$
declare
  s public.exchange_settings;
begin
  select * into s from public.exchange_settings;
  if p_amount is null or p_amount = 'NaN' or p_amount <= 0 then
    perform private.refuse(format('Enter an amount of at least %s.', private.money(s.auto_invest_min)));
  end if;
  if p_amount <> round(p_amount, 2) then perform private.refuse('The amount has at most two decimals.'); end if;
  if p_amount < s.auto_invest_min or p_amount > s.auto_invest_max then
    perform private.refuse(format('A plan buys between %s and %s each time.', private.money(s.auto_invest_min), private.money(s.auto_invest_max)));
  end if;
  if p_frequency is null or p_frequency not in ('daily', 'weekly', 'monthly') then
    perform private.refuse('The schedule must be daily, weekly or monthly.');
  end if;
  if p_frequency = 'daily' and p_day is not null then perform private.refuse('A daily plan takes no day.'); end if;
  if p_frequency = 'weekly' and (p_day is null or p_day not between 1 and 7) then
    perform private.refuse('A weekly plan needs a weekday, 1 (Monday) to 7 (Sunday).');
  end if;
  if p_frequency = 'monthly' and (p_day is null or p_day not between 1 and 31) then
    perform private.refuse('A monthly plan needs a date, 1 to 31 (a shorter month runs on its last day).');
  end if;
  if p_token is not null and not exists (select 1 from public.tokens where id = p_token) then
    perform private.refuse('There is no such token.');
  end if;
  return p_day::smallint;
end $$;
revoke execute on function private.check_invest_plan(numeric, text, integer, uuid) from public;

-- A new plan: p_token null buys the RepX index's basket. Its first run is its first scheduled date
-- from today: a daily plan runs today.
create function public.create_invest_plan(p_amount numeric, p_frequency text, p_day integer default null, p_token uuid default null)
returns public.invest_plans language plpgsql security definer set search_path = '' as $$
declare
  me uuid := private.person_caller('change an Auto-Invest plan');
  day smallint := private.check_invest_plan(p_amount, p_frequency, p_day, p_token);
  most integer := (select auto_invest_max_plans from public.exchange_settings);
  plan public.invest_plans;
begin
  perform private.require_second_step();
  -- One plan at a time per person, so two tabs cannot pass the limit together.
  perform 1 from public.profiles where id = me for no key update;
  if (select count(*) from public.invest_plans where user_id = me) >= most then
    perform private.refuse(format('You have %s plans, the most allowed. Delete one before adding another.', most));
  end if;
  insert into public.invest_plans (user_id, token_id, amount, frequency, run_day, next_run_on)
  values (me, p_token, p_amount, p_frequency, day, private.plan_date_on_or_after(p_frequency, day, private.plan_today()))
  returning * into plan;
  return plan;
end $$;
revoke execute on function public.create_invest_plan(numeric, text, integer, uuid) from public, anon;

-- Changes a plan's terms; its next run is its new schedule's first date from today (a period
-- already run is not run again: runs are keyed by plan and date).
create function public.update_invest_plan(p_plan bigint, p_amount numeric, p_frequency text, p_day integer default null, p_token uuid default null)
returns public.invest_plans language plpgsql security definer set search_path = '' as $$
declare
  me uuid := private.person_caller('change an Auto-Invest plan');
  day smallint := private.check_invest_plan(p_amount, p_frequency, p_day, p_token);
  plan public.invest_plans;
begin
  perform private.require_second_step();
  update public.invest_plans
     set amount = p_amount, frequency = p_frequency, run_day = day, token_id = p_token, updated_at = now(),
         next_run_on = private.plan_date_on_or_after(p_frequency, day, private.plan_today())
   where id = p_plan and user_id = me
  returning * into plan;
  if not found then perform private.refuse(format('You have no plan #%s.', p_plan)); end if;
  return plan;
end $$;
revoke execute on function public.update_invest_plan(bigint, numeric, text, integer, uuid) from public, anon;

-- Pauses or resumes a plan. A resumed plan runs at its next scheduled date from today.
create function public.set_invest_plan_paused(p_plan bigint, p_paused boolean)
returns public.invest_plans language plpgsql security definer set search_path = '' as $$
declare
  me uuid := private.person_caller('change an Auto-Invest plan');
  plan public.invest_plans;
begin
  if p_paused is null then perform private.refuse('Say whether to pause or resume the plan.'); end if;
  update public.invest_plans
     set paused = p_paused, updated_at = now(),
         next_run_on = case when p_paused then next_run_on
                            else private.plan_date_on_or_after(frequency, run_day, private.plan_today()) end
   where id = p_plan and user_id = me
  returning * into plan;
  if not found then perform private.refuse(format('You have no plan #%s.', p_plan)); end if;
  return plan;
end $$;
revoke execute on function public.set_invest_plan_paused(bigint, boolean) from public, anon;

-- Deletes a plan and its history (its orders and trades stay in the person's records).
create function public.delete_invest_plan(p_plan bigint) returns void
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.person_caller('change an Auto-Invest plan');
begin
  delete from public.invest_plans where id = p_plan and user_id = uid;
  if not found then perform private.refuse(format('You have no plan #%s.', p_plan)); end if;
end $$;
revoke execute on function public.delete_invest_plan(bigint) from public, anon;

-- Buys up to p_budget of a token at market for p_user, as place_order would for them: the same
-- checks, the band, the fees, and waiting stops its trade reaches. Raises, in the engine's words,
-- when it cannot buy one token.
create function private.invest_buy(p_user uuid, p_token uuid, p_budget numeric) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  tok public.tokens := private.lock_book(p_token, 1);
  settings public.exchange_settings := private.check_order_request(p_user, 'buy', 'market', 1, null);
  best numeric;
  n bigint;
  result jsonb;
begin
  select min(o.price) into best from public.orders o
   where o.token_id = p_token and o.side = 'sell' and o.status = 'open' and o.user_id <> p_user;
  if best is null then
    raise exception 'There are no sell orders for % right now.', tok.name using errcode = 'P0001';
  end if;
  -- The most the budget pays for at the best price; the engine stops earlier if the book is thinner.
  n := floor(p_budget / (best * (1 + settings.fee_bps / 10000.0)));
  if n < greatest(settings.min_order_amount, 1) then
    raise exception '% buys no % % token at % with the % fee.', private.money(p_budget),
      case when settings.min_order_amount > 1 then settings.min_order_amount::text else 'whole' end, tok.name,
      private.money(best), trim_scale(settings.fee_bps / 100.0)::text || '%' using errcode = 'P0001';
  end if;
  result := private.execute_order(p_user, tok, null, 'buy', 'market', n, null, 'gtc', null, false, settings.fee_bps, p_budget);
  if (result->>'value')::numeric > 0 and exists (select 1 from public.orders o where o.token_id = p_token and o.status = 'pending') then
    perform private.trigger_stops(tok, settings.fee_bps);
  end if;
  return result;
end $$;
revoke execute on function private.invest_buy(uuid, uuid, numeric) from public;

-- How an index plan's amount is spent in whole tokens: each member's share of it (by the index's
-- weights) in whole tokens at its best ask with the fee, then what is left, one token at a time, to
-- the member furthest below its share that it still pays for. Each token's cost is rounded up to
-- the cent, so the budgets never add up to more than the amount. A member with no seller keeps its
-- share, so the run says why it bought none; a member the amount buys no token of is left out.
create function private.index_split(p_user uuid, p_amount numeric)
returns table (token_id uuid, budget numeric)
language plpgsql stable security definer set search_path = '' as $$
declare
  bps integer := private.fee_bps();
  ids uuid[];
  shares numeric[];
  costs numeric[];
  counts integer[];
  left_over numeric := p_amount;
  pick integer;
  gap numeric;
begin
  select array_agg(b.token_id order by b.token_id), array_agg(p_amount * b.weight order by b.token_id),
         array_agg(ceil((select min(o.price) from public.orders o
                          where o.token_id = b.token_id and o.side = 'sell' and o.status = 'open' and o.user_id <> p_user)
                        * (1 + bps / 10000.0) * 100) / 100 order by b.token_id)
    into ids, shares, costs
    from public.index_basket b;
  if ids is null then return; end if;
  counts := array_fill(0, array[cardinality(ids)]);
  for i in 1 .. cardinality(ids) loop
    if costs[i] is not null then
      counts[i] := floor(shares[i] / costs[i]);
      left_over := left_over - counts[i] * costs[i];
    end if;
  end loop;
  loop
    pick := null;
    for i in 1 .. cardinality(ids) loop
      if costs[i] is not null and costs[i] <= left_over and (pick is null or shares[i] - counts[i] * costs[i] > gap) then
        pick := i;
        gap := shares[i] - counts[i] * costs[i];
      end if;
    end loop;
    exit when pick is null;
    counts[pick] := counts[pick] + 1;
    left_over := left_over - costs[pick];
  end loop;
  for i in 1 .. cardinality(ids) loop
    token_id := ids[i];
    if costs[i] is null then
      budget := floor(shares[i] * 100) / 100;
      return next;
    elsif counts[i] > 0 then
      budget := counts[i] * costs[i];
      return next;
    end if;
  end loop;
end $$;
revoke execute on function private.index_split(uuid, numeric) from public;

-- What a run of a plan of `p_amount` would buy now, for the plan form: for one token, the whole
-- tokens the amount covers at the book's prices; for the index, the amount split as a run splits it
-- (private.index_split), each member's share walked on its book. The engine's own walk
-- (private.walk_book), nothing written. Returns the items [{token_id, name, tokens, cost}], what
-- they cost with the fees, what stays cash, the basket's size and how many of it are bought, and
-- for the index the amount at which each member's share buys at least one token (basket_min).
create function public.preview_invest_plan(p_amount numeric, p_token uuid default null) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  uid uuid := private.active_caller();
  bps integer := private.fee_bps();
  items jsonb := '[]';
  spent numeric := 0;
  target record;
  walk record;
  cost numeric;
  members integer := 1;
  need numeric;
begin
  if p_amount is null or p_amount = 'NaN' or p_amount <= 0 or p_amount <> round(p_amount, 2) then
    perform private.refuse('Enter the amount each run buys, in dollars and cents.');
  end if;
  for target in
    select t.id, t.name, t.total_supply, split.budget
      from (select p_token as token_id, p_amount as budget where p_token is not null
            union all select x.token_id, x.budget from private.index_split(uid, p_amount) x where p_token is null) split
      join public.tokens t on t.id = split.token_id
     order by t.name
  loop
    walk := private.walk_book(uid, target.id, 'buy', private.band_edge(private.last_price(target.id), 'buy'),
                              target.total_supply, target.budget, bps);
    if walk.filled > 0 then
      cost := walk.spent + private.fee(walk.spent, bps);
      spent := spent + cost;
      items := items || jsonb_build_object('token_id', target.id, 'name', target.name, 'tokens', walk.filled, 'cost', cost);
    end if;
  end loop;
  if p_token is null then
    select count(*), ceil(max(ceil(s.ask * (1 + bps / 10000.0) * 100) / 100 / b.weight))
      into members, need
      from public.index_basket b
      cross join lateral (select min(o.price) as ask from public.orders o
                           where o.token_id = b.token_id and o.side = 'sell' and o.status = 'open' and o.user_id <> uid) s
     where b.weight > 0;
  end if;
  return jsonb_build_object('items', items, 'spent', spent, 'left', p_amount - spent, 'members', members,
                            'bought', jsonb_array_length(items), 'basket_min', need);
end $$;
revoke execute on function public.preview_invest_plan(numeric, uuid) from public, anon;

-- Runs one plan's period: its buys, its record and its mail, in the caller's transaction. Returns
-- false if the period had run already (another process got there first).
create function private.run_plan(p public.invest_plans, p_period date) returns boolean
language plpgsql security definer set search_path = '' as $$
declare
  run_id bigint;
  cash numeric;
  target record;
  result jsonb;
  bought integer := 0;
  tried integer := 0;
  first_reason text;
  total_spent numeric := 0;
  total_fees numeric := 0;
  run public.invest_runs;
  what text := coalesce((select t.name from public.tokens t where t.id = p.token_id), 'the RepX index');
begin
  update public.invest_plans
     set next_run_on = private.plan_date_on_or_after(p.frequency, p.run_day, p_period + 1)
   where id = p.id;
  insert into public.invest_runs (plan_id, user_id, period, amount, status)
  values (p.id, p.user_id, p_period, p.amount, 'running')
  on conflict (plan_id, period) do nothing
  returning id into run_id;
  if run_id is null then return false; end if;

  -- The books the run may buy from, in token order, before the person's cash: every path takes
  -- books before cash (docs/database.md), and an order on any of them may be moving this cash.
  perform 1 from public.tokens
   where id = p.token_id or (p.token_id is null and id in (select b.token_id from public.index_basket b))
   order by id for no key update;
  -- The person's cash, held for the run, so what is checked here still holds at each buy.
  select available into cash from public.cash_accounts where user_id = p.user_id for update;
  if coalesce(cash, 0) < p.amount then
    first_reason := format('Not enough cash: the plan buys %s and %s was available.', private.money(p.amount), private.money(coalesce(cash, 0)));
  elsif p.token_id is null and not exists (select 1 from public.index_basket) then
    first_reason := 'The RepX index has no members yet.';
  else
    -- The targets in token order, so two runs lock the books in the same order.
    for target in
      select p.token_id as token_id, p.amount as budget where p.token_id is not null
      union all
      select x.token_id, x.budget from private.index_split(p.user_id, p.amount) x where p.token_id is null
      order by 1
    loop
      tried := tried + 1;
      begin
        result := private.invest_buy(p.user_id, target.token_id, target.budget);
        insert into public.invest_run_buys (run_id, token_id, budget, order_id, tokens, value, fee, average_price)
        values (run_id, target.token_id, target.budget, (result->>'order_id')::bigint, (result->>'filled')::bigint,
                (result->>'value')::numeric, (result->>'fee')::numeric, (result->>'average_price')::numeric);
        bought := bought + 1;
        total_spent := total_spent + (result->>'total')::numeric;
        total_fees := total_fees + (result->>'fee')::numeric;
      exception when others then
        insert into public.invest_run_buys (run_id, token_id, budget, reason) values (run_id, target.token_id, target.budget, sqlerrm);
        first_reason := coalesce(first_reason, sqlerrm);
      end;
    end loop;
  end if;

  if tried = 0 and first_reason is null then
    first_reason := format('%s buys no whole token of the RepX index''s members at their best prices with the fee.',
      private.money(p.amount));
  end if;
  update public.invest_runs
     set status = case when bought = 0 then 'skipped' when bought < tried then 'partial' else 'bought' end,
         spent = total_spent, fees = total_fees, reason = case when bought < tried or tried = 0 then first_reason end
   where id = run_id
  returning * into run;
  insert into private.account_mail (user_id, subject, body)
  values (p.user_id,
          case when run.status = 'skipped' then format('Auto-Invest skipped: %s', what)
               else format('Auto-Invest bought %s', what) end,
          case when run.status = 'skipped' then format('Your %s plan for %s did not buy on %s: %s', private.money(p.amount), what, p_period, run.reason)
               else format('Your %s plan for %s spent %s on %s, fees included.', private.money(p.amount), what, private.money(run.spent), p_period)
                    || case when run.status = 'partial' then E'\n\nPart of it did not buy: ' || run.reason else '' end
          end || E'\n\nThe next run is on ' || (select next_run_on::text from public.invest_plans where id = p.id) || ' (UTC).');
  perform pg_notify('repx_mail', '');
  return true;
end $$;
revoke execute on function private.run_plan(public.invest_plans, date) from public;

-- Runs one due plan, if any, in the caller's transaction: the oldest due, locked so that another
-- process takes the next one. An unexpected failure is recorded as a skipped run rather than left
-- due for ever.
create function private.run_next_plan() returns boolean
language plpgsql security definer set search_path = '' as $$
declare
  p public.invest_plans;
  today date := private.plan_today();
  due date; -- not "period": that is invest_runs' column, named in on conflict below
begin
  select * into p from public.invest_plans
   where not paused and next_run_on <= today
   order by next_run_on, id
   limit 1
   for update skip locked;
  if not found then return false; end if;
  due := private.plan_date_on_or_before(p.frequency, p.run_day, today);
  begin
    perform private.run_plan(p, due);
  exception when others then
    update public.invest_plans set next_run_on = private.plan_date_on_or_after(p.frequency, p.run_day, due + 1) where id = p.id;
    insert into public.invest_runs (plan_id, user_id, period, amount, status, reason)
    values (p.id, p.user_id, due, p.amount, 'skipped', 'The run failed: ' || sqlerrm)
    on conflict (plan_id, period) do nothing;
  end;
  return true;
end $$;
revoke execute on function private.run_next_plan() from public;

-- Runs due plans until none is left (or p_most), committing after each, so that one plan's buys
-- hold their books' locks only while they run: pg_cron's call (supabase/cron.sql). A procedure
-- that commits can have neither SECURITY DEFINER nor a search_path of its own: hence the schema.
create procedure private.run_due_plans(p_most integer default 1000)
language plpgsql as $$
begin
  for i in 1..p_most loop
    exit when not private.run_next_plan();
    commit;
  end loop;
end $$;
revoke execute on procedure private.run_due_plans(integer) from public;

-- The caller's plans, with what each buys and its last run.
create view public.my_invest_plans with (security_invoker = true) as
select p.id, p.token_id, t.name as token_name, t.username as token_username, p.amount, p.frequency, p.run_day,
       p.paused, p.next_run_on, p.created_at,
       r.period as last_period, r.status as last_status, r.spent as last_spent, r.reason as last_reason
from public.invest_plans p
left join public.tokens t on t.id = p.token_id
left join lateral (select x.period, x.status, x.spent, x.reason from public.invest_runs x
                    where x.plan_id = p.id order by x.period desc limit 1) r on true
where p.user_id = auth.uid();
revoke all on public.my_invest_plans from anon;
revoke insert, update, delete, truncate on public.my_invest_plans from authenticated;

-- The caller's runs, one row per token bought or tried.
create view public.my_invest_runs with (security_invoker = true) as
select r.id as run_id, r.plan_id, r.period, r.amount, r.status, r.spent, r.fees, r.reason as run_reason, r.created_at,
       b.token_id, t.name as token_name, b.budget, b.order_id, b.tokens, b.value, b.fee, b.average_price, b.reason
from public.invest_runs r
left join public.invest_run_buys b on b.run_id = r.id
left join public.tokens t on t.id = b.token_id
where r.user_id = auth.uid();
revoke all on public.my_invest_runs from anon;
revoke insert, update, delete, truncate on public.my_invest_runs from authenticated;

-- Portfolio Analysis: a person's value over time, its time-weighted return beside the RepX index,
-- allocation, and each position's gain over a period. Reconstructed from the ledger (trades and
-- cash movements) and the daily candles, so a past day's figure is exact and never stored twice.
--
-- - The portfolio is cash plus the tokens bought, at each day's close (00:00 UTC the next day; today
--   at now). A person's own token is not part of it (they received it, as the dashboard says): money
--   from its sale, its offering or their share of its fees enters the portfolio as a deposit would.
-- - A cash movement counts when it was asked for, as the wallet's history lists it: a deposit once
--   completed, a withdrawal unless it failed or was cancelled.
-- - A token's price at a day's close is the close of its last daily candle by then (its issue price
--   before its first trade): the last trade's price, as everywhere else.
-- - Time-weighted return: each day's return is the day's closing value over the previous close plus
--   the day's flows (deposits less withdrawals, and own-token money), the days chained. So money
--   put in or taken out does not count as performance; a day that starts with nothing returns 0.

-- One row per day from p_from to p_to (UTC dates): the closing cash, positions and value, and the
-- day's flows. JIT is off: the planner's guesses for this query (a thousand days of each of a
-- hundred tokens) pass JIT's threshold, and compiling it costs far more than running it.
create function private.portfolio_days(p_user uuid, p_from date, p_to date)
returns table (day date, cash numeric, positions numeric, flow numeric)
language sql stable security definer set search_path = '' set jit = off as $$
  with own as (
    select k.id from public.tokens k where k.owner_id = p_user
  ),
  days as (
    select d::date as day from generate_series(p_from, p_to, interval '1 day') d
  ),
  -- Every cash movement of the account, on its UTC day; a flow comes from outside the portfolio.
  moves as (
    select (w.created_at at time zone 'UTC')::date as day,
           case w.type when 'deposit' then w.amount else -w.amount end as amount, true as flow
    from public.wallet_transactions w
    where w.user_id = p_user
      and case w.type when 'deposit' then w.status = 'completed' else w.status not in ('failed', 'cancelled') end
    union all
    select (t.created_at at time zone 'UTC')::date, -(t.value + t.buyer_fee), t.token_id in (select id from own)
    from public.trades t where t.buyer_id = p_user
    union all
    select (t.created_at at time zone 'UTC')::date, t.value - t.seller_fee, t.token_id in (select id from own)
    from public.trades t where t.seller_id = p_user
    union all
    select (t.created_at at time zone 'UTC')::date, t.value - t.seller_fee, true
    from public.trades t where t.proceeds_to = p_user
    union all
    select (t.created_at at time zone 'UTC')::date, t.creator_share, true
    from public.trades t where t.creator_id = p_user and t.creator_share > 0
  ),
  -- The history before the period is folded into one opening figure, and only the period's days
  -- are grouped: a month of a long-standing account costs less than its whole history.
  cash_days as (
    select d.day,
           (select coalesce(sum(m.amount), 0) from moves m where m.day < p_from)
             + sum(coalesce(c.amount, 0)) over (order by d.day) as cash,
           coalesce(c.flow, 0) as flow
    from days d
    left join (select m.day, sum(m.amount) as amount, sum(m.amount) filter (where m.flow) as flow
               from moves m where m.day between p_from and p_to group by m.day) c on c.day = d.day
  ),
  -- Tokens bought and sold up to the period's end (the own token left out): each token's holding
  -- before the period, and its change on each of the period's days.
  mine as not materialized (
    select t.token_id, t.created_at, case when t.buyer_id = p_user then t.amount else -t.amount end as delta
    from public.trades t
    where (t.buyer_id = p_user or t.seller_id = p_user) and t.token_id not in (select id from own)
      and t.created_at < (p_to + 1)::timestamp at time zone 'UTC'
  ),
  held_tokens as (
    select m.token_id,
           coalesce(sum(m.delta) filter (where m.created_at < p_from::timestamp at time zone 'UTC'), 0) as before
    from mine m group by m.token_id
  ),
  deltas as (
    select m.token_id, (m.created_at at time zone 'UTC')::date as day, sum(m.delta) as delta
    from mine m where m.created_at >= p_from::timestamp at time zone 'UTC'
    group by 1, 2
  ),
  grid as (
    select h.token_id, d.day,
           h.before + sum(coalesce(x.delta, 0)) over (partition by h.token_id order by d.day) as tokens,
           c.close
    from held_tokens h
    cross join days d
    left join deltas x on x.token_id = h.token_id and x.day = d.day
    left join public.candles c on c.token_id = h.token_id and c.seconds = 86400
                              and c.bucket = d.day::timestamp at time zone 'UTC'
  ),
  -- Each day's price: its candle's close, else the last one before (carried forward within the
  -- range, and from before it), else the issue price.
  runs as (
    select g.token_id, g.day, g.tokens, g.close,
           count(g.close) over (partition by g.token_id order by g.day) as run
    from grid g
  ),
  priced as (
    select r.token_id, r.day, r.tokens,
           first_value(r.close) over (partition by r.token_id, r.run order by r.day) as close
    from runs r
  ),
  valued as (
    select p.day,
           sum(p.tokens * coalesce(
             p.close,
             (select c.close from public.candles c
               where c.token_id = p.token_id and c.seconds = 86400 and c.bucket < p_from::timestamp at time zone 'UTC'
               order by c.bucket desc limit 1),
             (select k.issue_price from public.tokens k where k.id = p.token_id))) as positions
    from priced p
    where p.tokens <> 0
    group by p.day
  )
  select c.day, c.cash, coalesce(v.positions, 0), c.flow
  from cash_days c left join valued v on v.day = c.day
  order by c.day
$$;
revoke execute on function private.portfolio_days(uuid, date, date) from public;

-- The first day of a period (the day before its first, whose close is its opening value), or
-- refuses a period it does not know. 'all' opens the day before the account's first movement.
create function private.period_start(p_user uuid, p_period text) returns date
language plpgsql stable security definer set search_path = '' as $$
declare
  today date := (now() at time zone 'UTC')::date;
begin
  if p_period is null or p_period not in ('7d', '30d', '90d', '1y', 'all') then
    perform private.refuse('The period must be 7d, 30d, 90d, 1y, all, or custom with its dates.');
  end if;
  if p_period <> 'all' then
    return today - case p_period when '7d' then 7 when '30d' then 30 when '90d' then 90 else 365 end;
  end if;
  return coalesce(least(
    (select min(w.created_at) from public.wallet_transactions w where w.user_id = p_user),
    (select min(t.created_at) from public.trades t where t.buyer_id = p_user),
    (select min(t.created_at) from public.trades t where t.seller_id = p_user),
    (select min(t.created_at) from public.trades t where t.proceeds_to = p_user)) at time zone 'UTC', now() at time zone 'UTC')::date - 1;
end $$;
revoke execute on function private.period_start(uuid, text) from public;

-- A period's opening (the close before its first day) and its last day: a named period ends today;
-- 'custom' runs over the UTC days p_from to p_to, refused in words where they do not make one. A
-- custom period opens no earlier than the account's first movement (all time's opening): the days
-- before are empty, and asking for a century must not build one.
create function private.period_days(p_user uuid, p_period text, p_from date, p_to date,
                                    out opening date, out closing date)
language plpgsql stable security definer set search_path = '' as $$
declare
  today date := (now() at time zone 'UTC')::date;
begin
  if p_period is distinct from 'custom' then
    if p_from is not null or p_to is not null then
      perform private.refuse('Dates go with the custom period only.');
    end if;
    opening := private.period_start(p_user, p_period);
    closing := today;
    return;
  end if;
  if p_from is null or p_to is null then perform private.refuse('A custom period needs a first and a last day.'); end if;
  if p_from > p_to then perform private.refuse('The first day must be on or before the last day.'); end if;
  if p_to > today then perform private.refuse('The last day cannot be after today (UTC).'); end if;
  closing := p_to;
  opening := greatest(p_from - 1, least(private.period_start(p_user, 'all'), p_to - 1));
end $$;
revoke execute on function private.period_days(uuid, text, date, date) from public;

-- The caller's portfolio over a period ('7d', '30d', '90d', '1y', 'all', or 'custom' from p_from to
-- p_to), one row per day from the period's opening (the close before its first day) to its end:
-- cash, positions and their value at the close, the day's flows, and, since the opening, the gain
-- (the change in value less the flows), the time-weighted return, the money-weighted return and
-- the RepX index's return, in percent (the index's null before it started).
--
-- The time-weighted return chains each day's return, a day's flow counted at its start, so money
-- moved in or out does not weigh on it: it compares with the index. The money-weighted return is
-- the Modified Dietz return: the gain over the capital at work, each flow weighted by the share of
-- the period it was in, V0 + sum(F_j * (k - j + 1) / t) on day k, t days after the opening. A
-- period that opens before the account had anything opens instead on its last empty day, so an
-- account a month old is not measured against a year it did not exist in. Null where that capital
-- is not positive (more taken out than was at work).
create function public.my_portfolio_history(p_period text default '30d', p_from date default null,
                                             p_to date default null)
returns table (day date, value numeric, cash numeric, positions numeric, flow numeric, gain numeric, twr numeric,
               mwr numeric, index_return numeric)
language plpgsql stable security definer set search_path = '' as $$
declare
  me uuid := private.active_caller();
  today date := (now() at time zone 'UTC')::date;
  growth numeric := 1;
  prev numeric;
  opening numeric;
  flows numeric := 0;
  -- The money-weighted return's opening day (k counts days from the period's opening), and its
  -- sums since: of the flows, and of each flow times its day.
  k integer := -1;
  origin integer := 0;
  weighted numeric := 0;
  capital numeric;
  base_level numeric;
  level numeric;
  r record;
  span record;
begin
  perform private.require_second_step();
  span := private.period_days(me, p_period, p_from, p_to);
  for r in select * from private.portfolio_days(me, span.opening, span.closing) loop
    k := k + 1;
    day := r.day;
    cash := round(r.cash, 2);
    positions := round(r.positions, 2);
    value := cash + positions;
    flow := round(r.flow, 2);
    if prev is not null and prev + flow > 0 then growth := growth * value / (prev + flow); end if;
    -- The opening's own flows made its value: only the days after it count.
    if prev is not null then flows := flows + flow; end if;
    opening := coalesce(opening, value);
    gain := value - opening - flows;
    twr := round((growth - 1) * 100, 4);
    if opening = 0 and flows = 0 and value = 0 then origin := k; end if;
    if k > origin then weighted := weighted + k * flow; end if;
    capital := case when k = origin then null else opening + ((k + 1) * flows - weighted) / (k - origin) end;
    mwr := case when k = origin then 0 when capital > 0 then round(gain / capital * 100, 4) end;
    prev := value;
    level := case when r.day = today then (select sum(b.units * b.price) from public.index_basket b)
                  else (select l.level from public.index_levels l
                         where l.period = 'day' and l.at = (r.day + 1)::timestamp at time zone 'UTC') end;
    base_level := coalesce(base_level, level);
    index_return := round((level / base_level - 1) * 100, 4);
    return next;
  end loop;
end $$;
revoke execute on function public.my_portfolio_history(text, date, date) from public, anon;

-- Each token the caller held over a period (as my_portfolio_history takes it): its value at the
-- opening and at the end (now, for a period that ends today), what was put in (buys with their
-- fees, less sales net of theirs) within it, and the gain: end - opening - put in. The best and
-- worst positions are its top and bottom.
create function public.my_position_returns(p_period text default '30d', p_from date default null,
                                           p_to date default null)
returns table (token_id uuid, name text, value_start numeric, value_end numeric, net_bought numeric, gain numeric)
language plpgsql stable security definer set search_path = '' as $$
#variable_conflict use_column
declare
  me uuid := private.active_caller();
  span record;
  opening timestamptz;
  ending timestamptz;
begin
  perform private.require_second_step();
  span := private.period_days(me, p_period, p_from, p_to);
  opening := (span.opening + 1)::timestamp at time zone 'UTC';
  ending := least(now(), (span.closing + 1)::timestamp at time zone 'UTC');
  return query
  with mine as (
    select t.token_id, t.created_at, t.buyer_id = me as bought, t.amount, t.value, t.buyer_fee, t.seller_fee
    from public.trades t
    where (t.buyer_id = me or t.seller_id = me) and t.created_at < ending
      and t.token_id is distinct from (select k.id from public.tokens k where k.owner_id = me)
  ),
  per_token as (
    select m.token_id,
           sum(case when m.bought then m.amount else -m.amount end) filter (where m.created_at < opening) as held_then,
           sum(case when m.bought then m.amount else -m.amount end) as held_now,
           sum(case when m.bought then m.value + m.buyer_fee else -(m.value - m.seller_fee) end)
             filter (where m.created_at >= opening) as put_in
    from mine m group by m.token_id
  ),
  valued as (
    select p.token_id,
           round(coalesce(p.held_then, 0) * private.price_at(p.token_id, opening), 2) as value_start,
           round(p.held_now * private.price_at(p.token_id, ending), 2) as value_end,
           round(coalesce(p.put_in, 0), 2) as net_bought
    from per_token p
    where coalesce(p.held_then, 0) <> 0 or p.put_in is not null
  )
  select v.token_id, k.name, v.value_start, v.value_end, v.net_bought, v.value_end - v.value_start - v.net_bought
  from valued v join public.tokens k on k.id = v.token_id
  order by v.value_end - v.value_start - v.net_bought desc, k.name;
end $$;
revoke execute on function public.my_position_returns(text, date, date) from public, anon;

-- Statements: an account's cash, trades, positions and realized gains over a period of UTC dates,
-- with the totals that reconcile them, as one document the wallet turns into CSV and PDF.
--
-- Cash is the wallet's (private.wallet_moves, money.sql): a deposit once completed, a withdrawal
-- from its request unless it failed or was cancelled, trades and their fees as they settled. So
-- the opening cash plus the period's movements is the closing cash, and the statement's totals
-- are the history's own sums. The trades list holds the account's trades and the sales of its
-- person's offering (whose proceeds it received), so its values and fees add up to the same. Positions at the close are the tokens held then (today's holdings
-- less the trades since, a token issued after the close left out) at their last price by then.

create function public.my_statement(p_from date, p_to date) returns jsonb
language plpgsql stable security definer set search_path = '' set jit = off as $$
declare
  me uuid := private.active_caller();
  opens timestamptz := p_from::timestamp at time zone 'UTC';
  closes timestamptz := (p_to + 1)::timestamp at time zone 'UTC';
  summary jsonb;
  lots jsonb;
  positions jsonb;
begin
  perform private.require_second_step();
  if p_from is null or p_to is null then perform private.refuse('A statement needs a first and a last day.'); end if;
  if p_from > p_to then perform private.refuse('The statement starts after it ends.'); end if;
  if p_to > (now() at time zone 'UTC')::date then perform private.refuse('A statement cannot end after today.'); end if;
  if p_to - p_from > 366 * 5 then perform private.refuse('A statement covers at most five years.'); end if;

  -- The period's movements and the sum of those before, each read by time on its part's index.
  with within as (
    select m.* from private.wallet_moves m where m.created_at >= opens and m.created_at < closes
  ),
  opening as (
    select coalesce(sum(m.effect), 0) as cash from private.wallet_moves m where m.created_at < opens
  )
  select jsonb_build_object(
    'opening_cash', (select cash from opening),
    'closing_cash', (select cash from opening) + (select coalesce(sum(m.effect), 0) from within m),
    'deposits', (select coalesce(sum(m.effect), 0) from within m where m.type = 'Deposit'),
    'withdrawals', (select coalesce(-sum(m.effect), 0) from within m where m.type = 'Withdrawal'),
    'bought', (select coalesce(-sum(m.effect), 0) from within m where m.type = 'Buy'),
    'sold', (select coalesce(sum(m.effect), 0) from within m where m.type = 'Sell'),
    'fees', (select coalesce(-sum(m.effect), 0) from within m where m.type = 'Trade Fee'),
    'fee_share', (select coalesce(sum(m.effect), 0) from within m where m.type = 'Fee Share'),
    'movements', coalesce((select jsonb_agg(jsonb_build_object(
        'at', m.created_at, 'type', m.type, 'description', m.description, 'status', m.status,
        'amount', m.amount, 'effect', m.effect)
        -- The wallet history's order (money.sql).
        order by m.created_at, m.type in ('Trade Fee', 'Fee Share'), m.seq, m.id) from within m), '[]')
  ) into summary;

  select coalesce(jsonb_agg(jsonb_build_object(
           'token', l.name, 'bought_at', l.bought_at, 'sold_at', l.sold_at, 'tokens', l.tokens, 'cost', l.cost,
           'proceeds', l.proceeds, 'fees', l.fees, 'gain', l.gain) order by l.sold_at, l.bought_at), '[]')
    into lots
    from public.my_realized_lots(opens, closes - interval '1 microsecond') l;

  select coalesce(jsonb_agg(p order by p.value desc, p.token), '[]') into positions from (
        select k.name as token, h.tokens, private.price_at(h.token_id, closes) as price,
               round(h.tokens * private.price_at(h.token_id, closes), 2) as value
        from (select x.token_id, x.amount - coalesce((
                      select sum(case when tr.buyer_id = me then tr.amount else -tr.amount end) from public.trades tr
                       where tr.token_id = x.token_id and (tr.buyer_id = me or tr.seller_id = me) and tr.created_at >= closes), 0) as tokens
                from public.holdings x where x.user_id = me) h
        join public.tokens k on k.id = h.token_id
        where h.tokens > 0 and k.created_at < closes) p;

  return summary || jsonb_build_object(
    'from', p_from,
    'to', p_to,
    'holder', (select jsonb_build_object('name', p.full_name, 'username', p.username) from public.profiles p where p.id = me),
    -- The account's trades, and the sales of its person's offering whose proceeds it received.
    'trades', coalesce((select jsonb_agg(jsonb_build_object(
        'at', t.created_at, 'side', t.side, 'token', t.name, 'tokens', t.amount, 'price', t.price,
        'value', t.value, 'fee', t.fee, 'total', case t.side when 'buy' then t.value + t.fee else t.value - t.fee end,
        'liquidity', t.liquidity)
        order by t.created_at, t.id)
      from (select m.id, m.created_at, m.type as side, m.name, m.amount, m.price, m.value, m.fee, m.liquidity
              from public.my_trades m
            union all
            select tr.id, tr.created_at, 'offering sale', k.name, tr.amount, tr.price, tr.value, tr.seller_fee, null
              from public.trades tr join public.tokens k on k.id = tr.token_id
             where tr.proceeds_to = me) t
      where t.created_at >= opens and t.created_at < closes), '[]'),
    'positions', positions,
    'lots', lots,
    'realized', (select coalesce(sum((l ->> 'gain')::numeric), 0) from jsonb_array_elements(lots) l),
    'positions_value', (select coalesce(sum((x ->> 'value')::numeric), 0) from jsonb_array_elements(positions) x)
  );
end $$;
revoke execute on function public.my_statement(date, date) from public, anon;

-- Connected social accounts and the reputation analysis over them (docs/social.md).
--
-- A person connects a handle on x, instagram, youtube, tiktok or linkedin: RepX issues a one-time
-- phrase, the person puts it in the account's bio, and asks RepX to check. The server's social
-- worker (server/social/) asks the platform's provider whether the phrase is there, reads
-- the public profile and recent posts, and analyses each account (reach, engagement, authenticity,
-- tone: analysis.ts, which needs the posts and a sentiment lexicon). It writes here what the
-- analysis needs and nothing more: the profile's figures, each account's components with their
-- evidence, the few posts cited, and a daily read of the figures (for consistency over time).
-- Posts are not kept otherwise; disconnecting deletes everything read from the account.
--
-- How the accounts combine into one analysis, and the social component of the reputation score,
-- are the database's (private.social_analysis, reputation.sql). Accounts are re-read daily by the
-- scheduler and on the person's "Refresh now" (once an hour per account).

create table public.social_accounts (
  id bigint generated always as identity primary key,
  user_id uuid not null references public.profiles (id) on delete cascade,
  platform text not null check (platform in ('x', 'instagram', 'youtube', 'tiktok', 'linkedin')),
  handle text not null check (handle ~ '^[A-Za-z0-9_.-]{1,50}$'),
  -- proving: the phrase is issued; checking: the worker is asked to look; connected; failed (why).
  status text not null default 'proving' check (status in ('proving', 'checking', 'connected', 'failed')),
  phrase text not null,
  message text,
  created_at timestamptz not null default now(),
  connected_at timestamptz,
  -- The last read, and when the worker reads it next (null: not due); a claim's lease.
  read_at timestamptz,
  due_at timestamptz,
  claimed_until timestamptz,
  -- The public profile as last read.
  followers bigint check (followers >= 0),
  following bigint check (following >= 0),
  account_created date,
  platform_verified boolean,
  engagement_rate numeric(8, 4),
  posts_read integer,
  -- The account's components (0-100 each: reach, engagement, authenticity, tone), their evidence
  -- and warnings, as analysis.ts wrote them.
  analysis jsonb,
  unique (user_id, platform)
);
-- One person per handle: a handle proven by someone is not connected by another.
create unique index social_accounts_handle_idx on public.social_accounts (platform, lower(handle)) where status = 'connected';
create index social_accounts_due_idx on public.social_accounts (due_at) where due_at is not null;
alter table public.social_accounts enable row level security;
create policy "own social accounts" on public.social_accounts
  for select to authenticated using (user_id = (select auth.uid()) or (select private.is_admin()));
revoke all on public.social_accounts from anon;
revoke insert, update, delete, truncate on public.social_accounts from authenticated;

-- The posts an analysis cites as evidence (at most a few per account), and why.
create table public.social_evidence (
  id bigint generated always as identity primary key,
  account_id bigint not null references public.social_accounts (id) on delete cascade,
  reason text not null,
  posted_at timestamptz not null,
  text text not null,
  likes integer not null default 0,
  replies integer not null default 0,
  reposts integer not null default 0,
  views integer
);
create index social_evidence_account_idx on public.social_evidence (account_id);
alter table public.social_evidence enable row level security;
create policy "own social evidence" on public.social_evidence
  for select to authenticated using (
    (select private.is_admin())
    or exists (select 1 from public.social_accounts a where a.id = account_id and a.user_id = (select auth.uid())));
revoke all on public.social_evidence from anon;
revoke insert, update, delete, truncate on public.social_evidence from authenticated;

-- One read a day of each account's figures: consistency over time.
create table private.social_reads (
  account_id bigint not null references public.social_accounts (id) on delete cascade,
  read_on date not null,
  followers bigint not null,
  engagement_rate numeric(8, 4) not null,
  primary key (account_id, read_on)
);

-- The month's social score of each person, as the reputation history keeps the token's.
create table public.social_history (
  user_id uuid not null references public.profiles (id) on delete cascade,
  month date not null,
  score numeric(5, 2) not null check (score between 0 and 100),
  primary key (user_id, month)
);
alter table public.social_history enable row level security;
create policy "social history is visible to signed-in users" on public.social_history
  for select to authenticated using (true);
revoke all on public.social_history from anon;
revoke insert, update, delete, truncate on public.social_history from authenticated;

-- Attempts to prove a handle, an hour's worth, for the rate limit.
create table private.social_attempts (
  user_id uuid not null references public.profiles (id) on delete cascade,
  at timestamptz not null default now()
);
create index social_attempts_idx on private.social_attempts (user_id, at);

-- The analysis's weights, and the checks' limits: one home, read by the function and the docs.
create function public.social_method() returns jsonb
language sql immutable as $$
  select jsonb_build_object(
    'weights', jsonb_build_object('reach', 25, 'engagement', 20, 'authenticity', 25, 'tone', 15, 'consistency', 15),
    'proofs_per_hour', 10,
    'refresh_after_minutes', 60,
    'read_every_hours', 24)
$$;
revoke execute on function public.social_method() from public, anon;
grant execute on function public.social_method() to authenticated;

-- A platform's name as people write it, for messages: 'x' is X, 'youtube' YouTube.
create function private.platform_name(p_platform text) returns text
language sql immutable as $$
  select coalesce(('{"x": "X", "instagram": "Instagram", "youtube": "YouTube", "tiktok": "TikTok",
                     "linkedin": "LinkedIn"}'::jsonb) ->> p_platform, p_platform)
$$;
revoke execute on function private.platform_name(text) from public;

-- A link to the account's public page.
create function private.social_url(p_platform text, p_handle text) returns text
language sql immutable as $$
  select (('{"x": "https://x.com/", "instagram": "https://instagram.com/", "youtube": "https://youtube.com/@",
            "tiktok": "https://tiktok.com/@", "linkedin": "https://linkedin.com/in/"}'::jsonb) ->> p_platform) || p_handle
$$;
revoke execute on function private.social_url(text, text) from public;

-- Starts connecting a handle (or starts again): returns the one-time phrase to put in its bio.
create function public.start_social_connection(p_platform text, p_handle text) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.person_caller('change your connected accounts');
  v_handle text := trim(leading '@' from trim(coalesce(p_handle, '')));
  v_phrase text := 'repx-' || substr(md5(gen_random_uuid()::text), 1, 10);
  account public.social_accounts;
begin
  if p_platform is null or p_platform not in ('x', 'instagram', 'youtube', 'tiktok', 'linkedin') then
    perform private.refuse('Choose X, Instagram, YouTube, TikTok or LinkedIn.');
  end if;
  if v_handle !~ '^[A-Za-z0-9_.-]{1,50}$' then
    perform private.refuse(format('The %s handle "%s" is not valid: letters, digits, dots, dashes and underscores only.', private.platform_name(p_platform), v_handle));
  end if;
  if exists (select 1 from public.social_accounts a where a.platform = p_platform and lower(a.handle) = lower(v_handle)
               and a.status = 'connected' and a.user_id <> uid) then
    perform private.refuse(format('@%s on %s is connected to another RepX account.', v_handle, private.platform_name(p_platform)));
  end if;
  insert into public.social_accounts (user_id, platform, handle, phrase)
  values (uid, p_platform, v_handle, v_phrase)
  on conflict (user_id, platform) do update
    set handle = excluded.handle, phrase = excluded.phrase, status = 'proving', message = null, created_at = now(),
        connected_at = null, read_at = null, due_at = null, followers = null, following = null, account_created = null,
        platform_verified = null, engagement_rate = null, posts_read = null, analysis = null
  returning * into account;
  -- A new handle starts afresh: nothing read from the old one stays.
  delete from public.social_evidence where account_id = account.id;
  delete from private.social_reads where account_id = account.id;
  return jsonb_build_object('platform', account.platform, 'handle', account.handle, 'phrase', account.phrase);
end $$;
revoke execute on function public.start_social_connection(text, text) from public, anon;

-- Asks the worker to look for the phrase in the handle's bio (at most ten times an hour).
create function public.check_social_connection(p_platform text) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.person_caller('change your connected accounts');
  account public.social_accounts;
begin
  select * into account from public.social_accounts where user_id = uid and platform = p_platform for update;
  if account.id is null then perform private.refuse(format('Start connecting your %s account first.', coalesce(private.platform_name(p_platform), 'social'))); end if;
  if account.status = 'connected' then perform private.refuse('This account is connected already.'); end if;
  if (select count(*) from private.social_attempts where user_id = uid and at > now() - interval '1 hour')
     >= (public.social_method() ->> 'proofs_per_hour')::integer then
    perform private.refuse('Too many checks in the last hour: try again later.');
  end if;
  insert into private.social_attempts (user_id) values (uid);
  update public.social_accounts set status = 'checking', message = null, due_at = now(), claimed_until = null
   where id = account.id returning * into account;
  perform pg_notify('repx_social', '');
  return jsonb_build_object('platform', account.platform, 'handle', account.handle, 'status', account.status);
end $$;
revoke execute on function public.check_social_connection(text) from public, anon;

-- Re-reads the caller's connected accounts now, each at most once an hour.
create function public.refresh_social_accounts() returns integer
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.person_caller('change your connected accounts');
  wait interval := make_interval(mins => (public.social_method() ->> 'refresh_after_minutes')::integer);
  next_at timestamptz;
  n integer;
begin
  if not exists (select 1 from public.social_accounts where user_id = uid and status = 'connected') then
    perform private.refuse('Connect an account first.');
  end if;
  select min(read_at) + wait into next_at from public.social_accounts where user_id = uid and status = 'connected';
  if next_at > now() then
    perform private.refuse(format('Your accounts were read less than an hour ago: refresh again after %s UTC.',
      to_char(next_at at time zone 'UTC', 'HH24:MI')));
  end if;
  update public.social_accounts set due_at = now() where user_id = uid and status = 'connected';
  get diagnostics n = row_count;
  perform pg_notify('repx_social', '');
  return n;
end $$;
revoke execute on function public.refresh_social_accounts() from public, anon;

-- Disconnects one of the caller's accounts: everything read from it is deleted.
create function public.disconnect_social_account(p_platform text) returns void
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.person_caller('change your connected accounts');
begin
  delete from public.social_accounts where user_id = uid and platform = p_platform;
  if not found then perform private.refuse(format('No %s account is connected.', coalesce(private.platform_name(p_platform), 'social'))); end if;
  perform private.record_social_score(uid);
end $$;
revoke execute on function public.disconnect_social_account(text) from public, anon;

-- The worker's next job: an account to prove, or a connected one due for its read. Leased, so a
-- crash hands it out again; skip locked, so two workers never take one.
create function private.claim_social_job(p_lease interval)
returns table (id bigint, platform text, handle text, phrase text, status text)
language plpgsql security definer set search_path = '' as $$
#variable_conflict use_column
begin
  return query
  update public.social_accounts a set claimed_until = now() + p_lease
   where a.id = (select s.id from public.social_accounts s
                  where s.due_at <= now() and s.status in ('checking', 'connected')
                    and (s.claimed_until is null or s.claimed_until < now())
                  order by s.due_at limit 1 for update skip locked)
  returning a.id, a.platform, a.handle, a.phrase, a.status;
end $$;
revoke execute on function private.claim_social_job(interval) from public;

-- A proof failed, or an account could not be read: said to the person, nothing kept.
create function private.fail_social_job(p_account bigint, p_message text) returns void
language plpgsql security definer set search_path = '' as $$
begin
  update public.social_accounts
     set status = case when status = 'checking' then 'failed' else status end, message = p_message,
         due_at = case when status = 'connected' then now() + interval '1 hour' end, claimed_until = null
   where id = p_account;
end $$;
revoke execute on function private.fail_social_job(bigint, text) from public;

-- What the worker read and analysed of one account (analysis.ts's AccountRead): its figures, its
-- components and the posts it cites. The account is connected from now, read again in a day.
create function private.record_social_read(p_account bigint, p_read jsonb) returns void
language plpgsql security definer set search_path = '' as $$
declare
  account public.social_accounts;
begin
  -- Someone else proved the handle meanwhile: one person per handle.
  select * into account from public.social_accounts where id = p_account;
  if exists (select 1 from public.social_accounts a
              where a.platform = account.platform and lower(a.handle) = lower(account.handle)
                and a.status = 'connected' and a.id <> p_account) then
    perform private.fail_social_job(p_account, format('@%s on %s is connected to another RepX account.', account.handle, private.platform_name(account.platform)));
    return;
  end if;
  update public.social_accounts
     set status = 'connected', message = null, connected_at = coalesce(connected_at, now()), read_at = now(),
         due_at = now() + make_interval(hours => (public.social_method() ->> 'read_every_hours')::integer), claimed_until = null,
         followers = (p_read ->> 'followers')::bigint, following = (p_read ->> 'following')::bigint,
         account_created = (p_read ->> 'accountCreated')::date, platform_verified = (p_read ->> 'verified')::boolean,
         engagement_rate = (p_read ->> 'engagementRate')::numeric, posts_read = (p_read ->> 'postsRead')::integer,
         analysis = p_read -> 'components'
   where id = p_account
  returning * into account;
  if account.id is null then return; end if; -- disconnected meanwhile
  delete from public.social_evidence where account_id = p_account;
  insert into public.social_evidence (account_id, reason, posted_at, text, likes, replies, reposts, views)
  select p_account, e ->> 'reason', (e ->> 'postedAt')::timestamptz, e ->> 'text', (e ->> 'likes')::integer,
         (e ->> 'replies')::integer, (e ->> 'reposts')::integer, (e ->> 'views')::integer
    from jsonb_array_elements(coalesce(p_read -> 'evidence', '[]')) e;
  insert into private.social_reads (account_id, read_on, followers, engagement_rate)
  values (p_account, current_date, account.followers, account.engagement_rate)
  on conflict (account_id, read_on) do update set followers = excluded.followers, engagement_rate = excluded.engagement_rate;
  perform private.record_social_score(account.user_id);
end $$;
revoke execute on function private.record_social_read(bigint, jsonb) from public;

-- The person's analysis now: each connected account's components combined, the consistency
-- across platforms and over time, the score, each component's share of it, the evidence and
-- warnings. Null without a connected account.
--
--   reach, engagement, tone: the accounts' values weighted by audience, ln(1 + followers);
--   authenticity: the weakest account's (one bought audience taints the whole);
--   consistency: 100 less the spread (highest less lowest) of the accounts' engagement and tone
--     values, averaged, across two or more platforms; and 100 less 100 x the coefficient of
--     variation of each account's daily engagement rate over its last 30 reads (three or more);
--     the mean of the two that apply, or a neutral 50 while neither does;
--   score: the components weighted by public.social_method()'s weights, out of 100.
create function private.social_analysis(p_user uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  w jsonb := public.social_method() -> 'weights';
  result jsonb;
begin
  with acc as (
    select a.*, ln(1 + a.followers)::numeric as aud from public.social_accounts a
     where a.user_id = p_user and a.status = 'connected' and a.analysis is not null
  ),
  per as (
    select count(*) as n,
           sum(aud * (analysis ->> 'reach')::numeric) / nullif(sum(aud), 0) as reach,
           sum(aud * (analysis ->> 'engagement')::numeric) / nullif(sum(aud), 0) as engagement,
           sum(aud * (analysis ->> 'tone')::numeric) / nullif(sum(aud), 0) as tone,
           min((analysis ->> 'authenticity')::numeric) as authenticity,
           max((analysis ->> 'engagement')::numeric) - min((analysis ->> 'engagement')::numeric) as engagement_spread,
           max((analysis ->> 'tone')::numeric) - min((analysis ->> 'tone')::numeric) as tone_spread
      from acc
  ),
  over_time as (
    select avg(cv) as cv, max(reads) as reads from (
      select r.account_id, count(*) as reads,
             case when avg(r.engagement_rate) > 0 then stddev_samp(r.engagement_rate) / avg(r.engagement_rate) end as cv
        from (select r.*, row_number() over (partition by r.account_id order by r.read_on desc) as k
                from private.social_reads r join acc on acc.id = r.account_id) r
       where r.k <= 30 group by r.account_id having count(*) >= 3) x
  ),
  consistency as (
    select case when per.n >= 2 and over_time.cv is not null
                  then ((100 - (per.engagement_spread + per.tone_spread) / 2) + greatest(0, 100 - 100 * over_time.cv)) / 2
                when per.n >= 2 then 100 - (per.engagement_spread + per.tone_spread) / 2
                when over_time.cv is not null then greatest(0, 100 - 100 * over_time.cv)
                else 50 end as value,
           case when per.n >= 2 then format('%s platforms, their engagement and tone within %s points of each other',
                                            per.n, round(greatest(per.engagement_spread, per.tone_spread)))
                else 'one platform: nothing to compare across platforms' end
           || case when over_time.cv is not null then format('; engagement varied %s%% over %s daily reads', round(100 * over_time.cv), over_time.reads)
                   else '; fewer than three daily reads yet' end as evidence
      from per, over_time
  ),
  comp as (
    select c.key, c.value, (w ->> c.key)::numeric as weight, c.evidence
      from per, consistency,
           lateral (values
             ('reach', per.reach, (select string_agg(format('%s followers on %s', to_char(followers, 'FM999,999,999,990'), private.platform_name(platform)), '; ' order by followers desc) from acc)),
             ('engagement', per.engagement, (select string_agg(analysis -> 'evidence' ->> 'engagement', '; ' order by followers desc) from acc)),
             ('authenticity', per.authenticity, (select coalesce(string_agg(x, '; '), 'no sign of bought followers or automation')
                                                  from acc, jsonb_array_elements_text(analysis -> 'warnings') x)),
             ('tone', per.tone, (select string_agg(analysis -> 'evidence' ->> 'tone', '; ' order by followers desc) from acc)),
             ('consistency', consistency.value, consistency.evidence)) c(key, value, evidence)
     where per.n > 0
  ),
  total as (select sum(value * weight) / 100 as score from comp)
  select jsonb_build_object(
    'score', round(total.score, 2),
    'components', jsonb_object_agg(comp.key, jsonb_build_object(
       'value', round(comp.value, 1), 'weight', comp.weight,
       'share', case when total.score > 0 then round(comp.value * comp.weight / 100 / total.score * 100, 1) else 0 end,
       'evidence', comp.evidence)),
    'warnings', (select coalesce(jsonb_agg(format('%s: %s', acc.platform, x)), '[]') from acc, jsonb_array_elements_text(acc.analysis -> 'warnings') x),
    'accounts', (select jsonb_agg(jsonb_build_object('platform', platform, 'handle', handle, 'url', private.social_url(platform, handle),
                                                     'followers', followers, 'following', following, 'engagement_rate', engagement_rate,
                                                     'read_at', read_at) order by followers desc) from acc),
    'analysed_at', (select max(read_at) from acc))
    into result
    from comp, total group by total.score;
  return result;
end $$;
revoke execute on function private.social_analysis(uuid) from public;

-- The analysis as the reader may see it: all of it to the person and to admins; to others, the
-- published components (value, weight, share) and the score, without evidence, warnings or accounts.
create function public.social_analysis(p_user uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  full_result jsonb := private.social_analysis(p_user);
begin
  if auth.uid() is null then perform private.refuse('Sign in to read an analysis.'); end if;
  if full_result is null or p_user = auth.uid() or private.is_admin() then return full_result; end if;
  return jsonb_build_object('score', full_result -> 'score', 'analysed_at', full_result -> 'analysed_at',
    'components', (select jsonb_object_agg(key, value - 'evidence') from jsonb_each(full_result -> 'components')));
end $$;
revoke execute on function public.social_analysis(uuid) from public, anon;

-- After a read or a disconnection: the profile's Social Impact figures (followers and following
-- summed over the connected accounts, engagement weighted by followers), the person's score into
-- this month's history, and their token's reputation with it.
create function private.record_social_score(p_user uuid) returns void
language plpgsql security definer set search_path = '' as $$
declare
  score numeric := (private.social_analysis(p_user) ->> 'score')::numeric;
begin
  update public.profiles p
     set followers = coalesce(x.followers, 0), following = coalesce(x.following, 0), engagement_rate = coalesce(x.rate, 0)
    from (select sum(a.followers) as followers, sum(a.following) as following,
                 round(sum(a.followers * a.engagement_rate) / nullif(sum(a.followers), 0), 2) as rate
            from public.social_accounts a where a.user_id = p_user and a.status = 'connected') x
   where p.id = p_user;
  if score is not null then
    insert into public.social_history (user_id, month, score) values (p_user, date_trunc('month', now())::date, score)
    on conflict (user_id, month) do update set score = excluded.score;
  end if;
  perform private.rescore(k.id) from public.tokens k where k.owner_id = p_user;
end $$;
revoke execute on function private.record_social_score(uuid) from public;

-- Reputation: a token's score out of 100, recomputed hourly from what the database knows of it,
-- with a point per month for the profile's history chart, and a person's achievements.
--
-- The score's parts (reputation_components), each capped so that no one part buys the score:
--   verified 10, holders up to 20 and 30-day volume up to 15 (both on a log scale), price
--   stability over 7 days up to 15, age of the person's account up to 10 (a year for all of it),
--   10 less 5 for each open or reviewed fraud alert naming the token's person, and the social
--   analysis of the person's connected accounts up to 20 (social.sql: its score out of 100, x 0.2).
--
-- Holders and volume count by trust, so that accounts made to trade among themselves buy nothing:
-- - Each account's trust comes from an EigenTrust propagation over the last 90 days of trades and
--   today's holdings (private.refresh_trust, hourly before the rescoring), seeded by the verified
--   accounts older than 90 days. An account's weight is its trust times the number of seeds,
--   capped at 1: a seed weighs about 1, an account nobody trusted trades with about 0.
-- - A holder counts its weight; a trade counts its value times the lesser weight of its two sides.
-- - Trades between accounts named together in an open, reviewed or confirmed fraud alert on the
--   token, and those accounts' holdings of it, count for nothing.
-- - Stability shrinks toward the neutral 7.5 points by a Bayesian average with a prior of 20
--   trades: a token with three trades cannot look steadier than one with three thousand.
-- Without any seed (a new installation), every weight is 1 and the raw figures count.

create table public.reputation_history (
  token_id uuid not null references public.tokens (id) on delete cascade,
  month date not null check (extract(day from month) = 1),
  score numeric(5, 2) not null check (score between 0 and 100),
  primary key (token_id, month)
);
alter table public.reputation_history enable row level security;
create policy "reputation history is visible to signed-in users" on public.reputation_history
  for select to authenticated using (true);
revoke all on public.reputation_history from anon;
revoke insert, update, delete, truncate on public.reputation_history from authenticated;

create table public.achievements (
  id bigint generated always as identity primary key,
  profile_id uuid not null references public.profiles (id) on delete cascade,
  title text not null,
  description text not null,
  achieved_on date not null
);
create index achievements_profile_idx on public.achievements (profile_id, achieved_on desc);
alter table public.achievements enable row level security;
create policy "achievements are visible to signed-in users" on public.achievements
  for select to authenticated using (true);
revoke all on public.achievements from anon;
revoke insert, update, delete, truncate on public.achievements from authenticated;

-- Each account's trust and the weight it gives its holdings and trades (see the header).
create table private.account_trust (
  user_id uuid primary key references public.profiles (id) on delete cascade,
  trust double precision not null,
  weight numeric not null check (weight between 0 and 1)
);

-- EigenTrust over the trading graph: each account spreads its trust over those it traded with in
-- the last 90 days (by value) and the people whose tokens it holds (by value now), and 15% of all
-- trust returns to the seeds at each step; 20 steps. Trades in an active or confirmed fraud alert
-- between its accounts carry none. Returns the number of seeds (0: no trust, every weight 1).
create function private.refresh_trust() returns integer
language plpgsql security definer set search_path = '' as $$
declare
  seeds integer;
  alpha constant double precision := 0.15;
  dangling double precision;
begin
  drop table if exists trust_seed, trust_edge, trust_now, trust_next; -- a second run in one transaction
  delete from private.account_trust;
  create temporary table trust_seed on commit drop as
    select p.id as user_id from public.profiles p
     where p.verified and p.created_at <= now() - interval '90 days' and p.id <> private.issuance_account();
  select count(*) into seeds from trust_seed;
  if seeds = 0 then return 0; end if;

  create temporary table trust_edge on commit drop as
  with raw as (
    select tr.buyer_id as src, coalesce(tr.proceeds_to, tr.seller_id) as dst, tr.value::double precision as w
      from public.trades tr
     where tr.created_at > now() - interval '90 days'
       and not exists (select 1 from public.fraud_alerts a where a.token_id = tr.token_id and a.status in ('open', 'reviewing', 'confirmed')
                          and tr.buyer_id = any (a.accounts) and tr.seller_id = any (a.accounts))
    union all
    select coalesce(tr.proceeds_to, tr.seller_id), tr.buyer_id, tr.value::double precision
      from public.trades tr
     where tr.created_at > now() - interval '90 days'
       and not exists (select 1 from public.fraud_alerts a where a.token_id = tr.token_id and a.status in ('open', 'reviewing', 'confirmed')
                          and tr.buyer_id = any (a.accounts) and tr.seller_id = any (a.accounts))
    union all
    select h.user_id, k.owner_id, (h.amount * s.price)::double precision
      from public.holdings h join public.tokens k on k.id = h.token_id join private.token_stats s on s.token_id = h.token_id
     where k.owner_id is not null and h.amount > 0 and h.user_id <> k.owner_id
  ),
  pairs as (
    select r.src, r.dst, sum(r.w) as w from raw r
     where r.src <> r.dst and r.src <> private.issuance_account() and r.dst <> private.issuance_account()
     group by r.src, r.dst
  )
  select p.src, p.dst, p.w / sum(p.w) over (partition by p.src) as c from pairs p where p.w > 0;

  create temporary table trust_now on commit drop as
    select s.user_id, 1.0::double precision / seeds as t from trust_seed s;
  for step in 1 .. 20 loop
    -- Trust held by accounts that trade with no one goes back to the seeds.
    select coalesce(sum(n.t), 0) into dangling from trust_now n
     where not exists (select 1 from trust_edge e where e.src = n.user_id);
    create temporary table trust_next on commit drop as
      select x.user_id, sum(x.t) as t from (
        select e.dst as user_id, (1 - alpha) * n.t * e.c as t from trust_now n join trust_edge e on e.src = n.user_id
        union all
        select s.user_id, (alpha + (1 - alpha) * dangling) / seeds from trust_seed s
      ) x group by x.user_id;
    drop table trust_now;
    alter table trust_next rename to trust_now;
  end loop;

  insert into private.account_trust (user_id, trust, weight)
  select n.user_id, n.t, least(1, n.t * seeds)::numeric from trust_now n;
  return seeds;
end $$;
revoke execute on function private.refresh_trust() from public;

-- A token's score and its parts, with the facts they come from (the profile shows them).
create function public.reputation_components(p_token uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
begin
  return (
  with t as (select k.*, p.created_at as person_since from public.tokens k left join public.profiles p on p.id = k.owner_id where k.id = p_token),
  -- Accounts named together in an active or confirmed alert on this token: their trades with each
  -- other and their holdings count for nothing.
  flagged as (
    select a.accounts from public.fraud_alerts a, t
     where a.token_id = t.id and a.status in ('open', 'reviewing', 'confirmed')
  ),
  -- No trust computed yet (no seeds): every account weighs 1.
  trust as (select not exists (select 1 from private.account_trust) as off),
  facts as (
    select t.verified,
           (select count(*) from public.holdings h where h.token_id = t.id and h.amount > 0 and h.user_id <> private.issuance_account()) as holders,
           (select coalesce(sum(case when trust.off then 1 else coalesce(a.weight, 0) end), 0) from public.holdings h
              left join private.account_trust a on a.user_id = h.user_id
             where h.token_id = t.id and h.amount > 0 and h.user_id <> private.issuance_account()
               and not exists (select 1 from flagged f where h.user_id = any (f.accounts))) as holders_weighted,
           (select coalesce(sum(tr.value), 0) from public.trades tr where tr.token_id = t.id and tr.created_at > now() - interval '30 days') as volume,
           (select coalesce(sum(tr.value * case when trust.off then 1 else least(coalesce(ab.weight, 0), coalesce(sel.weight, 0)) end), 0)
              from public.trades tr
              left join private.account_trust ab on ab.user_id = tr.buyer_id
              left join private.account_trust sel on sel.user_id = coalesce(tr.proceeds_to, tr.seller_id)
             where tr.token_id = t.id and tr.created_at > now() - interval '30 days'
               and not exists (select 1 from flagged f where tr.buyer_id = any (f.accounts) and tr.seller_id = any (f.accounts))) as volume_weighted,
           (select count(*) from public.trades tr where tr.token_id = t.id and tr.created_at > now() - interval '7 days') as trades_7d,
           (select case when count(*) < 2 or avg(tr.price) = 0 then null else stddev_samp(tr.price) / avg(tr.price) end
              from public.trades tr where tr.token_id = t.id and tr.created_at > now() - interval '7 days') as variation,
           extract(epoch from now() - coalesce(t.person_since, t.created_at)) / 86400 as age_days,
           (select count(*) from public.fraud_alerts a where t.owner_id = any (a.accounts) and a.status in ('open', 'reviewing')) as alerts,
           -- The person's social analysis over their connected accounts (social.sql), 0-100.
           (select (private.social_analysis(t.owner_id) ->> 'score')::numeric where t.owner_id is not null) as social_score
    from t, trust
  ),
  parts as (
    select holders, holders_weighted, volume, volume_weighted, trades_7d, variation, age_days, alerts, social_score,
           case when verified then 10 else 0 end::numeric as verified_points,
           least(20, 20 * ln(1 + holders_weighted::numeric) / ln(1001::numeric)) as holder_points,
           least(15, 15 * ln(1 + volume_weighted::numeric) / ln(1000001::numeric)) as volume_points,
           -- A Bayesian average: the observed stability weighs its trades against 20 trades at 7.5 points.
           (trades_7d * case when variation is null then 7.5 else greatest(0, least(15, 15 * (1 - 5 * variation))) end + 20 * 7.5)
             / (trades_7d + 20) as stability_points,
           least(10, greatest(0, 10 * age_days / 365)) as age_points,
           greatest(0, 10 - 5 * alerts)::numeric as alert_points,
           coalesce(20 * social_score / 100, 0) as social_points
    from facts
  )
  select jsonb_build_object(
    'verified', round(verified_points, 2), 'holders', round(holder_points, 2), 'volume', round(volume_points, 2),
    'stability', round(stability_points, 2), 'age', round(age_points, 2), 'alerts', round(alert_points, 2),
    'social', round(social_points, 2),
    -- Each part's most, as the formulas above cap them: the screens read them from here.
    'max', jsonb_build_object('verified', 10, 'holders', 20, 'volume', 15, 'stability', 15, 'age', 10, 'alerts', 10, 'social', 20),
    'score', round(least(100, greatest(0, verified_points + holder_points + volume_points + stability_points + age_points
                                          + alert_points + social_points)), 2),
    'facts', jsonb_build_object('holders', holders, 'holders_weighted', round(holders_weighted, 2),
                                'volume_30d', volume, 'volume_30d_weighted', round(volume_weighted, 2),
                                'trades_7d', trades_7d, 'price_variation_7d', round(variation, 4),
                                'account_age_days', floor(age_days), 'open_alerts', alerts,
                                'social_score', round(social_score, 2)))
  from parts);
end $$;
revoke execute on function public.reputation_components(uuid) from public, anon;

-- The score as last computed, with the parts and facts it was computed from: what the screens
-- show and explain. The score itself is tokens.reputation_score, which the market lists and
-- filters; the two are written together (private.rescore), so the number a screen explains is
-- the number it shows, at every moment.
create table public.reputation_scores (
  token_id uuid primary key references public.tokens (id) on delete cascade,
  parts jsonb not null,
  scored_at timestamptz not null default now()
);
alter table public.reputation_scores enable row level security;
create policy "scores are visible to signed-in users" on public.reputation_scores
  for select to authenticated using (true);
revoke all on public.reputation_scores from anon;
revoke insert, update, delete, truncate on public.reputation_scores from authenticated;

-- Scores a token now: its parts by the formula, its score, and the snapshot the screens explain.
-- The one place a score is written. Returns whether the score changed.
create function private.rescore(p_token uuid) returns boolean
language plpgsql security definer set search_path = '' as $$
declare
  parts jsonb := public.reputation_components(p_token);
begin
  insert into public.reputation_scores (token_id, parts, scored_at) values (p_token, parts, now())
  on conflict (token_id) do update set parts = excluded.parts, scored_at = excluded.scored_at;
  update public.tokens k set reputation_score = (parts ->> 'score')::numeric
   where k.id = p_token and k.reputation_score is distinct from (parts ->> 'score')::numeric;
  return found;
end $$;
revoke execute on function private.rescore(uuid) from public;

-- The token's score as the screens show it, and its parts as they were computed (a token not yet
-- scored has none: null).
create function public.reputation_breakdown(p_token uuid) returns jsonb
language sql stable security invoker set search_path = '' as $$
  select s.parts || jsonb_build_object('scored_at', s.scored_at) from public.reputation_scores s where s.token_id = p_token
$$;
revoke execute on function public.reputation_breakdown(uuid) from public, anon;

create function private.refresh_reputation() returns integer
language plpgsql security definer set search_path = '' as $$
declare
  changed integer := 0;
  tok uuid;
begin
  perform private.refresh_trust();
  -- Each token's row in token order, as the market figures' slide locks them (no deadlock).
  for tok in select k.id from public.tokens k order by k.id loop
    if private.rescore(tok) then changed := changed + 1; end if;
  end loop;
  insert into public.reputation_history (token_id, month, score)
  select k.id, date_trunc('month', now())::date, k.reputation_score from public.tokens k
  on conflict (token_id, month) do update set score = excluded.score;
  return changed;
end $$;
revoke execute on function private.refresh_reputation() from public;

-- Fraud detection: rules in SQL over real orders and trades, run on a schedule (the local server
-- every FRAUD_SCAN_MS; on a hosted project, pg_cron: supabase/cron.sql) and on demand by an
-- admin. Each alert names its rule, severity, accounts and evidence (the orders and trades), and
-- moves open -> reviewing -> dismissed or confirmed; confirming may suspend the accounts. A pattern
-- that goes on updates its open alert instead of raising another; a reviewed pattern is raised
-- again only with evidence its review did not see, so an admin can put a false positive away.

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
-- One active alert per pattern (rule, token, accounts).
create unique index fraud_alerts_active_idx on public.fraud_alerts (rule, coalesce(token_id, '00000000-0000-0000-0000-000000000000'::uuid), accounts)
  where status in ('open', 'reviewing');
create index fraud_alerts_status_idx on public.fraud_alerts (status, created_at desc);
-- A pattern's reviewed alerts, which raise_alert reads before raising it again.
create index fraud_alerts_pattern_idx
  on public.fraud_alerts (rule, coalesce(token_id, '00000000-0000-0000-0000-000000000000'::uuid), accounts);
alter table public.fraud_alerts enable row level security;
create policy "admins read fraud alerts" on public.fraud_alerts for select to authenticated using ((select private.is_admin()));
revoke all on public.fraud_alerts from anon;
revoke insert, update, delete, truncate on public.fraud_alerts from authenticated;

-- Every rule over the last `p_window`; returns how many patterns were seen. Thresholds are named
-- at the top.
create function private.scan_fraud(p_window interval default interval '24 hours')
returns integer language plpgsql security definer set search_path = '' as $$
declare
  ring_max_accounts constant int := 8;      -- the longest ring followed
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
  -- Wash trading: two accounts trading one token back and forth, ending about where they began.
  for r in select * from private.fraud_wash(since) loop
    perform private.raise_alert('wash_trading', case when r.one_way + r.other_way >= 10 then 'high' else 'medium' end, array[r.a, r.b], r.token_id,
      format('Two accounts traded this token back and forth %s times (%s).', r.one_way + r.other_way, private.money(r.volume)),
      jsonb_build_object('trades', to_jsonb(r.trades), 'each_way', jsonb_build_array(r.one_way, r.other_way),
                         'net_tokens', r.net, 'gross_tokens', r.gross));
    seen := seen + 1;
  end loop;

  -- Rings: the same tokens passing around three or more accounts and back; one alert per token and
  -- set of accounts, whichever way and however many times round.
  for r in select * from private.fraud_rings(since, ring_max_accounts) loop
    perform private.raise_alert('ring', 'high', r.accounts, r.token_id,
      format('The same tokens passed around a ring of %s accounts and back (%s trades).', cardinality(r.accounts), cardinality(r.trades)),
      jsonb_build_object('trades', to_jsonb(r.trades)));
    seen := seen + 1;
  end loop;

  -- Spoofing: large orders cancelled within seconds, repeatedly.
  for r in
    select o.user_id, o.token_id, count(*) as n, array_agg(o.id order by o.id) as orders, sum(o.price * o.amount) as value
    from public.orders o
    where o.created_at > since and o.status = 'cancelled' and o.filled = 0 and o.type = 'limit' and o.time_in_force in ('gtc', 'gtd')
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
    from public.orders o where o.created_at > since and o.time_in_force in ('gtc', 'gtd') -- an ioc or fok order cancels by design
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
revoke execute on function private.scan_fraud(interval) from public;

-- Wash trading is trading without a change of ownership. Surveillance desks look for the pattern
-- together with its purpose (FINRA Rule 6140): two accounts trade a token back and forth and the
-- pair's net position barely moves. A pair is flagged when it traded at least twice each way and
-- what passed one way and what passed back nearly cancel out: the net, in tokens, at most a quarter
-- of all the tokens they traded. A trader who buys from a market maker and sells some back is a
-- real change of ownership, and is not flagged.
create function private.fraud_wash(p_since timestamptz)
returns table (token_id uuid, a uuid, b uuid, one_way bigint, other_way bigint, trades bigint[], volume numeric,
               net numeric, gross numeric)
language sql stable security definer set search_path = '' as $$
  select t.token_id, least(t.buyer_id, t.seller_id), greatest(t.buyer_id, t.seller_id),
         count(*) filter (where t.buyer_id < t.seller_id), count(*) filter (where t.buyer_id > t.seller_id),
         array_agg(t.id order by t.id), sum(t.value),
         -- tokens that went from the first account (by id) to the second, less those that came back
         abs(sum(case when t.buyer_id > t.seller_id then t.amount else -t.amount end)), sum(t.amount)
  from public.trades t where t.created_at > p_since
  group by 1, 2, 3
  having count(*) filter (where t.buyer_id < t.seller_id) >= 2         -- at least twice each way
     and count(*) filter (where t.buyer_id > t.seller_id) >= 2
     and abs(sum(case when t.buyer_id > t.seller_id then t.amount else -t.amount end)) <= 0.25 * sum(t.amount)
$$;
revoke execute on function private.fraud_wash(timestamp with time zone) from public;

-- A ring is what circular trading leaves: the same number of a token's tokens passing from account
-- to account, three or more, and back to the first, each account selling on what it was sold.
-- Accounts that merely meet each other on busy books are not a ring. A trade's next hop is its
-- buyer's next sale of the same number of that token's tokens (trades on one token are serialized
-- by its row lock, so their ids are their order in time). Every trade has at most one next hop, so
-- the walk is linear in the trades: at most p_max_accounts hops from each. Tokens passed on in
-- other lots (a sale split across several buyers) are not followed. A ring and its reverse are one
-- pattern.
create function private.fraud_rings(p_since timestamptz, p_max_accounts integer)
returns table (token_id uuid, accounts uuid[], trades bigint[])
language sql stable security definer set search_path = ''
-- The walk's row estimates are far too high, and would have it compiled by JIT: 0.3 s, for a 0.1 s query.
set jit = off as $$
  with recursive recent as (
    select t.id, t.token_id, t.seller_id, t.buyer_id, t.amount from public.trades t where t.created_at > p_since
  ), next_hop as materialized (
    -- computed once, not at every step of the walk
    select x.id, x.next_id, n.buyer_id as next_buyer from (
      select e.id, e.bought,
             -- the smallest later sale in the partition: rows run newest first, so the frame is the later rows
             min(e.id) filter (where not e.bought) over (partition by e.token_id, e.account, e.amount order by e.id desc
                                                          rows between unbounded preceding and 1 preceding) as next_id
      from (select id, token_id, buyer_id as account, amount, true as bought from recent
            union all
            select id, token_id, seller_id, amount, false from recent) e
    ) x join recent n on n.id = x.next_id
    where x.bought
  ), chain as (
    select r.token_id, r.seller_id as origin, r.buyer_id as holder, r.id as last_id,
           array[r.seller_id, r.buyer_id] as path, array[r.id] as ids
    from recent r
    union all
    select c.token_id, c.origin, h.next_buyer, h.next_id, c.path || h.next_buyer, c.ids || h.next_id
    from chain c join next_hop h on h.id = c.last_id
    where c.holder <> c.origin and cardinality(c.path) <= p_max_accounts
      and (h.next_buyer = c.origin or h.next_buyer <> all(c.path))
  ), closed as (
    -- back to the first account after three or more (two is wash trading, its own rule)
    select c.token_id, array(select distinct a from unnest(c.path) a order by a) as accounts, c.ids
    from chain c where c.holder = c.origin and cardinality(c.path) > 3
  )
  select k.token_id, k.accounts, array_agg(distinct x.id order by x.id)
  from closed k cross join lateral unnest(k.ids) x(id)
  group by k.token_id, k.accounts
$$;
revoke execute on function private.fraud_rings(timestamp with time zone, integer) from public;

-- Raises or updates one pattern's alert. An open pattern's row is written only when its severity,
-- summary or evidence changed.
create function private.raise_alert(p_rule text, p_severity text, p_accounts uuid[], p_token uuid, p_summary text, p_evidence jsonb)
returns void language plpgsql security definer set search_path = '' as $$
declare
  accts uuid[] := array(select distinct a from unnest(p_accounts) a order by a);
  ids jsonb := coalesce(p_evidence -> 'trades', p_evidence -> 'orders', '[]');
begin
  if exists (
    select 1 from public.fraud_alerts f
    where f.rule = p_rule and coalesce(f.token_id, '00000000-0000-0000-0000-000000000000'::uuid) = coalesce(p_token, '00000000-0000-0000-0000-000000000000'::uuid)
      and f.accounts = accts and f.status in ('dismissed', 'confirmed')
      and coalesce(f.evidence -> 'trades', f.evidence -> 'orders', '[]') @> ids
  ) then
    return; -- reviewed, and nothing new since
  end if;
  insert into public.fraud_alerts (rule, severity, accounts, token_id, summary, evidence)
  values (p_rule, p_severity, accts, p_token, p_summary, p_evidence)
  on conflict (rule, coalesce(token_id, '00000000-0000-0000-0000-000000000000'::uuid), accounts) where status in ('open', 'reviewing')
  do update set severity = excluded.severity, summary = excluded.summary, evidence = excluded.evidence, updated_at = now()
  where (fraud_alerts.severity, fraud_alerts.summary, fraud_alerts.evidence)
        is distinct from (excluded.severity, excluded.summary, excluded.evidence);
end $$;
revoke execute on function private.raise_alert(text, text, uuid[], uuid, text, jsonb) from public;

-- The admin's side: the alerts newest first, a scan on demand, and the review.
create function public.admin_list_alerts(p_status text default null)
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
revoke execute on function public.admin_list_alerts(text) from public, anon;

create function public.admin_run_fraud_scan() returns integer
language plpgsql security definer set search_path = '' as $$
begin
  perform private.require_admin();
  return private.scan_fraud();
end $$;
revoke execute on function public.admin_run_fraud_scan() from public, anon;

-- open -> reviewing -> dismissed | confirmed. Confirming may suspend the accounts involved.
create function public.admin_review_alert(p_id bigint, p_status text, p_note text default null, p_suspend boolean default false)
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
revoke execute on function public.admin_review_alert(bigint, text, text, boolean) from public, anon;

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
    'founder_vesting_months', 'founder_cliff_months', 'offering_window_minutes', 'offering_cap_bps', 'admins_need_two_step'];
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
     or after.offering_window_minutes is null or after.offering_cap_bps is null or after.admins_need_two_step is null then
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
      admins_need_two_step = after.admins_need_two_step, updated_at = now()
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

-- Sessions and mail: how a person proves who they are to the database, where they are signed in,
-- and the mail the database asks to send them.

-- Two-step verification. With an authenticator app turned on (GoTrue's MFA: a verified factor in
-- auth.mfa_factors), a session that has not entered a code since signing in carries aal1 in its
-- access token, one that has carries aal2. An aal1 session of such a person is refused here,
-- whoever calls: every function that moves money or orders, reads of the person's own money,
-- orders and holdings, and the admin role. The rule has one owner, private.second_step_due; it
-- reads the token and GoTrue's table, so it holds on a hosted project too. Auth itself refuses
-- such a session a new password or email.
--
-- Both checks are PL/pgSQL: policies run them in every statement on a user's money, orders and
-- holdings, and a SQL function with a SET clause is planned afresh at every call before
-- PostgreSQL 18, where PL/pgSQL keeps its plans for the connection.

-- Whether an account has an authenticator app turned on: a verified factor in GoTrue's table.
-- PL/pgSQL, as the checks below: every order asks it.
create function private.has_app(p_user uuid) returns boolean
language plpgsql stable security definer set search_path = '' as $$
begin
  return exists (select from auth.mfa_factors f where f.user_id = p_user and f.status = 'verified');
end $$;
revoke execute on function private.has_app(uuid) from public;

-- Whether the caller has an app turned on and their session has not entered its code.
create function private.second_step_due() returns boolean
language plpgsql stable security definer set search_path = '' as $$
begin
  return coalesce(auth.jwt() ->> 'aal', 'aal1') <> 'aal2' and private.has_app(auth.uid());
end $$;
revoke execute on function private.second_step_due() from public;
grant execute on function private.second_step_due() to authenticated;

create function private.require_second_step() returns void
language plpgsql stable security definer set search_path = '' as $$
begin
  if private.second_step_due() then
    raise exception 'Enter the code from your authenticator app first: two-step verification is on for this account.'
      using errcode = '42501', hint = 'mfa_required';
  end if;
end $$;
revoke execute on function private.require_second_step() from public;

-- Reads of one's own money, orders and holdings: also after the second step (evaluated once per
-- statement, in a sub-select).
create policy "after the second step" on public.cash_accounts as restrictive to authenticated
  using (not (select private.second_step_due() as due)) with check (not (select private.second_step_due() as due));
create policy "after the second step" on public.holdings as restrictive to authenticated
  using (not (select private.second_step_due() as due)) with check (not (select private.second_step_due() as due));
create policy "after the second step" on public.orders as restrictive to authenticated
  using (not (select private.second_step_due() as due)) with check (not (select private.second_step_due() as due));
create policy "after the second step" on public.trades as restrictive to authenticated
  using (not (select private.second_step_due() as due)) with check (not (select private.second_step_due() as due));
create policy "after the second step" on public.wallet_transactions as restrictive to authenticated
  using (not (select private.second_step_due() as due)) with check (not (select private.second_step_due() as due));
create policy "after the second step" on public.watchlist as restrictive to authenticated
  using (not (select private.second_step_due() as due)) with check (not (select private.second_step_due() as due));
create policy "after the second step" on public.payout_destinations as restrictive to authenticated
  using (not (select private.second_step_due() as due)) with check (not (select private.second_step_due() as due));
create policy "after the second step" on public.token_applications as restrictive to authenticated
  using (not (select private.second_step_due() as due)) with check (not (select private.second_step_due() as due));

-- Whether the caller's session proved who they are within p_within (its amr's latest time): money
-- leaves only after a recent sign-in. The time is read from the access token's amr (the method and
-- time of the session's sign-in, which GoTrue and the local auth server both put there), so the
-- rule holds on a hosted project too. A refusal's hint, 'reauthenticate', tells the browser to ask
-- for the password and sign in again.
create function private.signed_in_within(p_within interval) returns boolean
language sql stable set search_path = '' as $$
  select coalesce(
    (select max((a ->> 'timestamp')::double precision)
       from jsonb_array_elements(case when jsonb_typeof(auth.jwt() -> 'amr') = 'array' then auth.jwt() -> 'amr' else '[]' end) a
      where jsonb_typeof(a -> 'timestamp') = 'number'),
    0) > extract(epoch from now() - p_within)
$$;
revoke execute on function private.signed_in_within(interval) from public;

-- Refuses what needs a sign-in within the last 15 minutes (withdrawing, making an API key) with
-- what to do about it: a code from the authenticator app where one is on (a password alone signs
-- in at aal1), else the password. The hint tells the browser to ask for it.
create function private.require_recent_sign_in(p_what text) returns void
language plpgsql stable security definer set search_path = '' as $$
begin
  if private.signed_in_within(interval '15 minutes') then return; end if;
  if private.has_app(auth.uid()) then
    raise exception 'For your security, enter a code from your authenticator app to %.', p_what
      using errcode = 'P0001', hint = 'reauthenticate';
  end if;
  raise exception 'For your security, confirm your password to %.', p_what using errcode = 'P0001', hint = 'reauthenticate';
end $$;
revoke execute on function private.require_recent_sign_in(text) from public;

-- Where a user is signed in: each of the caller's sessions, with the browser and address it
-- started from, when it signed in and when it was last refreshed (GoTrue keeps these in
-- auth.sessions, and so does the local auth server). Ending one stops its refresh token at once
-- and, on this project's server, its access token too.
create function public.my_sessions()
returns table (id uuid, signed_in_at timestamptz, last_seen_at timestamptz, user_agent text, ip text, current boolean)
language sql stable security definer set search_path = '' as $$
  select s.id, s.created_at, greatest(s.created_at, s.refreshed_at), s.user_agent, host(s.ip),
         s.id::text = auth.jwt() ->> 'session_id'
  from auth.sessions s
  where s.user_id = (select private.active_caller())
  order by 6 desc, 3 desc, 2 desc
$$;
revoke execute on function public.my_sessions() from public, anon;

create function public.end_my_session(p_session uuid) returns void
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.person_caller('sign out a session');
begin
  delete from auth.sessions where id = p_session and user_id = uid;
  if not found then perform private.refuse('That session has already ended.'); end if;
end $$;
revoke execute on function public.end_my_session(uuid) from public, anon;

-- Mail the database asks to send: the local server relays it to its outbox (see
-- server/accountMail.ts); a hosted project relays it with a scheduled function.
create table private.account_mail (
  id bigint generated always as identity primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  subject text not null,
  body text not null,
  created_at timestamptz not null default now(),
  sent_at timestamptz
);
create index account_mail_unsent_idx on private.account_mail (id) where sent_at is null;

-- Hands the unsent mail to the relay, each message once, with its recipient's current address:
-- only the relay's (the local server, or a hosted project's scheduled function with the
-- service-role key), as claim_payment is the payment worker's.
create function public.take_account_mail() returns table (recipient text, subject text, body text)
language sql security definer set search_path = '' as $$
  with taken as (
    update private.account_mail m set sent_at = now()
     where m.id in (select id from private.account_mail where sent_at is null order by id limit 100 for update skip locked)
    returning m.user_id, m.subject, m.body, m.id
  )
  select u.email::text, t.subject, t.body from taken t join auth.users u on u.id = t.user_id
   where u.email is not null order by t.id
$$;
revoke execute on function public.take_account_mail() from public, anon, authenticated;

-- A sign-in from a browser the account has not used before is mailed to its owner. Each new
-- session is checked against the browsers the account has signed in from (its user agent without
-- version numbers, so a browser's update is not a new browser); a new one is remembered and
-- mailed, with the time, the address and what to do if it was not the owner. The account's very
-- first session, the one its sign-up's confirmation code starts, is only remembered. A trigger on
-- GoTrue's auth.sessions, so it holds on a hosted project too.
create table private.known_browsers (
  user_id uuid not null references auth.users (id) on delete cascade,
  browser text not null,
  first_seen timestamptz not null default now(),
  last_seen timestamptz not null default now(),
  primary key (user_id, browser)
);

create function private.browser_key(p_user_agent text) returns text
language sql immutable set search_path = '' as $$
  select left(regexp_replace(coalesce(p_user_agent, ''), '[0-9][0-9._]*', '', 'g'), 300)
$$;
revoke execute on function private.browser_key(text) from public;

create function private.mail_new_browser() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  key text := private.browser_key(new.user_agent);
  sign_up boolean;
  added integer;
begin
  -- The sign-up's session: no browser known yet, on an account whose address was confirmed (by the
  -- code mailed at sign-up, in this session's transaction) minutes ago.
  sign_up := not exists (select from private.known_browsers where user_id = new.user_id)
    and exists (select from auth.users where id = new.user_id and email_confirmed_at > now() - interval '10 minutes');
  -- Two sign-ins at once from the same new browser: the key's row lets one of them mail.
  insert into private.known_browsers (user_id, browser) values (new.user_id, key) on conflict do nothing;
  get diagnostics added = row_count;
  if added = 0 then
    update private.known_browsers set last_seen = now() where user_id = new.user_id and browser = key;
  elsif not sign_up then
    insert into private.account_mail (user_id, subject, body)
    values (new.user_id, 'A new sign-in to your RepX account',
      format(E'Your RepX account was signed in from a browser it had not used before, on %s%s.\n'
             'If it was you, there is nothing to do. If it was not, reset your password now with Forgot password? on the sign-in page, then sign the other sessions out under Profile, Settings, See where you are signed in.',
        to_char(new.created_at at time zone 'UTC', 'Mon FMDD, YYYY, HH24:MI "UTC"'),
        coalesce(', from the address ' || host(new.ip), '')));
    perform pg_notify('repx_mail', '');
  end if;
  return new;
end $$;
revoke execute on function private.mail_new_browser() from public;
create trigger sessions_mail_new_browser after insert on auth.sessions
  for each row execute function private.mail_new_browser();

-- Retention, run hourly by the local server's scheduler (pg_cron on a hosted project): market
-- events older than an hour (screens follow them live), sessions unused for 30 days, revoked
-- refresh tokens, mail sent a week ago, browsers unused for a year (a sign-in from one is mailed
-- as new again), and sign-ups never confirmed within a day. An unconfirmed account would keep its
-- address and its username forever: anyone could hold a username with an address that is not
-- theirs. One that something refers to (an admin suspended it, so the audit log names it) is kept.
create function private.prune() returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  sessions integer;
  tokens integer;
  mail integer;
  browsers integer;
  unconfirmed integer := 0;
  stale uuid;
begin
  delete from auth.sessions where coalesce(refreshed_at, created_at) < now() - interval '30 days';
  get diagnostics sessions = row_count;
  delete from auth.refresh_tokens where revoked and updated_at < now() - interval '1 day';
  get diagnostics tokens = row_count;
  delete from private.account_mail where sent_at < now() - interval '7 days';
  get diagnostics mail = row_count;
  delete from private.known_browsers where last_seen < now() - interval '1 year';
  get diagnostics browsers = row_count;
  delete from private.client_orders where created_at < now() - interval '1 day';
  for stale in
    -- A person's sign-up (a password, a user's profile): never the offering's system account.
    select u.id from auth.users u join public.profiles p on p.id = u.id
     where u.email_confirmed_at is null and u.created_at < now() - interval '1 day'
       and u.encrypted_password is not null and p.role = 'user'
  loop
    begin
      delete from auth.users where id = stale;
      unconfirmed := unconfirmed + 1;
    exception when foreign_key_violation then
      null; -- kept: the audit log or another record names it
    end;
  end loop;
  return jsonb_build_object('sessions', sessions, 'refresh_tokens', tokens,
    'account_mail', mail, 'known_browsers', browsers, 'unconfirmed_sign_ups', unconfirmed);
end $$;
revoke execute on function private.prune() from public;

-- API keys: how a bot or a market maker acts for its owner without the owner's password or session
-- (docs/api.md).
--
-- A key is made here, shown once, and kept only as its SHA-256 (a key is 240 random bits, so a
-- fast hash is as safe as a slow one). A request sends it as `Authorization: Bearer repx_...`; the
-- server finds its hash (private.api_key_by_hash), and the request runs as the key's owner with
-- the key's id in its claims (`api_key_id`). Each request checks in the database that the key is
-- still alive (the server's caller statement, db/caller.ts), so a revocation holds at once.
--
-- What a key may do is decided here, in the functions themselves, whoever calls:
--   * every key may read what its owner may read;
--   * a key with the `trade` scope may also place, edit and cancel orders and price alerts
--     (private.require_scope, called by the order and alert functions);
--   * no key may move money, change a bank account, a profile, the watchlist, a password, an email
--     or two-step verification, make another key, or act as an admin (private.require_session,
--     called by each of those functions; the profile's and the watchlist's triggers; the auth
--     server for passwords, email and two-step).

create table private.api_keys (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.profiles (id) on delete cascade,
  name text not null check (char_length(name) between 1 and 60),
  scopes text[] not null check (scopes <@ array['read', 'trade'] and 'read' = any (scopes)),
  -- The addresses it may be used from (null: any), as the owner wrote them.
  allowed_ips inet[] check (cardinality(allowed_ips) between 1 and 20),
  key_hash bytea not null unique,
  -- The key's first characters, so its owner can tell which key a log line or a leak names.
  prefix text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz,
  last_used_at timestamptz,
  revoked_at timestamptz,
  revoked_by uuid references public.profiles (id)
);
create index api_keys_user_idx on private.api_keys (user_id, created_at desc);

-- How many live keys one account may hold.
create function private.max_api_keys() returns integer language sql immutable as 'select 10';
revoke execute on function private.max_api_keys() from public;

-- The key the request came with (from the claims the server signed), or null for a person's own
-- session. PL/pgSQL: the order path asks it, and it keeps its plan for the connection.
create function private.api_key() returns uuid
language plpgsql stable as $$
begin
  return nullif(auth.jwt() ->> 'api_key_id', '')::uuid;
end $$;
revoke execute on function private.api_key() from public;
grant execute on function private.api_key() to authenticated;

-- Refuses a request made with an API key: what only the person, signed in, may do. p_what says
-- what, as "withdraw money".
create function private.require_session(p_what text) returns void
language plpgsql stable as $$
begin
  if private.api_key() is not null then
    raise exception 'An API key cannot %. Sign in to RepX to do it.', p_what
      using errcode = '42501', hint = 'api_key_refused';
  end if;
end $$;
revoke execute on function private.require_session(text) from public;
-- The triggers below run it as the API role.
grant execute on function private.require_session(text) to authenticated;

-- Refuses a request made with a live API key that lacks p_scope ('trade'). A person's own session
-- has every scope. Reads the key's row, not the claims, so a scope can only be what was granted.
create function private.require_scope(p_scope text) returns void
language plpgsql stable security definer set search_path = '' as $$
declare
  key uuid := private.api_key();
begin
  if key is null then return; end if;
  if not exists (select from private.api_keys k where k.id = key and p_scope = any (k.scopes)) then
    raise exception 'This API key may only read. Placing, editing and cancelling orders and alerts needs a key with the trade scope.'
      using errcode = '42501', hint = 'api_key_scope';
  end if;
end $$;
revoke execute on function private.require_scope(text) from public;

-- The caller of what only the person may do, signed in (no API key): p_what says what, for the
-- refusal. Then active_caller's checks (signed in, not suspended, past the second step).
create function private.person_caller(p_what text) returns uuid
language plpgsql stable security definer set search_path = '' as $$
begin
  perform private.require_session(p_what);
  return private.active_caller();
end $$;
revoke execute on function private.person_caller(text) from public;

-- The caller of an act on orders or alerts: the person, or a key with the trade scope.
create function private.trading_caller() returns uuid
language plpgsql stable security definer set search_path = '' as $$
begin
  perform private.require_scope('trade');
  return private.active_caller();
end $$;
revoke execute on function private.trading_caller() from public;

-- The direct writes a person may make (profile fields, watchlist, avatars) are a person's own:
-- refused to a key. Only a write by the API role itself: the functions a key may call write these
-- tables as their owner.
create function private.refuse_api_key_write() returns trigger
language plpgsql as $$
begin
  if current_user = 'authenticated' then perform private.require_session(tg_argv[0]); end if;
  return null;
end $$;
revoke execute on function private.refuse_api_key_write() from public;
create trigger profiles_no_api_key_writes before insert or update or delete on public.profiles
  for each statement execute function private.refuse_api_key_write('change a profile');
create trigger watchlist_no_api_key_writes before insert or update or delete on public.watchlist
  for each statement execute function private.refuse_api_key_write('change the watchlist');
create trigger objects_no_api_key_writes before insert or update or delete on storage.objects
  for each statement execute function private.refuse_api_key_write('upload or remove a picture');

-- A new key for the caller: a name, its scopes ('read', or 'read' and 'trade'), the addresses it
-- may be used from, and when it expires. Needs a sign-in within the last 15 minutes, as a
-- withdrawal does. Returns the key, which is shown this once and kept only as its hash.
create function public.create_api_key(
  p_name text, p_scopes text[], p_allowed_ips text[] default null, p_expires_at timestamptz default null
) returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  uid uuid;
  key text;
  ips inet[];
  made private.api_keys;
begin
  perform private.require_session('create another API key');
  uid := private.active_caller();
  if char_length(trim(coalesce(p_name, ''))) not between 1 and 60 then
    perform private.refuse('Name the key (1 to 60 characters), so you can tell it from your others.');
  end if;
  perform private.refuse_hidden_characters(p_name, 'A key''s name');
  if p_scopes is null or cardinality(p_scopes) = 0 or not (p_scopes <@ array['read', 'trade']) then
    perform private.refuse('A key''s scopes are read, or read and trade.');
  end if;
  if p_expires_at is not null and (p_expires_at <= now() + interval '1 hour' or p_expires_at > now() + interval '2 years') then
    perform private.refuse('A key expires between an hour and two years from now, or never.');
  end if;
  if p_allowed_ips is not null then
    if cardinality(p_allowed_ips) not between 1 and 20 then
      perform private.refuse('List 1 to 20 addresses the key may be used from, or none for any.');
    end if;
    begin
      ips := array(select distinct trim(a)::inet from unnest(p_allowed_ips) a);
    exception when invalid_text_representation then
      perform private.refuse('Each allowed address must be an IP address or a network, as 203.0.113.7 or 2001:db8::/32.');
    end;
  end if;
  perform private.require_recent_sign_in('create an API key');
  perform 1 from public.profiles where id = uid for no key update;
  if (select count(*) from private.api_keys k
       where k.user_id = uid and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())) >= private.max_api_keys() then
    perform private.refuse(format('You have %s live API keys, the most an account may hold: revoke one first.', private.max_api_keys()));
  end if;
  key := 'repx_' || translate(encode(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()), 'base64'), '+/=', '-_');
  insert into private.api_keys (user_id, name, scopes, allowed_ips, key_hash, prefix, expires_at)
  values (uid, trim(p_name), array(select distinct s from unnest(array['read'] || p_scopes) s order by s), ips,
          sha256(convert_to(key, 'UTF8')), left(key, 12), p_expires_at)
  returning * into made;
  perform private.audit('api_key.create', uid, made.id::text, null,
    jsonb_build_object('name', made.name, 'scopes', made.scopes, 'prefix', made.prefix, 'expires_at', made.expires_at));
  insert into private.account_mail (user_id, subject, body)
  values (uid, 'A new API key on your RepX account',
    format(E'An API key named "%s" (%s…) was created on your account, with the scopes %s%s.\n\n'
           'It can %s, but never move money or change your account. If this was not you, revoke it in '
           'Profile › Settings › API keys and change your password.',
           made.name, made.prefix, array_to_string(made.scopes, ' and '),
           coalesce(', expiring ' || to_char(made.expires_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI') || ' UTC', ''),
           case when 'trade' = any (made.scopes) then 'read your account and place and cancel orders' else 'read your account' end));
  return jsonb_build_object('id', made.id, 'key', key);
end $$;
revoke execute on function public.create_api_key(text, text[], text[], timestamptz) from public, anon;

-- One key of the caller's, as the list and the admin show it (never its hash).
create function private.api_key_row(k private.api_keys) returns jsonb
language sql stable set search_path = '' as $$
  select jsonb_build_object('id', k.id, 'name', k.name, 'scopes', k.scopes, 'prefix', k.prefix,
    'allowed_ips', (select array_agg(host(a) || case when masklen(a) < case when family(a) = 4 then 32 else 128 end
                                                     then '/' || masklen(a) else '' end) from unnest(k.allowed_ips) a),
    'created_at', k.created_at, 'expires_at', k.expires_at, 'last_used_at', k.last_used_at, 'revoked_at', k.revoked_at,
    'status', case when k.revoked_at is not null then 'revoked' when k.expires_at <= now() then 'expired' else 'active' end)
$$;
revoke execute on function private.api_key_row(private.api_keys) from public;

-- The caller's keys, live ones first, then the newest.
create function public.list_api_keys() returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  uid uuid := private.active_caller();
begin
  return coalesce((select jsonb_agg(private.api_key_row(k)
                     order by (k.revoked_at is null and (k.expires_at is null or k.expires_at > now())) desc, k.created_at desc)
                   from private.api_keys k where k.user_id = uid), '[]');
end $$;
revoke execute on function public.list_api_keys() from public, anon;

-- Ends a key: by its owner (in their own session), or by an admin with a reason. Mailed to the
-- owner and audited. Revoking a revoked key changes nothing.
create function private.revoke_key(p_id uuid, p_by uuid, p_reason text) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  k private.api_keys;
begin
  update private.api_keys set revoked_at = now(), revoked_by = p_by
   where id = p_id and revoked_at is null returning * into k;
  if not found then
    select * into k from private.api_keys where id = p_id;
    return private.api_key_row(k);
  end if;
  -- Realtime ends the channels joined with it (REST refuses it from the next request on).
  perform pg_notify('repx_api_key_revoked', k.id::text);
  perform private.audit('api_key.revoke', k.user_id, k.id::text, jsonb_build_object('status', 'active'),
    jsonb_build_object('status', 'revoked', 'name', k.name, 'prefix', k.prefix), p_reason);
  insert into private.account_mail (user_id, subject, body)
  values (k.user_id, 'An API key on your RepX account was revoked',
    format(E'The API key "%s" (%s…) was revoked%s. Requests made with it are refused from now on.',
           k.name, k.prefix, case when p_by = k.user_id then '' else ' by RepX: ' || p_reason end));
  return private.api_key_row(k);
end $$;
revoke execute on function private.revoke_key(uuid, uuid, text) from public;

create function public.revoke_api_key(p_id uuid) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid;
begin
  perform private.require_session('revoke an API key');
  uid := private.active_caller();
  if not exists (select from private.api_keys where id = p_id and user_id = uid) then
    perform private.refuse('There is no such API key on your account.');
  end if;
  return private.revoke_key(p_id, uid, null);
end $$;
revoke execute on function public.revoke_api_key(uuid) from public, anon;

-- An account's keys, for the admin's account details.
create function private.account_api_keys(p_user uuid) returns jsonb
language sql stable security definer set search_path = '' as $$
  select coalesce(jsonb_agg(private.api_key_row(k) order by k.created_at desc), '[]')
  from private.api_keys k where k.user_id = p_user
$$;
revoke execute on function private.account_api_keys(uuid) from public;

create function public.admin_revoke_api_key(p_id uuid, p_reason text) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  admin uuid := private.require_admin();
begin
  perform private.require_reason(p_reason, 'Give a reason of 3 to 500 characters: it is mailed to the key''s owner.');
  if not exists (select from private.api_keys where id = p_id) then perform private.refuse('There is no such API key.'); end if;
  return private.revoke_key(p_id, admin, trim(p_reason));
end $$;
revoke execute on function public.admin_revoke_api_key(uuid, text) from public, anon;

-- The server's lookup of a key it has not seen lately: the owner, scopes, addresses and state, by
-- the hash. The server's own role only: no API role may look keys up.
create function private.api_key_by_hash(p_hash bytea)
returns table (id uuid, user_id uuid, scopes text[], allowed_ips text[], expires_at timestamptz, revoked_at timestamptz)
language sql stable security definer set search_path = '' as $$
  select k.id, k.user_id, k.scopes, k.allowed_ips::text[], k.expires_at, k.revoked_at
  from private.api_keys k where k.key_hash = p_hash
$$;
revoke execute on function private.api_key_by_hash(bytea) from public;

-- When a key was last used, written by the server at most once a minute per key.
create function private.touch_api_key(p_id uuid) returns void
language sql security definer set search_path = '' as $$
  update private.api_keys set last_used_at = now() where id = p_id and (last_used_at is null or last_used_at < now() - interval '1 minute')
$$;
revoke execute on function private.touch_api_key(uuid) from public;

-- Realtime: which changes reach open screens at once, and what they carry.
--
-- The market is watched far more than it is traded, so its changes go out as Broadcast from the
-- database, Supabase's way for data many may see: each change of a book, the tape or a token's
-- state is one message on the private topic 'market' (private.tell_market), carrying the figures
-- that changed, so an open screen patches itself rather than reading again. Each account has its
-- own private topic, 'account:<id>' (private.tell_accounts): it tells the owner's screens that
-- their orders, cash or alerts changed, and names no figure (the screens read their own rows, as
-- row-level security lets them). realtime.send queues a message; Supabase Realtime (or the local
-- server's, realtime/messages.ts) relays it to the topic's members, whom the policies below
-- authorized once, when they joined. Nothing here NOTIFYs: a notifying commit takes one global
-- lock, which would serialize all trading.
--
-- Tables that change now and then (settings, payments, applications) announce each change by
-- NOTIFY instead: the local server relays it as postgres_changes, row-level security deciding who
-- receives it, and on a hosted project they join Supabase Realtime's publication.

create policy "signed-in users hear the market" on realtime.messages
  for select to authenticated using ((select realtime.topic()) = 'market');
create policy "people hear their own account" on realtime.messages
  for select to authenticated using ((select realtime.topic()) = 'account:' || (select auth.uid())::text);
-- Who has a token's trading page open ("N watching"): presence on the private topic
-- 'watchers:<token id>', for signed-in people only, each tracking under their own user id (the
-- server refuses a key shaped like someone else's id), so the page counts accounts, not sockets.
create policy "signed-in people see who watches a token" on realtime.messages
  for select to authenticated using ((select realtime.topic()) like 'watchers:%');
create policy "signed-in people are seen watching a token" on realtime.messages
  for insert to authenticated with check ((select realtime.topic()) like 'watchers:%' and extension = 'presence');

-- The book's levels at these prices now: each {side, price} with the tokens resting there (0 for a
-- level emptied), read on the book's index. Absolute amounts, not changes: a screen that missed a
-- message is right again at the next one for that level, and one book's messages leave in the
-- order its changes committed (the book's lock orders them). PL/pgSQL, as every function an order
-- calls: it keeps its plan for the connection, where a SQL function with SET is planned at each call.
create function private.book_levels(p_token uuid, p_levels jsonb) returns jsonb
language plpgsql stable security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
begin
  return (
    select coalesce(jsonb_agg(jsonb_build_object('side', l.side, 'price', l.price, 'amount',
             (select coalesce(sum(o.amount - o.filled), 0) from public.orders o
               where o.token_id = p_token and o.side = l.side and o.status = 'open'
                 and (case when o.side = 'buy' then -o.price else o.price end)
                   = (case when l.side = 'buy' then -l.price else l.price end))) order by l.side, l.price), '[]')
    from (select distinct x.side, x.price from jsonb_to_recordset(p_levels) as x (side text, price numeric)
          where x.price is not null) l);
end $$;
revoke execute on function private.book_levels(uuid, jsonb) from public;

-- The levels of these orders (and of their take-profit and stop partners), for a message after
-- they left the book.
create function private.order_levels(p_orders bigint[]) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
begin
  return (select coalesce(jsonb_agg(jsonb_build_object('side', o.side, 'price', o.price)), '[]')
          from public.orders o
          where o.price is not null and (o.id = any (p_orders) or o.oco_with = any (p_orders)));
end $$;
revoke execute on function private.order_levels(bigint[]) from public;

-- One message on 'market' about one token: what happened (kind: 'trade', 'book', 'halt',
-- 'offering', 'listed', or 'stats' when trades left its 24 hours), its figures now (price, 24h
-- change and volume, market cap, holders, halted) and how its market cap and volume moved since
-- p_before ({market_cap, volume_24h} before the change: the market's totals follow without a read), the
-- best bid and ask, the book's levels the change touched (p_levels, and those its trades took
-- from), and the trades made at p_trades_at (the settlement's time), newest first, as the tape
-- shows them.
create function private.tell_market(
  p_token uuid, p_kind text, p_levels jsonb default '[]', p_trades_at timestamptz default null,
  p_before jsonb default null
) returns void
language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  s private.token_stats;
  trades jsonb := '[]';
  levels jsonb := coalesce(p_levels, '[]');
  changed jsonb;
begin
  select * into s from private.token_stats where token_id = p_token;
  if p_trades_at is not null then
    select coalesce(jsonb_agg(jsonb_build_object('id', t.id, 'price', t.price, 'amount', t.amount, 'value', t.value,
                                                 'type', t.taker_side, 'created_at', t.created_at)
                              order by t.id desc), '[]'),
           levels || coalesce(jsonb_agg(jsonb_build_object('side', case when t.taker_side = 'buy' then 'sell' else 'buy' end,
                                                           'price', t.price)), '[]')
      into trades, levels
      from public.trades t where t.token_id = p_token and t.created_at = p_trades_at;
  end if;
  changed := private.book_levels(p_token, levels);
  perform realtime.send(jsonb_build_object(
    'token_id', p_token, 'kind', p_kind,
    'price', s.price, 'change_24h', s.change_24h, 'volume_24h', s.volume_24h, 'market_cap', s.market_cap,
    'market_cap_change', coalesce(s.market_cap - (p_before->>'market_cap')::numeric, 0),
    'volume_change', coalesce(s.volume_24h - (p_before->>'volume_24h')::numeric, 0), 'holders', s.holders, 'halted', s.halted,
    'best_bid', (select o.price from public.orders o where o.token_id = p_token and o.side = 'buy' and o.status = 'open'
                  order by o.token_id, o.side, (case when o.side = 'buy' then -o.price else o.price end), o.created_at, o.id limit 1),
    'best_ask', (select o.price from public.orders o where o.token_id = p_token and o.side = 'sell' and o.status = 'open'
                  order by o.token_id, o.side, (case when o.side = 'buy' then -o.price else o.price end), o.created_at, o.id limit 1),
    'levels', changed,
    'trades', trades), 'token', 'market', true);
  perform private.tell_feed(p_token, changed, trades);
end $$;
revoke execute on function private.tell_market(uuid, text, jsonb, timestamptz, jsonb) from public;

-- The market-data feed for bots (docs/api.md): each change of a book goes out on 'book:<token>'
-- as {seq, bids, asks} with only the levels it changed (amount 0: the level is gone), and each
-- settlement's trades on 'trades:<token>', each trade with its own sequence. The book's seq rises
-- by exactly one per message, under the book's lock, so the messages leave in seq order and a
-- client that sees a gap reads book_snapshot again; applying the deltas after a snapshot's seq
-- gives exactly the next snapshot.
create table private.book_feed (
  token_id uuid primary key references public.tokens (id) on delete cascade,
  book_seq bigint not null default 0,
  trade_seq bigint not null default 0
);

create function private.tell_feed(p_token uuid, p_levels jsonb, p_trades jsonb) returns void
language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  book_change integer := case when jsonb_array_length(p_levels) > 0 then 1 else 0 end;
  traded integer := jsonb_array_length(p_trades);
  seqs record;
begin
  if book_change = 0 and traded = 0 then return; end if;
  insert into private.book_feed as f (token_id, book_seq, trade_seq) values (p_token, book_change, traded)
  on conflict (token_id) do update set book_seq = f.book_seq + book_change, trade_seq = f.trade_seq + traded
  returning f.book_seq, f.trade_seq into seqs;
  if book_change = 1 then
    perform realtime.send(jsonb_build_object('seq', seqs.book_seq,
      'bids', coalesce((select jsonb_agg(jsonb_build_object('price', l -> 'price', 'amount', (l ->> 'amount')::bigint) order by (l ->> 'price')::numeric desc)
                        from jsonb_array_elements(p_levels) l where l ->> 'side' = 'buy'), '[]'),
      'asks', coalesce((select jsonb_agg(jsonb_build_object('price', l -> 'price', 'amount', (l ->> 'amount')::bigint) order by (l ->> 'price')::numeric)
                        from jsonb_array_elements(p_levels) l where l ->> 'side' = 'sell'), '[]')),
      'book', 'book:' || p_token::text, true);
  end if;
  if traded > 0 then
    -- The tape's trades come newest first: the feed numbers them oldest first.
    perform realtime.send(jsonb_build_object('seq', seqs.trade_seq,
      'trades', (select jsonb_agg(t.value || jsonb_build_object('seq', seqs.trade_seq - traded + t.n) order by t.n)
                 from (select value, row_number() over (order by (value ->> 'id')::bigint) as n from jsonb_array_elements(p_trades)) t)),
      'trades', 'trades:' || p_token::text, true);
  end if;
end $$;
revoke execute on function private.tell_feed(uuid, jsonb, jsonb) from public;

-- A book as the feed numbers it: every level, bids best first and asks best first, with the
-- sequence numbers of the book's and the tape's last messages. One statement, so the levels and
-- the numbers are of one moment.
create function public.book_snapshot(p_token uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
begin
  if auth.uid() is null then raise exception 'Sign in to read the feed.' using errcode = '42501'; end if;
  if not exists (select from public.tokens k where k.id = p_token) then perform private.refuse('There is no such token.'); end if;
  return (
    select jsonb_build_object('token_id', p_token,
      'seq', coalesce((select f.book_seq from private.book_feed f where f.token_id = p_token), 0),
      'trade_seq', coalesce((select f.trade_seq from private.book_feed f where f.token_id = p_token), 0),
      'bids', coalesce((select jsonb_agg(jsonb_build_object('price', l.price, 'amount', l.amount) order by l.price desc)
                        from (select o.price, sum(o.amount - o.filled)::bigint as amount from public.orders o
                              where o.token_id = p_token and o.side = 'buy' and o.status = 'open' group by o.price) l), '[]'),
      'asks', coalesce((select jsonb_agg(jsonb_build_object('price', l.price, 'amount', l.amount) order by l.price)
                        from (select o.price, sum(o.amount - o.filled)::bigint as amount from public.orders o
                              where o.token_id = p_token and o.side = 'sell' and o.status = 'open' group by o.price) l), '[]')));
end $$;
revoke execute on function public.book_snapshot(uuid) from public, anon;

create policy "signed-in users and their keys hear the feed" on realtime.messages
  for select to authenticated using ((select realtime.topic()) like 'book:%' or (select realtime.topic()) like 'trades:%');

-- One message to each of these accounts' topics: what of theirs changed ('orders': an order
-- rested, was cancelled, expired or waits; 'fills': an order of theirs traded; 'cash': money came
-- without an order, a fee share or an offering's proceeds; 'alert': a price alert fired), and on
-- which token.
create function private.tell_accounts(p_accounts uuid[], p_what text, p_token uuid default null) returns void
language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
begin
  perform realtime.send(jsonb_build_object('what', p_what, 'token_id', p_token), 'account', 'account:' || x.a::text, true)
     from (select distinct a from unnest(p_accounts) a where a is not null) x;
end $$;
revoke execute on function private.tell_accounts(uuid[], text, uuid) from public;

create function private.notify_realtime() returns trigger
language plpgsql as $$
begin
  perform pg_notify('repx_realtime', json_build_object(
    'schema', tg_table_schema, 'table', tg_table_name, 'type', tg_op,
    'commit_timestamp', to_char(now() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'record', to_jsonb(new))::text);
  return null;
end $$;
revoke execute on function private.notify_realtime() from public;

-- Adds a table to Supabase Realtime's publication where there is one (a hosted project); the
-- local server relays the changes itself.
create function private.publish_realtime(p_table regclass) returns void
language plpgsql as $$
begin
  if exists (select 1 from pg_publication where pubname = 'supabase_realtime') then
    execute format('alter publication supabase_realtime add table %s', p_table);
  end if;
end $$;
revoke execute on function private.publish_realtime(regclass) from public;

-- A change of settings reaches open screens at once (the order panel's fee).
create trigger exchange_settings_notify after update on public.exchange_settings
  for each row execute function private.notify_realtime();

-- The owner of a deposit or withdrawal sees its status change live.
create trigger wallet_transactions_notify after insert or update on public.wallet_transactions
  for each row execute function private.notify_realtime();
select private.publish_realtime('public.wallet_transactions');

-- An applicant sees the decision on their token application live.
create trigger token_applications_notify after insert or update on public.token_applications
  for each row execute function private.notify_realtime();
select private.publish_realtime('public.token_applications');

-- The owner of an Auto-Invest plan sees each run as the scheduler records it, on any screen: once,
-- with its outcome (a run's row is first written as running, inside its transaction).
create trigger invest_runs_notify after insert or update on public.invest_runs
  for each row when (new.status <> 'running') execute function private.notify_realtime();
select private.publish_realtime('public.invest_runs');

-- A person sees their social account's proof and each read arrive live (social.sql).
create trigger social_accounts_notify after insert or update of status, read_at on public.social_accounts
  for each row execute function private.notify_realtime();
select private.publish_realtime('public.social_accounts');

-- Storage: profile images.
--
-- A public bucket (anyone may view an image by its URL), 5 MB at most, images only; a user writes
-- only inside their own folder, avatars/<their user id>/.
insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
values ('avatars', 'avatars', true, 5242880, array['image/png', 'image/jpeg', 'image/gif', 'image/webp'])
on conflict (id) do nothing;

create policy "profile images are public" on storage.objects
  for select using (bucket_id = 'avatars');
create policy "users upload into their own folder" on storage.objects
  for insert to authenticated with check (bucket_id = 'avatars' and (storage.foldername(name))[1] = (select auth.uid())::text);
create policy "users replace their own images" on storage.objects
  for update to authenticated using (bucket_id = 'avatars' and (storage.foldername(name))[1] = (select auth.uid())::text)
  with check (bucket_id = 'avatars' and (storage.foldername(name))[1] = (select auth.uid())::text);
create policy "users remove their own images" on storage.objects
  for delete to authenticated using (bucket_id = 'avatars' and (storage.foldername(name))[1] = (select auth.uid())::text);

-- A profile's images are its owner's uploads. The avatar is shown wherever the person's token is
-- (the market, every holder's dashboard), so a URL of anyone's choosing would make every viewer's
-- browser fetch it: a tracking pixel that collects the viewers' addresses, a picture nobody
-- approved, or a javascript: URL. An image must be a public URL of an object in the person's own
-- folder of the avatars bucket (`<id>/<file>`, as the profile's Edit dialog uploads it), on this
-- project's own address (private.deployment): a look-alike path on another host, an internal
-- address or another port is refused. Only an image that changes is checked, so an older value
-- does not block other edits.
create function private.check_profile_images() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  changed text[] := array[]::text[];
  url text;
  object_name text;
  origin text := (select d.public_url from private.deployment d);
begin
  if tg_op = 'INSERT' or new.avatar_url is distinct from old.avatar_url then
    changed := changed || new.avatar_url;
  end if;
  if tg_op = 'INSERT' or new.cover_url is distinct from old.cover_url then
    changed := changed || new.cover_url;
  end if;
  foreach url in array changed loop
    continue when url is null;
    object_name := case when left(url, length(origin) + 1) = origin || '/' then
      substring(substr(url, length(origin) + 1) from '^/storage/v1/object/public/avatars/([0-9a-f-]{36}/[A-Za-z0-9._-]+)$') end;
    if object_name is null
       or split_part(object_name, '/', 1) <> new.id::text
       or not exists (select 1 from storage.objects o where o.bucket_id = 'avatars' and o.name = object_name) then
      raise exception 'A profile image must be a picture uploaded to your own profile.' using errcode = 'P0001';
    end if;
  end loop;
  return new;
end $$;
revoke execute on function private.check_profile_images() from public;
create trigger check_profile_images before insert or update of avatar_url, cover_url on public.profiles
  for each row execute function private.check_profile_images();

-- A person's avatar is their token's too, so it shows everywhere they appear.
create function private.sync_token_avatar() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  update public.tokens set avatar_url = new.avatar_url where owner_id = new.id;
  return null;
end $$;
revoke execute on function private.sync_token_avatar() from public;
create trigger on_profile_avatar_changed after update of avatar_url on public.profiles
  for each row when (old.avatar_url is distinct from new.avatar_url) execute function private.sync_token_avatar();

-- A person keeps at most 20 MB of images in the avatars bucket (four at the bucket's 5 MB limit),
-- so that one account cannot fill the storage. The person's profile row is locked first, so two
-- uploads at once count each other. 53400 is a limit reached: the storage server answers 413.
create function private.check_image_quota() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  quota constant bigint := 20 * 1024 * 1024;
  used bigint;
begin
  if new.bucket_id <> 'avatars' or new.owner is null then return new; end if;
  perform 1 from public.profiles where id = new.owner for no key update;
  select coalesce(sum((o.metadata ->> 'size')::bigint), 0) into used
    from storage.objects o where o.bucket_id = new.bucket_id and o.owner = new.owner and o.name <> new.name;
  if used + coalesce((new.metadata ->> 'size')::bigint, 0) > quota then
    raise exception 'You can keep up to 20 MB of images: remove one to upload another.' using errcode = '53400';
  end if;
  return new;
end $$;
revoke execute on function private.check_image_quota() from public;
create trigger check_image_quota before insert or update on storage.objects
  for each row execute function private.check_image_quota();
