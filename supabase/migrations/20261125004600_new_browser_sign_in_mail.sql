-- A sign-in from a browser the account has not used before is mailed to its owner.
--
-- A stolen password signed in anywhere without a word to the owner. Now each new session is
-- checked against the browsers the account has signed in from (its user agent without version
-- numbers, so a browser's update is not a new browser); a new one is remembered and mailed, with
-- the time, the address and what to do if it was not the owner. The account's very first session,
-- the one its sign-up's confirmation code starts, is only remembered. A trigger on GoTrue's
-- auth.sessions, so it holds on a hosted project too, whoever signs in; the mail goes out through
-- private.account_mail (20261125004500).

create table private.known_browsers (
  user_id uuid not null references auth.users (id) on delete cascade,
  browser text not null,
  first_seen timestamptz not null default now(),
  last_seen timestamptz not null default now(),
  primary key (user_id, browser)
);
revoke all on private.known_browsers from public, anon, authenticated;

-- What tells browsers apart: the user agent without its version numbers.
create function private.browser_key(p_user_agent text) returns text
language sql immutable set search_path = '' as $$
  select left(regexp_replace(coalesce(p_user_agent, ''), '[0-9][0-9._]*', '', 'g'), 300)
$$;
revoke all on function private.browser_key(text) from public, anon, authenticated;

-- The browsers of the sessions open now are known already.
insert into private.known_browsers (user_id, browser, first_seen, last_seen)
select user_id, private.browser_key(user_agent), min(created_at), max(coalesce(refreshed_at, created_at))
  from auth.sessions group by 1, 2;

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
revoke all on function private.mail_new_browser() from public, anon, authenticated;

create trigger sessions_mail_new_browser after insert on auth.sessions
  for each row execute function private.mail_new_browser();
