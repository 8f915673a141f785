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
  updated_at timestamptz not null default now(),
  -- A new token's issue on approval (tokens.sql): its supply, the person's founder allocation
  -- (20%), and the price its offering is sold at.
  token_supply bigint not null default 1000000 check (token_supply between 1000 and 1000000000),
  token_founder_bps integer not null default 2000 check (token_founder_bps between 0 and 10000),
  token_issue_price numeric(12, 2) not null default 10 check (token_issue_price > 0 and token_issue_price <= 1000000),
  -- How long a newly added bank account waits before a withdrawal may go to it (money.sql); the
  -- Withdraw dialog reads it to say so.
  new_bank_account_hold_hours integer not null default 24 check (new_bank_account_hold_hours between 0 and 168),
  -- How far from the last price a market order may trade (trading.sql, match_order): 20%.
  market_band_bps integer not null default 2000 check (market_band_bps between 100 and 5000)
);
comment on column public.exchange_settings.new_bank_account_hold_hours is 'Hours a newly added bank account waits before it may receive a withdrawal.';
alter table public.exchange_settings enable row level security;
create policy "settings are visible to signed-in users" on public.exchange_settings for select to authenticated using (true);
revoke all on public.exchange_settings from anon;
revoke insert, update, delete, truncate on public.exchange_settings from authenticated;

insert into public.exchange_settings default values;

-- Raised for every refusal the person can fix; the message is shown as it is.
create function private.refuse(message text) returns void
language plpgsql volatile as $$ begin raise exception '%', message using errcode = 'P0001'; end $$;
revoke execute on function private.refuse(text) from public;

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
create function private.is_admin() returns boolean
language plpgsql stable security definer set search_path = '' as $$
begin
  return exists (select 1 from public.profiles where id = auth.uid() and role = 'admin' and status = 'active')
     and not private.second_step_due();
end $$;
grant execute on function private.is_admin() to authenticated;

create function private.require_admin() returns uuid
language plpgsql stable security definer set search_path = '' as $$
begin
  if not private.is_admin() then raise exception 'Admin privileges required.' using errcode = '42501'; end if;
  return auth.uid();
end $$;
revoke execute on function private.require_admin() from public;

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
  -- Derived once, so the engine checks it and the trading screen shows it without restating it.
  available bigint generated always as (amount - reserved) stored
);
-- `available` and `reserved` mean the same here and in cash_accounts: what the owner may sell
-- now, and what their resting orders hold back. Holdings has a total of its own; cash has none.
comment on column public.holdings.amount is
  'Tokens the owner holds in all, including those reserved by resting sell orders.';
comment on column public.holdings.reserved is
  'Tokens held back by the owner''s resting sell orders; part of amount, released on cancel.';
comment on column public.holdings.available is
  'Tokens the owner may sell now: amount - reserved (generated).';
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
  select total_supply into supply from public.tokens where id = p_token for update;
  select coalesce(sum(amount), 0) into held from public.holdings where token_id = p_token;
  if p_amount <= 0 or held + p_amount > supply then
    raise exception 'Cannot issue % tokens: only % remain unissued.', p_amount, supply - held using errcode = 'P0001';
  end if;
  insert into public.holdings (user_id, token_id, amount) values (p_user, p_token, p_amount)
  on conflict (user_id, token_id) do update set amount = public.holdings.amount + excluded.amount;
end $$;
revoke execute on function private.issue_tokens(uuid, uuid, bigint) from public;

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

create function public.apply_for_token(p_display_name text, p_category text, p_bio text default '', p_socials jsonb default '{}')
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.active_caller();
  app public.token_applications;
begin
  perform 1 from public.profiles where id = uid for update; -- one application at a time per person
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
  values (uid, trim(p_display_name), p_category, coalesce(trim(p_bio), ''), private.social_links(p_socials))
  returning * into app;
  return to_jsonb(app);
end $$;
revoke execute on function public.apply_for_token(text, text, text, jsonb) from public, anon;

-- Social handles become links; no social API is called.
create function private.social_links(p_socials jsonb) returns jsonb
language plpgsql immutable set search_path = '' as $$
declare
  bases constant jsonb := '{"x": "https://x.com/", "instagram": "https://instagram.com/", "youtube": "https://youtube.com/@",
                            "tiktok": "https://tiktok.com/@", "linkedin": "https://linkedin.com/in/"}';
  links jsonb := '[]';
  k text;
  handle text;
begin
  if p_socials is null or p_socials = 'null'::jsonb then return links; end if;
  if jsonb_typeof(p_socials) <> 'object' then perform private.refuse('Social handles must be given per platform.'); end if;
  for k, handle in select key, trim(leading '@' from trim(value #>> '{}')) from jsonb_each(p_socials) loop
    if not bases ? k then perform private.refuse(format('%s is not a supported platform: use x, instagram, youtube, tiktok or linkedin.', k)); end if;
    continue when handle = '';
    if handle !~ '^[A-Za-z0-9_.-]{1,50}$' then
      perform private.refuse(format('The %s handle "%s" is not valid: letters, digits, dots, dashes and underscores only.', k, handle));
    end if;
    links := links || jsonb_build_object('platform', k, 'handle', handle, 'url', (bases ->> k) || handle);
  end loop;
  return links;
end $$;
revoke execute on function private.social_links(jsonb) from public;

-- An application names the tokens already on the market under the same name (letter case and
-- spacing aside), so the admin who reviews 'Sarah Chen' sees that @sarahchen is listed as Sarah
-- Chen before issuing a second one: people share names, but a reputation exchange must not let one
-- pass for another.
create function public.admin_list_applications(p_status text default 'pending')
returns table (id bigint, user_id uuid, username text, email text, display_name text, category text, bio text, socials jsonb,
               status text, reason text, token_id uuid, created_at timestamptz, decided_at timestamptz, namesakes jsonb)
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
                        and t.owner_id is distinct from a.user_id), '[]'::jsonb)
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
-- of the rest at the issue price on the order book. It is on the market at once.
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
begin
  select * into app from public.token_applications where id = p_id for update;
  if not found then perform private.refuse('There is no such application.'); end if;
  if app.status <> 'pending' then perform private.refuse(format('This application was already %s.', app.status)); end if;
  select * into owner from public.profiles where id = app.user_id for update;
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
  if founder > 0 then perform private.issue_tokens(tok, app.user_id, founder); end if;
  -- Its first score, by the formula (reputation.sql), and the month's history point.
  update public.tokens set reputation_score = (public.reputation_components(tok) ->> 'score')::numeric where id = tok;
  insert into public.reputation_history (token_id, month, score)
  select tok, date_trunc('month', now())::date, reputation_score from public.tokens where id = tok;
  if supply > founder then
    perform private.issue_tokens(tok, private.issuance_account(), supply - founder);
    perform private.rest_order(private.issuance_account(), tok, 'sell', price, supply - founder);
  end if;
  update public.token_applications set status = 'approved', token_id = tok, decided_by = admin, decided_at = now() where id = p_id
  returning * into app;
  insert into public.market_events (token_id, kind) values (tok, 'book');
  perform private.audit('application.approve', app.user_id, 'application ' || p_id, jsonb_build_object('status', 'pending'),
    jsonb_build_object('status', 'approved', 'token_id', tok, 'total_supply', supply, 'issue_price', price, 'founder_allocation', founder));
  return jsonb_build_object('application', to_jsonb(app), 'token_id', tok, 'total_supply', supply, 'issue_price', price,
    'founder_allocation', founder, 'offering', supply - founder);
