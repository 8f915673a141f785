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
  perform private.notify(uid, 'security', 'A new API key on your RepX account',
    format(E'An API key named "%s" (%s…) was created on your account, with the scopes %s%s.\n\n'
           'It can %s, but never move money or change your account. If this was not you, revoke it in '
           'Profile › Settings › API keys and change your password.',
           made.name, made.prefix, array_to_string(made.scopes, ' and '),
           coalesce(', expiring ' || to_char(made.expires_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI') || ' UTC', ''),
           case when 'trade' = any (made.scopes) then 'read your account and place and cancel orders' else 'read your account' end),
    '/profile');
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
  perform private.notify(k.user_id, 'security', 'An API key on your RepX account was revoked',
    format(E'The API key "%s" (%s…) was revoked%s. Requests made with it are refused from now on.',
           k.name, k.prefix, case when p_by = k.user_id then '' else ' by RepX: ' || p_reason end), '/profile');
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
