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
  -- Volatility auctions (auctions.sql): how far from its reference price (the last trade at least
  -- five minutes old, or the last auction's price) a token may trade before continuous trading
  -- stops for an auction (2000 = 20%, beyond a normal day's move in five minutes), and how long the
  -- auction collects orders.
  volatility_band_bps integer not null default 2000 check (volatility_band_bps between 100 and 5000),
  volatility_auction_seconds integer not null default 300 check (volatility_auction_seconds between 5 and 3600),
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
grant execute on function private.tokens_of(numeric, text) to authenticated;

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

-- pg_cron's call for a job done one piece at a time (supabase/cron.sql): runs `p_step`, a function
-- that does one piece in the caller's transaction and says whether there was one, until it says
-- no or `p_most` pieces are done, committing after each, so that a piece holds its locks only
-- while it runs. The one home of that loop (the local server drains the same steps itself:
-- server/schedule.ts). A procedure that commits can have neither SECURITY DEFINER nor a
-- search_path of its own; the step is a catalog reference, never text run as it is.
create procedure private.drain(p_step regproc, p_most integer)
language plpgsql as $$
declare
  more boolean;
begin
  for i in 1..p_most loop
    execute format('select %s()', p_step) into more;
    exit when not more;
    commit;
  end loop;
end $$;
revoke execute on procedure private.drain(regproc, integer) from public;