end $$;
revoke execute on function public.admin_approve_application(bigint, bigint, numeric) from public, anon;

create function public.admin_reject_application(p_id bigint, p_reason text)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  admin uuid := private.require_admin();
  app public.token_applications;
begin
  if char_length(trim(coalesce(p_reason, ''))) not between 3 and 500 then
    perform private.refuse('Give the applicant a reason of 3 to 500 characters.');
  end if;
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

-- Trading: the order book and the engine that matches it. Each call is one transaction.
--
-- The order path, top to bottom in this file:
--
--   place_order = check_order_request -> lock the book -> check_order_funds -> match_order
--                 -> lock the accounts -> settle_fills -> rest what is left -> write the order
--                 -> announce (market_events)
--
-- Matching is price-time priority against the token's book, at the resting order's price.
-- Fees (spec section 9): a share of value on each side (exchange_settings.fee_bps, 2%); the buyer
-- pays value + fee, the seller receives value - fee; both are the exchange's revenue, recorded on
-- the trade row and summed for reports (no hot 'fees' row).
--
-- Locking, always in this order, so there are no deadlocks:
--   1. the token row (one book at a time: two orders for one token never take the same liquidity),
--   2. the resting orders of that book, each as the match reaches it,
--   3. the cash accounts, then the holdings, of every account involved, in ascending user id.
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
  status text not null default 'open' check (status in ('open', 'filled', 'cancelled')),
  -- The order's time in the book: taken after the book's lock, so it follows every order before it.
  created_at timestamptz not null default now(),
  -- Fees are charged on each order's cumulative value: a fill pays fee(value filled so far) minus
  -- the fees the order already paid. So an order's fees come to the fee of its whole value, never
  -- a cent more than a resting buy reserved, however it is filled.
  filled_value numeric(14, 2) not null default 0 check (filled_value >= 0),
  fees_paid numeric(14, 2) not null default 0 check (fees_paid >= 0),
  -- When the order stopped being open (filled or cancelled): spoofing is about how fast (fraud.sql).
  closed_at timestamptz,
  check ((type = 'limit') = (price is not null))
);
create index orders_user_idx on public.orders (user_id, created_at desc);
-- The book, each side best first: rank is the price for asks and minus the price for bids, then
-- oldest first, then id (price-time priority). The match scans the other side in this order and
-- its price limit bounds the scan; the order book view reads the same index.
create index orders_book_rank_idx on public.orders
  (token_id, side, (case when side = 'buy' then -price else price end), created_at, id) where status = 'open';
-- A user's open orders newest first, all tokens or one: each list read in its index's order, so a
-- page stops at its end (list_open_orders).
create index orders_open_user_rank_idx on public.orders (user_id, created_at desc, id desc) where status = 'open';
create index orders_open_user_token_idx on public.orders (user_id, token_id, created_at desc, id desc) where status = 'open';
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
  buyer_fee numeric(14, 2) not null check (buyer_fee >= 0),
  seller_fee numeric(14, 2) not null check (seller_fee >= 0),
  created_at timestamptz not null default now(),
  fee_bps integer not null check (fee_bps between 0 and 1000),
  -- Who receives a sale's proceeds when it is not the seller: the person behind an offering.
  proceeds_to uuid references public.profiles (id),
  check (buyer_id <> seller_id)
);
create index trades_token_time_idx on public.trades (token_id, created_at desc, id desc);
create index trades_buyer_idx on public.trades (buyer_id, created_at desc);
create index trades_seller_idx on public.trades (seller_id, created_at desc);
create index trades_proceeds_idx on public.trades (proceeds_to, created_at desc) where proceeds_to is not null;
alter table public.trades enable row level security;
create policy "own trades" on public.trades
  for select to authenticated
  using (buyer_id = (select auth.uid()) or seller_id = (select auth.uid()) or proceeds_to = (select auth.uid())
         or (select private.is_admin()));
revoke all on public.trades from anon;
revoke insert, update, delete, truncate on public.trades from authenticated;

-- A public signal that a book or the tape changed: it names no account, so any signed-in user may
-- follow it. It is not announced by NOTIFY inside the trading transaction: on PostgreSQL every
-- notifying commit takes one global lock, which would serialize all trading. Readers follow it by
-- id instead (the local server's Realtime polls it; Supabase Realtime reads the publication).
create table public.market_events (
  id bigint generated always as identity primary key,
  token_id uuid not null references public.tokens (id) on delete cascade,
  kind text not null check (kind in ('trade', 'book')),
  created_at timestamptz not null default now()
);
create index market_events_time_idx on public.market_events (created_at);
alter table public.market_events enable row level security;
create policy "market events are visible to signed-in users" on public.market_events
  for select to authenticated using (true);
revoke all on public.market_events from anon;
revoke insert, update, delete, truncate on public.market_events from authenticated;

-- Places an order: the caller's, now, in one transaction. Returns what happened to it (filled,
-- resting, cancelled), its average price, value, fee and total.
create function public.place_order(
  p_token uuid, p_side text, p_type text, p_amount numeric, p_price numeric default null
) returns jsonb language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  uid uuid := auth.uid();
  settings public.exchange_settings := private.check_order_request(auth.uid(), p_side, p_type, p_amount, p_price);
  tok record;
  v_amount bigint;
  v_order bigint;
  budget numeric;
  matched record;
  spent numeric;
  rest_cost numeric := 0;
  final_status text;
  fee_sum numeric := 0;
  book_time timestamptz;
