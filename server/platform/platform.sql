-- What a Supabase project provides before any migration runs: the API roles, the auth schema
-- that GoTrue owns, and the auth.* helpers that read PostgREST's request settings.
-- This is the local server's stand-in for the platform; it is NOT a project migration and is
-- never applied to a hosted project. Idempotent: it runs at every start.

create schema if not exists extensions;
create extension if not exists pgcrypto with schema extensions;

do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'anon') then create role anon nologin noinherit; end if;
  if not exists (select 1 from pg_roles where rolname = 'authenticated') then create role authenticated nologin noinherit; end if;
  if not exists (select 1 from pg_roles where rolname = 'service_role') then create role service_role nologin noinherit bypassrls; end if;
end $$;

-- The server's own login switches into the API roles per request (SET LOCAL ROLE).
grant anon, authenticated, service_role to current_user;

grant usage on schema public, extensions to anon, authenticated, service_role;
alter default privileges in schema public grant all on tables to anon, authenticated, service_role;
alter default privileges in schema public grant all on sequences to anon, authenticated, service_role;
alter default privileges in schema public grant execute on functions to anon, authenticated, service_role;

create schema if not exists auth;
grant usage on schema auth to anon, authenticated, service_role;

create table if not exists auth.users (
  id uuid primary key default gen_random_uuid(),
  aud text not null default 'authenticated',
  role text not null default 'authenticated',
  email text unique,
  encrypted_password text,
  email_confirmed_at timestamptz,
  last_sign_in_at timestamptz,
  raw_app_meta_data jsonb not null default '{"provider":"email","providers":["email"]}',
  raw_user_meta_data jsonb not null default '{}',
  banned_until timestamptz,
  is_anonymous boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table if not exists auth.sessions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  created_at timestamptz not null default now(),
  refreshed_at timestamptz
);

-- How the session's user proved who they are (GoTrue keeps it in auth.mfa_amr_claims): the amr
-- of its access tokens, with the session's start as the time.
alter table auth.sessions add column if not exists authentication_method text not null default 'password';
-- 'otp' is a sign-up's mailed confirmation code (GoTrue's amr method for it); a database made
-- before it allows the other two only.
do $$
begin
  if not exists (select from pg_constraint where conrelid = 'auth.sessions'::regclass
                 and conname = 'sessions_authentication_method_check'
                 and pg_get_constraintdef(oid) like '%otp%') then
    alter table auth.sessions drop constraint if exists sessions_authentication_method_check;
    alter table auth.sessions add constraint sessions_authentication_method_check
      check (authentication_method in ('password', 'recovery', 'otp'));
  end if;
