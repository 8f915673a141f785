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
    perform private.notify(new.user_id, 'security', 'A new sign-in to your RepX account',
      format(E'Your RepX account was signed in from a browser it had not used before, on %s%s.\n'
             'If it was you, there is nothing to do. If it was not, reset your password now with Forgot password? on the sign-in page, then sign the other sessions out under Profile, Settings, See where you are signed in.',
        to_char(new.created_at at time zone 'UTC', 'Mon FMDD, YYYY, HH24:MI "UTC"'),
        coalesce(', from the address ' || host(new.ip), '')), '/profile');
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