begin
  -- The book's lock: one order at a time per token.
  select id, name, total_supply, owner_id, halt_reason into tok from public.tokens where id = p_token for update;
  if not found then raise exception 'There is no such token.' using errcode = 'P0001'; end if;
  if tok.halt_reason is not null then
    raise exception 'Trading in % is halted: %. Cancelling open orders still works.', tok.name, rtrim(tok.halt_reason, '.')
      using errcode = 'P0001';
  end if;
  book_time := clock_timestamp(); -- the order's time in the book: after the book's lock, so it follows every order before it
  if p_amount > tok.total_supply then
    raise exception 'The amount cannot exceed the total supply of % tokens.', tok.total_supply using errcode = '22023';
  end if;
  v_amount := p_amount::bigint;
  budget := private.check_order_funds(uid, p_token, tok.name, p_side, p_type, v_amount, p_price, settings.fee_bps);

  -- The order's id, drawn now: its trades name it, and its row is written once it is settled.
  v_order := nextval(pg_get_serial_sequence('public.orders', 'id'));

  matched := private.match_order(uid, p_token, v_order, p_side, p_type, v_amount, p_price, budget, settings.fee_bps);
  if p_type = 'market' and jsonb_array_length(matched.fills) = 0 then
    if exists (select 1 from public.orders where token_id = p_token and status = 'open' and user_id <> uid
                 and side = case when p_side = 'buy' then 'sell' else 'buy' end) then
      raise exception 'Insufficient funds: you cannot afford one % token at the best price.', tok.name using errcode = 'P0001';
    end if;
    raise exception 'There are no % orders for % right now. Place a limit order to wait for a %.',
      case when p_side = 'buy' then 'sell' else 'buy' end, tok.name,
      case when p_side = 'buy' then 'seller' else 'buyer' end using errcode = 'P0001';
  end if;

  -- Every account involved, cash then holdings, in ascending user id (no deadlocks): the caller and
  -- the makers it met; the person behind an offering receives its proceeds, so their cash is locked too.
  perform 1 from public.cash_accounts
   where user_id = any(uid || matched.makers || case when tok.owner_id is not null
                                                      and private.issuance_account() = any(matched.makers)
                                                    then array[tok.owner_id] else '{}' end)
   order by user_id for update;
  perform 1 from public.holdings where token_id = p_token and user_id = any(uid || matched.makers)
   order by user_id for update;

  -- Own resting orders met while matching are expired (self-trade prevention).
  if cardinality(matched.expire) > 0 then
    perform private.release_order(x) from unnest(matched.expire) x;
  end if;

  -- What was read before the locks still holds.
  spent := matched.spent_value + private.fee(matched.spent_value, settings.fee_bps);
  if p_side = 'buy' then
    rest_cost := case when p_type = 'limit' and matched.remaining > 0
      then private.trade_value(p_price, matched.remaining) + private.fee(matched.spent_value + private.trade_value(p_price, matched.remaining), settings.fee_bps)
           - private.fee(matched.spent_value, settings.fee_bps) else 0 end;
    if (select available from public.cash_accounts where user_id = uid) < spent + rest_cost then
      raise exception 'Insufficient funds: your available cash changed while the order was placed. Please try again.' using errcode = 'P0001';
    end if;
  else
    -- An assignment rather than `perform`: no executor of its own. A sell's budget is 0, and unused.
    budget := private.check_order_funds(uid, p_token, tok.name, p_side, p_type, v_amount, p_price, settings.fee_bps);
  end if;

  if jsonb_array_length(matched.fills) > 0 then
    fee_sum := private.settle_fills(p_token, p_side, matched.fills, book_time, settings.fee_bps);
  end if;

  -- What is left of a limit order rests on the book, its cost or tokens held back.
  if p_type = 'limit' and matched.remaining > 0 then
    if p_side = 'buy' then
      update public.cash_accounts set available = available - rest_cost, reserved = reserved + rest_cost where user_id = uid;
    else
      update public.holdings set reserved = reserved + matched.remaining where user_id = uid and token_id = p_token;
    end if;
    final_status := 'open';
  else
    final_status := case when matched.remaining = 0 then 'filled' else 'cancelled' end;
  end if;
  insert into public.orders (id, user_id, token_id, side, type, price, amount, filled, filled_value, fees_paid,
                             reserved, status, created_at, closed_at)
  overriding system value
  values (v_order, uid, p_token, p_side, p_type, p_price, v_amount, v_amount - matched.remaining, matched.spent_value,
          fee_sum, rest_cost, final_status, book_time, case when final_status <> 'open' then clock_timestamp() end);

  insert into public.market_events (token_id, kind)
  values (p_token, case when matched.spent_value > 0 then 'trade' else 'book' end);

  return jsonb_build_object(
    'order_id', v_order,
    'status', final_status,
    'side', p_side,
    'type', p_type,
    'amount', v_amount,
    'filled', v_amount - matched.remaining,
    'resting', case when final_status = 'open' then matched.remaining else 0 end,
    'average_price', case when v_amount > matched.remaining then round(matched.spent_value / (v_amount - matched.remaining), 2) end,
    'value', matched.spent_value,
    'fee', fee_sum,
    'total', case when p_side = 'buy' then matched.spent_value + fee_sum else matched.spent_value - fee_sum end
  );
end $$;
revoke execute on function public.place_order(uuid, text, text, numeric, numeric) from public, anon;

-- The request's checks, before the book's lock: who is asking, what, and the exchange's limits.
-- Returns the settings row, read once for the whole order.
create function private.check_order_request(
  p_user uuid, p_side text, p_type text, p_amount numeric, p_price numeric
) returns public.exchange_settings language plpgsql stable security definer set search_path = ''
set plan_cache_mode = force_generic_plan as $$
declare
  settings public.exchange_settings;
  read record;
