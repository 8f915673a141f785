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
  -- What the market's search matches (market.sql, which copies it beside the token's figures and
  -- indexes it there): one lower-cased column, so one trigram index answers a search of any of the three.
  search_text text generated always as (lower(name || E'\n' || username || E'\n' || category)) stored,
  -- An admin halts trading in one token, with a reason traders read (admin_set_token_halt).
  halt_reason text check (char_length(halt_reason) between 3 and 200),
  halted_at timestamptz,
  -- While the token is in a volatility auction (auctions.sql): when its call period ends. Null in
  -- continuous trading. Kept on the token's row, which every order locks and reads already.
  auction_until timestamptz,
  constraint tokens_halt_whole check ((halt_reason is null) = (halted_at is null))
);
comment on column public.tokens.search_text is
  'The name, username and category, lower-cased and joined by line breaks: what the market''s search matches (like ''%term%'').';
create index tokens_category_idx on public.tokens (category);
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
  with due as (
    select h.user_id, h.token_id, h.locked as was, g.total - private.vested(g, now()) as locked, g.total
      from public.holdings h join public.vesting_grants g on h.token_id = g.token_id and h.user_id = g.user_id
     where h.locked > g.total - private.vested(g, now())
       for update of h
  ),
  released as (
    update public.holdings h set locked = d.locked from due d
     where h.user_id = d.user_id and h.token_id = d.token_id
    returning h.user_id
  ),
  -- Tokens vest by the minute; their owner hears of the cliff and of the end.
  told as (
    select private.notify(d.user_id, 'vesting', 'Founder tokens vested',
             format(case when d.locked = 0 then 'All %2$s of yours have vested: every one is yours to sell.'
                         else '%1$s of your %2$s have vested at the cliff; the rest vest day by day.' end,
                    to_char(d.total - d.locked, 'FM999,999,999,990'), private.tokens_of(d.total, t.name)),
             '/trading/' || d.token_id)
      from due d join public.tokens t on t.id = d.token_id
     where d.was = d.total or d.locked = 0
  )
  select (select count(*) from released) + 0 * (select count(*) from told) into n;
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
