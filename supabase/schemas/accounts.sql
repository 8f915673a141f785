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