begin
  if p_user is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_second_step();
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
  if p_type = 'limit' and (select count(*) from public.orders where user_id = p_user and status = 'open') >= settings.max_open_orders then
    raise exception 'You have % open orders, the most allowed. Cancel one before placing another limit order.',
      settings.max_open_orders using errcode = 'P0001';
  end if;
  return settings;
end $$;
revoke execute on function private.check_order_request(uuid, text, text, numeric, numeric) from public;

-- What the caller can spend or sell now: for a sell, the tokens not held back; for a limit buy,
-- enough available cash for its value and fee. Returns the available cash (0 for a sell). Run
-- again after the accounts' locks, so what was read before them still holds.
create function private.check_order_funds(
  p_user uuid, p_token uuid, p_token_name text, p_side text, p_type text, p_amount bigint, p_price numeric, p_bps integer
) returns numeric language plpgsql stable security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  have numeric;
  budget numeric;
begin
  if p_side = 'sell' then
    select coalesce(max(available), 0) into have from public.holdings where user_id = p_user and token_id = p_token;
    if have < p_amount then
      raise exception 'You have % % tokens available to sell; this order needs %.', have, p_token_name, p_amount using errcode = 'P0001';
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
  ref numeric := case when p_type = 'market' then coalesce(
    (select s.price from private.token_stats s where s.token_id = p_token),
    (select t.issue_price from public.tokens t where t.id = p_token)) end;
  band numeric := case when p_type = 'market' then (select e.market_band_bps from public.exchange_settings e) / 10000.0 end;
  -- The worst rank the order accepts, as ranked on the other side: its limit price, or the band's edge.
  worst numeric := case when p_type = 'market' and p_side = 'buy' then floor(ref * (1 + band) * 100) / 100
                        when p_type = 'market' then -ceil(ref * (1 - band) * 100) / 100
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
      n := least(n, floor((p_budget - spent_value - private.fee(spent_value, p_bps)) / (maker.price * (1 + p_bps / 10000.0)))::bigint);
      while n > 0 and spent_value + private.trade_value(maker.price, n) + private.fee(spent_value + private.trade_value(maker.price, n), p_bps) > p_budget loop
        n := n - 1;
      end loop;
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
      rtrim(rtrim(to_char(band * 100, 'FM990.99'), '0'), '.') || '%', '$' || to_char(ref, 'FM999,999,990.00')
      using errcode = 'P0001';
  end if;
end $$;
revoke execute on function private.match_order(uuid, uuid, bigint, text, text, bigint, numeric, numeric, integer) from public;

-- Settles all of an order's fills in one statement: one insert into trades, one update of each
-- account's cash, one of the sellers' holdings, one upsert of the buyers', one update of each
-- resting order met. It is the one place money and tokens move in a trade. The taker's own order
-- is written by place_order after it; this returns the fees the taker paid over the fills.
create function private.settle_fills(
  p_token uuid, p_taker_side text, p_fills jsonb, p_at timestamptz default now(), p_bps integer default null
)
returns numeric language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  bps integer := coalesce(p_bps, private.fee_bps()); -- read once: the fees and their record agree
  taker_fees numeric;
  sellers integer;
  sellers_found integer;