end $$;
-- The browser and address a session started from (GoTrue's columns), which its user sees.
alter table auth.sessions add column if not exists user_agent text;
alter table auth.sessions add column if not exists ip inet;
create index if not exists sessions_user_id_idx on auth.sessions (user_id);

-- Two-step verification, in GoTrue's tables: a user's authenticator app (a TOTP factor, verified
-- once its first code is entered), the challenges a code answers, the session's assurance level
-- (aal2 once a code was entered in it) and when it was raised (its amr's totp entry).
-- last_totp_step is ours: a code once accepted is refused after, even in a new challenge.
create table if not exists auth.mfa_factors (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  friendly_name text,
  factor_type text not null default 'totp' check (factor_type = 'totp'),
  status text not null default 'unverified' check (status in ('unverified', 'verified')),
  secret text not null,
  last_totp_step bigint,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index if not exists mfa_factors_user_id_idx on auth.mfa_factors (user_id);
-- A user's apps are told apart by name when signing in (GoTrue's index of the same name).
create unique index if not exists mfa_factors_user_friendly_name_unique on auth.mfa_factors (friendly_name, user_id)
  where trim(friendly_name) <> '';
create table if not exists auth.mfa_challenges (
  id uuid primary key default gen_random_uuid(),
  factor_id uuid not null references auth.mfa_factors (id) on delete cascade,
  created_at timestamptz not null default now(),
  verified_at timestamptz,
  ip_address inet
);
create index if not exists mfa_challenges_factor_id_idx on auth.mfa_challenges (factor_id);
alter table auth.sessions add column if not exists aal text not null default 'aal1' check (aal in ('aal1', 'aal2'));
alter table auth.sessions add column if not exists factor_id uuid references auth.mfa_factors (id) on delete set null;
alter table auth.sessions add column if not exists mfa_verified_at timestamptz;

create table if not exists auth.refresh_tokens (
  id bigint generated always as identity primary key,
  token text not null unique,
  user_id uuid not null references auth.users (id) on delete cascade,
  session_id uuid not null references auth.sessions (id) on delete cascade,
  parent text,
  revoked boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index if not exists refresh_tokens_session_idx on auth.refresh_tokens (session_id);

-- A new email waiting for the code mailed to it (GoTrue's columns).
alter table auth.users add column if not exists email_change text;
alter table auth.users add column if not exists email_change_sent_at timestamptz;

-- Mailed codes (a sign-up's confirmation, password recovery, a new email), as GoTrue's
-- one_time_tokens keeps them: one live code per user and kind, only its hash stored, with the wrong
-- tries counted so that a code is spent after a few.
create table if not exists auth.one_time_tokens (
  user_id uuid not null references auth.users (id) on delete cascade,
  token_type text not null constraint one_time_tokens_token_type_check
    check (token_type in ('confirmation_token', 'recovery_token', 'email_change_token_new')),
  token_hash text not null,
  relates_to text not null,
  attempts integer not null default 0,
  created_at timestamptz not null default now(),
  primary key (user_id, token_type)
);
create index if not exists one_time_tokens_relates_to_idx on auth.one_time_tokens (relates_to);
-- A database made before sign-up confirmation codes: its check allows fewer kinds.
do $$
begin
  if not exists (select from pg_constraint where conrelid = 'auth.one_time_tokens'::regclass
                 and conname = 'one_time_tokens_token_type_check'
                 and pg_get_constraintdef(oid) like '%confirmation_token%') then
    alter table auth.one_time_tokens drop constraint if exists one_time_tokens_token_type_check;
    alter table auth.one_time_tokens add constraint one_time_tokens_token_type_check
      check (token_type in ('confirmation_token', 'recovery_token', 'email_change_token_new'));
  end if;
end $$;

create or replace function auth.jwt() returns jsonb language sql stable as $$
  select coalesce(nullif(current_setting('request.jwt.claim', true), ''), nullif(current_setting('request.jwt.claims', true), ''))::jsonb
$$;
create or replace function auth.uid() returns uuid language sql stable as $$
  select coalesce(nullif(current_setting('request.jwt.claim.sub', true), ''), auth.jwt() ->> 'sub')::uuid
$$;
create or replace function auth.role() returns text language sql stable as $$
  select coalesce(nullif(current_setting('request.jwt.claim.role', true), ''), auth.jwt() ->> 'role')
$$;
create or replace function auth.email() returns text language sql stable as $$
  select coalesce(nullif(current_setting('request.jwt.claim.email', true), ''), auth.jwt() ->> 'email')
$$;

-- Applied project migrations, as the Supabase CLI records them.
create schema if not exists supabase_migrations;
create table if not exists supabase_migrations.schema_migrations (
  version text primary key,
  name text,
  applied_at timestamptz not null default now()
);

-- The local server's own secrets (its JWT secret), kept with the data so a restart reuses them.
-- No API role may read this schema.
create schema if not exists local_server;
revoke all on schema local_server from public;
create table if not exists local_server.secrets (
  name text primary key,
  value text not null,
  created_at timestamptz not null default now()
);

-- A request whose token's session has ended (or was never a session id): raised by the caller's
-- statement (server/db/caller.ts) before anything else of the request runs.
create or replace function local_server.session_ended() returns void language plpgsql as $$
begin
  raise exception 'session ended' using errcode = '28000';
end $$;
create or replace function local_server.api_key_ended() returns void language plpgsql as $$
begin
  raise exception 'This API key has been revoked or has expired.' using errcode = '28000';
end $$;
-- The caller's statement was this plpgsql function until 2026-11-24 (see caller.ts for why not now).
drop function if exists local_server.become_caller(text, text, text, text, text, text, text, text, text, text);

-- A session that ends (sign-out, suspension, an admin's act) ends its Realtime channels too: the
-- local server's Realtime listens here, as REST refuses the session's token by its first statement.
create or replace function local_server.announce_session_end() returns trigger language plpgsql as $$
begin
  perform pg_notify('repx_session_ended', old.id::text);
  return null;
end $$;
drop trigger if exists announce_session_end on auth.sessions;
create trigger announce_session_end after delete on auth.sessions
  for each row execute function local_server.announce_session_end();

-- Auth's rate limits (token buckets), here so that every server process over one database counts
-- together. Returns 0 when a token was available (and takes it if p_take), else the seconds to wait.
create table if not exists local_server.rate_buckets (
  key text primary key,
  tokens double precision not null,
  at timestamptz not null
);
create or replace function local_server.rate_limit(p_key text, p_capacity double precision, p_per_seconds double precision, p_take boolean)
returns integer language plpgsql as $$
declare
  rate double precision := p_capacity / p_per_seconds;
  moment timestamptz := clock_timestamp();
  have double precision;
begin
  insert into local_server.rate_buckets (key, tokens, at) values (p_key, p_capacity, moment) on conflict (key) do nothing;
  select least(p_capacity, b.tokens + extract(epoch from moment - b.at) * rate) into have
    from local_server.rate_buckets b where b.key = p_key for update;
  update local_server.rate_buckets
     set tokens = have - case when p_take and have >= 1 then 1 else 0 end, at = moment
   where key = p_key;
  return case when have >= 1 then 0 else ceil((1 - have) / rate)::integer end;
end $$;

-- An API key's request against two buckets at once, the key's and its account's: takes one token
-- from each if both have one. Returns the tighter bucket's capacity, the requests left in it, the
-- seconds until it is full again, and the seconds to wait (0: taken), for the RateLimit headers.
create or replace function local_server.api_quota(
  p_key text, p_key_capacity double precision, p_key_seconds double precision,
  p_account text, p_account_capacity double precision, p_account_seconds double precision,
  out lim integer, out remaining integer, out reset integer, out wait integer
) language plpgsql as $$
declare
  moment timestamptz := clock_timestamp();
  keys text[] := array[p_key, p_account];
  caps double precision[] := array[p_key_capacity, p_account_capacity];
  rates double precision[] := array[p_key_capacity / p_key_seconds, p_account_capacity / p_account_seconds];
  have double precision[] := array[0, 0];
  one double precision;
  i integer;
  tight integer;
begin
  for i in 1..2 loop
    insert into local_server.rate_buckets (key, tokens, at) values (keys[i], caps[i], moment) on conflict (key) do nothing;
    select least(caps[i], b.tokens + extract(epoch from moment - b.at) * rates[i]) into one
      from local_server.rate_buckets b where b.key = keys[i] for update;
    have[i] := one;
  end loop;
  wait := greatest(case when have[1] < 1 then ceil((1 - have[1]) / rates[1]) else 0 end,
                   case when have[2] < 1 then ceil((1 - have[2]) / rates[2]) else 0 end)::integer;
  for i in 1..2 loop
    if wait = 0 then have[i] := have[i] - 1; end if;
    update local_server.rate_buckets set tokens = have[i], at = moment where key = keys[i];
  end loop;
  tight := case when floor(have[1]) <= floor(have[2]) then 1 else 2 end;
  lim := caps[tight]::integer;
  remaining := greatest(floor(have[tight]), 0)::integer;
  reset := ceil((caps[tight] - have[tight]) / rates[tight])::integer;
end $$;

-- Gives back a token taken from a bucket (a guess that turned out right), up to its capacity.
create or replace function local_server.rate_refund(p_key text, p_capacity double precision) returns void
language sql as $$
  update local_server.rate_buckets set tokens = least(p_capacity, tokens + 1) where key = p_key;
$$;

-- The addresses each account has signed in from, and when last: an owner guessing at their own
-- password from a known address is never locked out by strangers' wrong guesses (auth/lockout.ts).
create table if not exists local_server.known_addresses (
  user_id uuid not null references auth.users (id) on delete cascade,
  ip inet not null,
  last_seen timestamptz not null default now(),
  primary key (user_id, ip)
);

-- Realtime broadcasts between server processes over one database: each process relays to its own
-- members at once and writes the message here; the others follow this table by id.
create table if not exists local_server.broadcasts (
  id bigint generated always as identity primary key,
  origin text not null,
  kind text not null default 'broadcast' check (kind in ('broadcast', 'presence')),
  topic text not null,
  event text not null,
  payload jsonb,
  bytes bytea,
  meta jsonb,
  created_at timestamptz not null default now()
);

-- Who is present on each topic, across server processes (each process keeps its members' rows
-- fresh; a process that died stops refreshing them and they age out).
create table if not exists local_server.presence (
  topic text not null,
  ref text not null,
  origin text not null,
  key text not null,
  meta jsonb not null,
  seen_at timestamptz not null default now(),
  primary key (topic, ref)
);

-- The mail the local auth server sends (password recovery codes), caught here as the Supabase
-- CLI's Inbucket catches a local project's mail, and printed to the server's log. A hosted
-- project's auth sends real email instead.
create table if not exists local_server.outbox (
  id bigint generated always as identity primary key,
  recipient text not null,
  subject text not null,
  body text not null,
  created_at timestamptz not null default now()
);

-- Realtime's authorization for private channels, as a Supabase project has it: policies on
-- realtime.messages decide who may read (join) and write (broadcast) a topic; realtime.topic()
-- names the topic being checked.
create schema if not exists realtime;
grant usage on schema realtime to anon, authenticated, service_role;
create table if not exists realtime.messages (
  id bigint generated always as identity primary key,
  topic text not null,
  extension text not null default 'broadcast',
  event text,
  payload jsonb,
  private boolean not null default true,
  inserted_at timestamptz not null default now()
);
alter table realtime.messages enable row level security;
grant select, insert on realtime.messages to authenticated, anon;
create or replace function realtime.topic() returns text language sql stable as $$
  select nullif(current_setting('realtime.topic', true), '')
$$;
-- Broadcast from the database, as a Supabase project's realtime.send: a message on a topic, which
-- the local server's Realtime follows by id (realtime/messages.ts) and relays to the topic's
-- members, who were authorized once when they joined. plpgsql, so its insert is planned once per
-- connection: the order path calls it on every order.
create or replace function realtime.send(payload jsonb, event text, topic text, private boolean default true)
returns void language plpgsql as $$
begin
  insert into realtime.messages (topic, extension, event, payload, private) values ($3, 'broadcast', $2, $1, $4);
end $$;
create index if not exists messages_inserted_at_idx on realtime.messages (inserted_at);

-- Which of these subscribers may read one changed row, in one statement (Supabase's WALRUS asks
-- the same once per change): for each distinct set of claims, the row is read as that role with
-- those claims, so row-level security decides; an ended session reads nothing. The role is
-- switched back after each read. Not security definer: the server's own (superuser) connection
-- calls it, and may take any of the API's roles.
create or replace function local_server.visible_to(p_table regclass, p_id text, p_claims jsonb[]) returns boolean[]
language plpgsql as $$
declare
  me text := current_user;
  seen boolean;
  verdicts boolean[] := '{}';
  c jsonb;
  read text := format('select exists (select 1 from %s where id = $1::%s)', p_table,
    (select format_type(a.atttypid, a.atttypmod) from pg_attribute a where a.attrelid = p_table and a.attname = 'id'));
begin
  foreach c in array p_claims loop
    seen := false;
    if coalesce(c->>'role', 'anon') in ('anon', 'authenticated', 'service_role')
       and (c->>'role' is distinct from 'authenticated'
            or (c->>'session_id' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                and exists (select from auth.sessions s where s.id = (c->>'session_id')::uuid))) then
      begin -- a role refused the table reads nothing (and its settings are undone with the block)
        perform set_config('request.jwt.claims', c::text, true), set_config('request.jwt.claim.sub', coalesce(c->>'sub', ''), true),
                set_config('request.jwt.claim.role', coalesce(c->>'role', 'anon'), true),
                set_config('role', coalesce(c->>'role', 'anon'), true);
        execute read using p_id into seen;
        perform set_config('role', me, true);
      exception when insufficient_privilege then
        seen := false;
      end;
    end if;
    verdicts := verdicts || seen;
  end loop;
  perform set_config('request.jwt.claims', '', true), set_config('request.jwt.claim.sub', '', true),
          set_config('request.jwt.claim.role', '', true);
  return verdicts;
end $$;

-- The scheduler's claims (server/schedule.ts). Every process of every host schedules every job;
-- a run first claims the job's period here, and only the claimant runs it, so a job runs once
-- per deployment. A claim lasts nine tenths of the period, which a timer's jitter cannot undercut;
-- skip locked: a process never waits on another's run, it leaves the run to it.
create table if not exists local_server.job_runs (
  name text primary key,
  claimed_at timestamptz not null,
  claimed_by text not null,
  runs bigint not null default 0
);
create or replace function local_server.claim_job(p_name text, p_every_ms integer, p_by text) returns boolean
language plpgsql as $$
declare
  claimed boolean;
begin
  insert into local_server.job_runs (name, claimed_at, claimed_by) values (p_name, '-infinity', p_by)
    on conflict (name) do nothing;
  update local_server.job_runs set claimed_at = clock_timestamp(), claimed_by = p_by, runs = runs + 1
   where name = (select j.name from local_server.job_runs j
                  where j.name = p_name and j.claimed_at <= clock_timestamp() - make_interval(secs => p_every_ms * 0.9 / 1000)
                  for update skip locked)
  returning true into claimed;
  return coalesce(claimed, false);
end $$;

-- The local server's own housekeeping (with the retention job): a rate bucket untouched for a day
-- is full again, so it carries no information; broadcasts are relayed within a second, and
-- the database's own messages within a few.
create or replace function local_server.prune() returns void
language sql as $$
  delete from local_server.rate_buckets where at < clock_timestamp() - interval '1 day';
  delete from local_server.broadcasts where created_at < clock_timestamp() - interval '1 minute';
  delete from realtime.messages where inserted_at < clock_timestamp() - interval '10 minutes';
  delete from local_server.presence where seen_at < clock_timestamp() - interval '2 minutes';
  delete from local_server.outbox where created_at < clock_timestamp() - interval '7 days';
  delete from local_server.known_addresses where last_seen < clock_timestamp() - interval '90 days';
  delete from auth.one_time_tokens where created_at < clock_timestamp() - interval '1 day';
$$;

-- Storage, as a Supabase project has it (the storage server owns this schema there); objects'
-- bytes live in `content` here, where Supabase keeps them in S3.
create schema if not exists storage;
grant usage on schema storage to anon, authenticated, service_role;
create table if not exists storage.buckets (
  id text primary key,
  name text not null unique,
  public boolean not null default false,
  file_size_limit bigint,
  allowed_mime_types text[],
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create table if not exists storage.objects (
  id uuid primary key default gen_random_uuid(),
  bucket_id text not null references storage.buckets (id),
  name text not null,
  owner uuid,
  metadata jsonb not null default '{}',
  content bytea,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  last_accessed_at timestamptz not null default now(),
  unique (bucket_id, name)
);
alter table storage.objects enable row level security;
grant select, insert, update, delete on storage.objects to anon, authenticated, service_role;
grant select on storage.buckets to anon, authenticated, service_role;
-- The path's folders: storage.foldername('uid/avatar.png') = {uid}, as Supabase's helper.
create or replace function storage.foldername(name text) returns text[] language sql immutable as $$
  select (string_to_array(name, '/'))[1:array_length(string_to_array(name, '/'), 1) - 1]
$$;