begin
  if exists (select 1 from jsonb_to_recordset(p_fills) b(buyer uuid) join jsonb_to_recordset(p_fills) s(seller uuid) on b.buyer = s.seller) then
    raise exception 'An account cannot trade with itself.' using errcode = 'P0001';
  end if;
  with fill as (
    select f.*, private.trade_value(f.price, f.amount) as value,
           case when f.seller = private.issuance_account() then coalesce(t.owner_id, f.seller) else f.seller end as payee
    from private.fill_rows(p_fills) as f
    cross join (select owner_id from public.tokens where id = p_token) t
  ),
  priced as (
    select fill.*,
      private.fill_fee(coalesce(bo.filled_value, 0), coalesce(bo.fees_paid, 0),
        coalesce(sum(fill.value) over (partition by coalesce(fill.buy_order, -fill.seq) order by fill.seq
                                       rows between unbounded preceding and 1 preceding), 0), fill.value, bps) as buyer_fee,
      private.fill_fee(coalesce(so.filled_value, 0), coalesce(so.fees_paid, 0),
        coalesce(sum(fill.value) over (partition by coalesce(fill.sell_order, -fill.seq) order by fill.seq
                                       rows between unbounded preceding and 1 preceding), 0), fill.value, bps) as seller_fee
    from fill
    left join public.orders bo on bo.id = fill.buy_order
    left join public.orders so on so.id = fill.sell_order
  ),
  moved as (
    select priced.*,
           case when buyer_reserved = 0 then 0
                when buyer_completes then buyer_reserved
                else least(buyer_reserved, value + buyer_fee) end as release
    from priced
  ),
  trade as (
    insert into public.trades (token_id, buy_order_id, sell_order_id, buyer_id, seller_id, price, amount, taker_side,
                               buyer_fee, seller_fee, created_at, proceeds_to, fee_bps)
    select p_token, buy_order, sell_order, buyer, seller, price, amount, p_taker_side,
           buyer_fee, seller_fee, p_at, nullif(payee, seller), bps
    from moved order by seq
  ),
  cash as (
    update public.cash_accounts c
       set available = c.available + m.available, reserved = c.reserved + m.reserved
      from (select user_id, sum(available) as available, sum(reserved) as reserved from (
              select buyer as user_id, release - value - buyer_fee as available, -release as reserved from moved
              union all
              select payee, value - seller_fee, 0 from moved) x
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
revoke execute on function private.settle_fills(uuid, text, jsonb, timestamp with time zone, integer) from public;

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

-- What fill `value` of an order costs in fees, the order having filled `base_value` and paid
-- `base_paid` before this statement, and `before` of value in earlier fills of the same statement.
-- Fees are charged on the order's cumulative value (one rounding per order), never below what is
-- paid already (should the fee setting fall while an order is partly filled).
create function private.fill_fee(base_value numeric, base_paid numeric, before numeric, value numeric, bps integer)
returns numeric language sql immutable as $$
  select greatest(base_paid, private.fee(base_value + before + value, bps))
       - case when before = 0 then base_paid else greatest(base_paid, private.fee(base_value + before, bps)) end
$$;
revoke execute on function private.fill_fee(numeric, numeric, numeric, numeric, integer) from public;

-- Cancels an open order and releases what it held back. The caller holds the book's lock.
create function private.release_order(p_order bigint) returns void
language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  o public.orders;
begin
  select * into o from public.orders where id = p_order for update;
  if o.status <> 'open' then return; end if;
  if o.side = 'buy' then
    update public.cash_accounts set reserved = reserved - o.reserved, available = available + o.reserved where user_id = o.user_id;
  else
    update public.holdings set reserved = reserved - (o.amount - o.filled) where user_id = o.user_id and token_id = o.token_id;
  end if;
  update public.orders set status = 'cancelled', reserved = 0 where id = p_order;
end $$;
revoke execute on function private.release_order(bigint) from public;

-- The time an order stops being open, whoever closes it.
create function private.stamp_closed() returns trigger
language plpgsql as $$
begin
  if new.status <> 'open' and old.status = 'open' then new.closed_at := clock_timestamp(); end if;
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
begin
  if uid is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_second_step();
  select * into o from public.orders where id = p_order and user_id = uid;
  if not found then raise exception 'You have no order #%.', p_order using errcode = 'P0001'; end if;
  perform 1 from public.tokens where id = o.token_id for update; -- the book's lock first
  select * into o from public.orders where id = p_order for update;
  if o.status <> 'open' then raise exception 'Order #% is already %.', p_order, o.status using errcode = 'P0001'; end if;
  perform private.release_order(p_order);
  insert into public.market_events (token_id, kind) values (o.token_id, 'book');
  return jsonb_build_object('order_id', p_order, 'status', 'cancelled', 'released_tokens',
    case when o.side = 'sell' then o.amount - o.filled else 0 end, 'released_cash', o.reserved);
end $$;
revoke execute on function public.cancel_order(bigint) from public, anon;

-- Cancels all of the caller's open orders, or those in one token: every book's lock first, in
-- token order, as the engine takes them.
create function public.cancel_all_orders(p_token uuid default null) returns integer
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := auth.uid();
  books uuid[];
  o bigint;
  n integer := 0;
begin
  if uid is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_second_step();
  select coalesce(array_agg(distinct token_id order by token_id), '{}') into books
  from public.orders where user_id = uid and status = 'open' and (p_token is null or token_id = p_token);
  perform 1 from public.tokens where id = any (books) order by id for update;
  for o in
    select id from public.orders
    where user_id = uid and status = 'open' and token_id = any (books)
    order by id for update
  loop
    perform private.release_order(o);
    n := n + 1;
  end loop;
  insert into public.market_events (token_id, kind) select b, 'book' from unnest(books) b;
  return n;
end $$;
revoke execute on function public.cancel_all_orders(uuid) from public, anon;

-- Edits a resting order: cancels it and places its new terms, in one transaction. A refused new
-- order (cash, a halt, bad input) leaves the old one as it was; the new one takes the book's time
-- of now and trades at once if it crosses, as replaced orders do on most exchanges. `p_filled` is
-- what the owner saw filled: if a taker met the order meanwhile, nothing is changed (PostgREST's
-- 409), so an edit never puts back what was taken.
create function public.replace_order(p_order bigint, p_amount numeric, p_price numeric, p_filled bigint default null)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  o public.orders;
  filled_now bigint;
begin
  select * into o from public.orders where id = p_order and user_id = auth.uid();
  if o.status = 'open' and p_amount = o.amount - o.filled and p_price = o.price then
    raise exception 'Order #% already rests at that price and amount.', p_order using errcode = 'P0001';
  end if;
  -- It refuses a caller signed out, an order not theirs, one no longer open.
  perform public.cancel_order(p_order);
  select filled into filled_now from public.orders where id = p_order;
  if p_filled is not null and filled_now is distinct from p_filled then
    raise exception 'Order #% traded while you were changing it: % of % tokens are filled now, % left. Nothing was changed.',
      p_order, filled_now, o.amount, o.amount - filled_now using errcode = 'PT409';
  end if;
  return public.place_order(o.token_id, o.side, 'limit', p_amount, p_price) || jsonb_build_object('replaced', p_order);
end $$;
revoke execute on function public.replace_order(bigint, numeric, numeric, bigint) from public, anon;

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
    where user_id = (select auth.uid()) and status = 'open'
    order by created_at desc, id desc
    limit least(greatest(coalesce(p_limit, 100), 1), 500) offset greatest(coalesce(p_offset, 0), 0);
  else
    return query
    select * from public.orders
    where user_id = (select auth.uid()) and status = 'open' and token_id = p_token
    order by created_at desc, id desc
    limit least(greatest(coalesce(p_limit, 100), 1), 500) offset greatest(coalesce(p_offset, 0), 0);
  end if;
end $$;
revoke execute on function public.list_open_orders(uuid, integer, integer) from public, anon;

-- Puts a limit order on the book without matching it, reserving what it may spend: cash
-- (value + fee) for a buy, tokens for a sell. Used by the seed and to list a token's offering.
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

-- An admin halts trading in one token, with a reason, as exchanges halt one symbol: while a fraud
-- alert on it is reviewed, or news is pending. New orders on it are refused with the reason (the
-- book's lock is taken first, so an order that arrives during the halt never trades); its resting
-- orders stay on the book and may be cancelled; the rest of the market trades on. Resuming lifts
-- it. Both are audited, mailed to the token's person, and announced on the token's market events,
-- so open trading screens follow at once.
create function public.admin_set_token_halt(p_token uuid, p_halted boolean, p_reason text default null)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  admin uuid := private.require_admin();
  tok public.tokens;
  reason text := nullif(btrim(p_reason), '');
begin
  if p_halted is null then perform private.refuse('Say whether trading in the token is halted.'); end if;
  select * into tok from public.tokens where id = p_token for update; -- the book's lock: no order is half through
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
  insert into public.market_events (token_id, kind) values (p_token, 'book');
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

-- The signed-in account's trades, from its own side: a buy costs value + fee, a sell yields value - fee.
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
  tr.created_at
from public.trades tr
join public.tokens t on t.id = tr.token_id
where tr.buyer_id = auth.uid() or tr.seller_id = auth.uid();
revoke all on public.my_trades from anon;
revoke insert, update, delete, truncate on public.my_trades from authenticated;

-- Money and payouts: cash, deposits and withdrawals through a payment provider, bank accounts,
-- and every cash movement in one history.
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
revoke execute on function public.create_deposit(numeric, text, text) from public, anon;

-- Money out, to one of the caller's saved accounts past its hold, after a recent sign-in (with an
-- authenticator app on, a fresh code from it), outside the day after a credential change, within
-- the daily limit. The account is checked before the recent sign-in, so no password is asked for a
-- withdrawal that would be refused anyway. The owner is mailed each withdrawal.
create function public.create_withdrawal(p_amount numeric, p_destination uuid, p_idempotency_key text) returns jsonb
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
revoke execute on function public.create_withdrawal(numeric, uuid, text) from public, anon;

-- Gives back the funds of one's own withdrawal that the provider has not taken up yet.
create function public.cancel_withdrawal(p_id bigint) returns jsonb
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
  if p_amount is null or p_amount = 'NaN' or p_amount <= 0 then perform private.refuse(format('Enter a %s amount above $0.00.', what)); end if;
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
revoke execute on function public.add_payout_destination(text, text) from public, anon;

create function public.remove_payout_destination(p_id uuid) returns void
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.active_caller();
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

-- Every movement of the caller's cash, with its effect on the balance (available + reserved):
-- deposits when completed, withdrawals from the moment they are held (until failed or cancelled),
-- each trade's value and each fee, and an offering's proceeds for the token's person. The running
-- balance is the sum of the effects so far, so the last one (the highest `position`) equals the balance.
create view public.wallet_history with (security_invoker = true) as
with moves as (
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
         format('On the %s of %s %s', m.type, m.amount, m.name), -m.fee, -m.fee, 'Completed', null, null, m.id
  from public.my_trades m
  where m.fee > 0
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
)
select id, type, description, amount, effect, status, message, wallet_id, trade_id, created_at,
       sum(effect) over running as balance,
       row_number() over running as position
from moves
window running as (order by created_at, type = 'Trade Fee', seq, id rows unbounded preceding);
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
  slides_at timestamptz
);
-- (sort column, token) serves both directions of each sort, ties broken by token id.
create index token_stats_market_cap_idx on private.token_stats (market_cap, token_id);
create index token_stats_price_idx on private.token_stats (price, token_id);
create index token_stats_change_idx on private.token_stats (change_24h, token_id);
create index token_stats_volume_idx on private.token_stats (volume_24h, token_id);
create index token_stats_holders_idx on private.token_stats (holders, token_id);
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
  select t.total_supply, t.issue_price into tok from public.tokens t where t.id = p_token;
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
                                        last_trade_at, last_trade_id, day_ago_price, first_price, slides_at)
  values (p_token, price, round(price * tok.total_supply, 2),
          private.change_pct(price, coalesce(day_ago, first, tok.issue_price)), volume, held,
          last_trade.created_at, last_trade.id, day_ago, first, oldest + interval '24 hours')
  on conflict (token_id) do update set
    price = excluded.price, market_cap = excluded.market_cap, change_24h = excluded.change_24h,
    volume_24h = excluded.volume_24h, last_trade_at = excluded.last_trade_at,
    last_trade_id = excluded.last_trade_id, day_ago_price = excluded.day_ago_price,
    first_price = excluded.first_price, slides_at = excluded.slides_at;
end $$;
revoke execute on function private.refresh_token_stats(uuid) from public;

-- A token's figures move once per settlement: a statement trigger sees the statement's trades
-- together (settle_fills inserts an order's trades in one statement) and updates each token's row
-- once, not once per trade under the book's lock. The newest trade sets the price and the change,
-- the volume grows by the trades' sum, and the oldest sets the first price and when the volume
-- starts to slide, if they were not set. Trades older than the token's last trade or than 24 hours
-- (a back-dated insert) recompute the token's figures from its trades instead.
create function private.stats_on_trades() returns trigger
language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  batch record;
  oldest public.trades;
  newest public.trades;
begin
  for batch in
    select n.token_id, sum(n.value) as value, array_agg(n order by n.created_at, n.id) as trades
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

-- Recomputes the tokens a trade has just left the 24h window of, a batch at a time. Each token's
-- row lock is taken first, as the engine takes it, so a trade cannot slip between read and write.
create function private.slide_token_stats() returns integer
language plpgsql security definer set search_path = '' as $$
declare
  tid uuid;
  n integer := 0;
begin
  for tid in select token_id from private.token_stats where slides_at <= now() order by slides_at limit 500 loop
    perform 1 from public.tokens where id = tid for update;
    perform private.refresh_token_stats(tid);
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
-- (tokens.sql); `halted` tells a trader before they open one.
create view public.market_tokens as
select
  t.id,
  t.owner_id,
  t.name,
  t.username,
  t.category,
  t.reputation_score,
  t.avatar_url,
  t.verified,
  t.total_supply,
  s.price,
  s.change_24h,
  s.volume_24h,
  s.market_cap,
  s.holders,
  t.total_supply - (select coalesce(sum(h.amount), 0) from public.holdings h
                    where h.token_id = t.id and h.user_id <> private.issuance_account()) as available_supply,
  t.search_text,
  t.halt_reason is not null as halted
from public.tokens t
join private.token_stats s on s.token_id = t.id;
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

-- The fold over one account's trades up to `p_at`: per token, what is still held by trades, its
-- cost, and what was realized.
create function private.cost_basis(p_user uuid, p_at timestamptz)
returns table (token_id uuid, tokens bigint, cost numeric, realized numeric)
language plpgsql stable security definer set search_path = '' as $$
declare
  t record;
  pos jsonb := '{}';
  p jsonb;
  held bigint;
  c numeric;
  r numeric;
  sold bigint;
  released numeric;
begin
  for t in
    select tr.token_id, tr.amount, tr.value, tr.buyer_fee, tr.seller_fee, tr.buyer_id = p_user as bought
    from public.trades tr
    where (tr.buyer_id = p_user or tr.seller_id = p_user) and tr.created_at <= p_at
      and tr.token_id is distinct from (select k.id from public.tokens k where k.owner_id = p_user)
    order by tr.created_at, tr.id
  loop
    p := coalesce(pos -> t.token_id::text, '{"tokens": 0, "cost": 0, "realized": 0}');
    held := (p ->> 'tokens')::bigint;
    c := (p ->> 'cost')::numeric;
    r := (p ->> 'realized')::numeric;
    if t.bought then
      held := held + t.amount;
      c := c + t.value + t.buyer_fee;
    elsif held > 0 then
      sold := least(t.amount, held);
      released := c / held * sold;
      r := r + (t.value - t.seller_fee) * sold / t.amount - released;
      c := c - released;
      held := held - sold;
    end if;
    pos := pos || jsonb_build_object(t.token_id::text, jsonb_build_object('tokens', held, 'cost', c, 'realized', r));
  end loop;
  return query select k::uuid, (v ->> 'tokens')::bigint, (v ->> 'cost')::numeric, (v ->> 'realized')::numeric from jsonb_each(pos) e(k, v);
end $$;
revoke execute on function private.cost_basis(uuid, timestamp with time zone) from public;

-- A token's last price at `p_at` (its issue price before its first trade).
create function private.price_at(p_token uuid, p_at timestamptz) returns numeric
language plpgsql stable security definer set search_path = '' as $$
begin
  return coalesce(
    (select tr.price from public.trades tr where tr.token_id = p_token and tr.created_at <= p_at order by tr.created_at desc, tr.id desc limit 1),
    (select k.issue_price from public.tokens k where k.id = p_token));
end $$;
revoke execute on function private.price_at(uuid, timestamp with time zone) from public;

-- Reputation: a token's score out of 100, recomputed hourly from what the database knows of it,
-- with a point per month for the profile's history chart, and a person's achievements.
--
-- The score's parts (reputation_components), each capped so that no one part buys the score:
--   verified 15, holders up to 20 and 30-day volume up to 20 (both on a log scale), price
--   stability over 7 days up to 20, age of the person's account up to 15 (a year for all of it),
--   and 10 less 5 for each open or reviewed fraud alert naming the token's person.

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

-- A token's score and its parts, with the facts they come from (the profile shows them).
create function public.reputation_components(p_token uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
begin
  return (
  with t as (select k.*, p.created_at as person_since from public.tokens k left join public.profiles p on p.id = k.owner_id where k.id = p_token),
  facts as (
    select t.verified,
           (select count(*) from public.holdings h where h.token_id = t.id and h.amount > 0 and h.user_id <> private.issuance_account()) as holders,
           (select coalesce(sum(tr.value), 0) from public.trades tr where tr.token_id = t.id and tr.created_at > now() - interval '30 days') as volume,
           (select case when count(*) < 2 or avg(tr.price) = 0 then null else stddev_samp(tr.price) / avg(tr.price) end
              from public.trades tr where tr.token_id = t.id and tr.created_at > now() - interval '7 days') as variation,
           extract(epoch from now() - coalesce(t.person_since, t.created_at)) / 86400 as age_days,
           (select count(*) from public.fraud_alerts a where t.owner_id = any (a.accounts) and a.status in ('open', 'reviewing')) as alerts
    from t
  ),
  parts as (
    select holders, volume, variation, age_days, alerts,
           case when verified then 15 else 0 end::numeric as verified_points,
           least(20, 20 * ln(1 + holders::numeric) / ln(1001::numeric)) as holder_points,
           least(20, 20 * ln(1 + volume::numeric) / ln(1000001::numeric)) as volume_points,
           case when variation is null then 10 else greatest(0, least(20, 20 * (1 - 5 * variation))) end as stability_points,
           least(15, greatest(0, 15 * age_days / 365)) as age_points,
           greatest(0, 10 - 5 * alerts)::numeric as alert_points
    from facts
  )
  select jsonb_build_object(
    'verified', round(verified_points, 2), 'holders', round(holder_points, 2), 'volume', round(volume_points, 2),
    'stability', round(stability_points, 2), 'age', round(age_points, 2), 'alerts', round(alert_points, 2),
    'score', round(least(100, greatest(0, verified_points + holder_points + volume_points + stability_points + age_points + alert_points)), 2),
    'facts', jsonb_build_object('holders', holders, 'volume_30d', volume, 'price_variation_7d', round(variation, 4),
                                'account_age_days', floor(age_days), 'open_alerts', alerts))
  from parts);
end $$;
revoke execute on function public.reputation_components(uuid) from public, anon;

create function private.refresh_reputation() returns integer
language plpgsql security definer set search_path = '' as $$
declare
  changed integer;
begin
  with scores as (select k.id, (public.reputation_components(k.id) ->> 'score')::numeric as score from public.tokens k),
  updated as (
    update public.tokens k set reputation_score = s.score from scores s
     where s.id = k.id and k.reputation_score is distinct from s.score
    returning k.id
  )
  select count(*) into changed from updated;
  insert into public.reputation_history (token_id, month, score)
  select k.id, date_trunc('month', now())::date, k.reputation_score from public.tokens k
  on conflict (token_id, month) do update set score = excluded.score;
  return changed;
end $$;
revoke execute on function private.refresh_reputation() from public;

-- Fraud detection: rules in SQL over real orders and trades, run on a schedule (the local server
-- every FRAUD_SCAN_MS; on a hosted project, pg_cron: select cron.schedule('fraud-scan', '* * * * *',
-- 'select private.scan_fraud()')) and on demand by an admin. Each alert names its rule, severity,
-- accounts and evidence (the orders and trades), and moves open -> reviewing -> dismissed or
-- confirmed; confirming may suspend the accounts. A pattern that goes on updates its open alert
-- instead of raising another; a reviewed pattern is raised again only with evidence its review did
-- not see, so an admin can put a false positive away.

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
    where o.created_at > since and o.status = 'cancelled' and o.filled = 0 and o.type = 'limit'
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
    from public.orders o where o.created_at > since
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
-- profile's trigger (accounts.sql). Token applications are decided in tokens.sql, fraud alerts in
-- fraud.sql, and a token's trading halt in trading.sql.

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

-- The account an admin may act on: not their own, not the system's.
create function private.managed_account(p_user uuid) returns public.profiles
language plpgsql security definer set search_path = '' as $$
declare
  target public.profiles;
begin
  select * into target from public.profiles where id = p_user for update;
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
  if char_length(trim(coalesce(p_reason, ''))) not between 3 and 500 then
    perform private.refuse('Give a reason of 3 to 500 characters for signing the account out.');
  end if;
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
  if char_length(trim(coalesce(p_reason, ''))) not between 3 and 500 then
    perform private.refuse('Give a reason of 3 to 500 characters for removing the authenticator app.');
  end if;
  target := private.managed_account(p_user);
  if not exists (select from auth.mfa_factors where user_id = p_user and status = 'verified') then
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
    'revenue_24h', (select coalesce(sum(buyer_fee + seller_fee), 0) from public.trades where created_at > now() - interval '24 hours'),
    'trades_24h', (select count(*) from public.trades where created_at > now() - interval '24 hours'),
    'pending_applications', (select count(*) from public.token_applications where status = 'pending')
  );
end $$;
revoke execute on function public.admin_dashboard_stats() from public, anon;

-- Revenue Reports: the exchange's fee revenue (both sides of every trade) by day, by week or by
-- token, over the last `p_days` days (null: since the first trade). The revenue column sums to the
-- trade fees of the period to the cent, so an export reconciles with the ledger.
create function public.admin_revenue(p_group text default 'day', p_days integer default 30)
returns table (bucket text, starts timestamptz, trades bigint, volume numeric, revenue numeric)
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
      select k.name || ' (@' || k.username || ')', min(t.created_at), count(*), sum(t.value), sum(t.buyer_fee + t.seller_fee)
      from public.trades t join public.tokens k on k.id = t.token_id
      where t.created_at >= since
      group by k.id, k.name, k.username
      order by sum(t.buyer_fee + t.seller_fee) desc, k.name;
  else
    return query
      select to_char(b, case p_group when 'day' then 'YYYY-MM-DD' else 'IYYY-"W"IW' end), b,
             count(t.id), coalesce(sum(t.value), 0), coalesce(sum(t.buyer_fee + t.seller_fee), 0)
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
  editable constant text[] := array['fee_bps', 'min_order_amount', 'max_price', 'max_open_orders', 'trading_halted', 'halt_reason',
    'deposit_min', 'deposit_max', 'withdrawal_min', 'withdrawal_daily_limit', 'token_supply', 'token_founder_bps', 'token_issue_price',
    'new_bank_account_hold_hours', 'market_band_bps'];
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
     or after.new_bank_account_hold_hours is null or after.market_band_bps is null then
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
  if after.market_band_bps <> trunc(after.market_band_bps) or after.market_band_bps not between 100 and 5000 then
    perform private.refuse('The market order band must be between 100 and 5,000 basis points (1% to 50%).');
  end if;
  begin
    update public.exchange_settings set
      fee_bps = after.fee_bps, min_order_amount = after.min_order_amount, max_price = after.max_price, max_open_orders = after.max_open_orders,
      trading_halted = after.trading_halted, halt_reason = nullif(trim(after.halt_reason), ''),
      deposit_min = after.deposit_min, deposit_max = after.deposit_max, withdrawal_min = after.withdrawal_min,
      withdrawal_daily_limit = after.withdrawal_daily_limit, token_supply = after.token_supply,
      token_founder_bps = after.token_founder_bps, token_issue_price = after.token_issue_price,
      new_bank_account_hold_hours = after.new_bank_account_hold_hours, market_band_bps = after.market_band_bps,
      updated_at = now()
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

-- Whether the caller has an app turned on and their session has not entered its code.
create function private.second_step_due() returns boolean
language plpgsql stable security definer set search_path = '' as $$
begin
  return coalesce(auth.jwt() ->> 'aal', 'aal1') <> 'aal2'
     and exists (select from auth.mfa_factors f where f.user_id = auth.uid() and f.status = 'verified');
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
  uid uuid := private.active_caller();
begin
  delete from auth.sessions where id = p_session and user_id = uid;
  if not found then perform private.refuse('That session has already ended.'); end if;
end $$;
revoke execute on function public.end_my_session(uuid) from public, anon;

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
  events integer;
  sessions integer;
  tokens integer;
  mail integer;
  browsers integer;
  unconfirmed integer := 0;
  stale uuid;
begin
  delete from public.market_events where created_at < now() - interval '1 hour';
  get diagnostics events = row_count;
  delete from auth.sessions where coalesce(refreshed_at, created_at) < now() - interval '30 days';
  get diagnostics sessions = row_count;
  delete from auth.refresh_tokens where revoked and updated_at < now() - interval '1 day';
  get diagnostics tokens = row_count;
  delete from private.account_mail where sent_at < now() - interval '7 days';
  get diagnostics mail = row_count;
  delete from private.known_browsers where last_seen < now() - interval '1 year';
  get diagnostics browsers = row_count;
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
  return jsonb_build_object('market_events', events, 'sessions', sessions, 'refresh_tokens', tokens,
    'account_mail', mail, 'known_browsers', browsers, 'unconfirmed_sign_ups', unconfirmed);
end $$;
revoke execute on function private.prune() from public;

-- Realtime: which changes reach open screens at once.
--
-- Tables that change now and then announce each change by NOTIFY (the local server's Realtime
-- relays it, after checking row-level security for each subscriber) and join Supabase Realtime's
-- publication on a hosted project. The market's busy signal, public.market_events (trading.sql),
-- is published but never notified: readers follow it by id.

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

select private.publish_realtime('public.market_events');

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
-- folder of the avatars bucket (`<id>/<file>`, as the profile's Edit dialog uploads it). The URL's
-- host is the storage server's public address, which the database cannot know: the shell's
-- Content-Security-Policy lets images come only from there. Only an image that changes is checked,
-- so an older value does not block other edits.
create function private.check_profile_images() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  changed text[] := array[]::text[];
  url text;
  object_name text;
begin
  if tg_op = 'INSERT' or new.avatar_url is distinct from old.avatar_url then
    changed := changed || new.avatar_url;
  end if;
  if tg_op = 'INSERT' or new.cover_url is distinct from old.cover_url then
    changed := changed || new.cover_url;
  end if;
  foreach url in array changed loop
    continue when url is null;
    object_name := substring(url from '^https?://[^/?#@]+/storage/v1/object/public/avatars/([0-9a-f-]{36}/[A-Za-z0-9._-]+)$');
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
