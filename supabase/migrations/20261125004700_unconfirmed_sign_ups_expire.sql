-- A sign-up never confirmed expires after a day; a browser unused for a year is forgotten.
--
-- Since sign-up waits for the code mailed to the address, an account nobody confirmed would keep
-- its address and its username forever: anyone could hold a username with an address that is not
-- theirs. After a day (the code lived an hour) such an account is deleted, with its profile and
-- its empty cash account, freeing both. One that something refers to (an admin suspended it, so
-- the audit log names it) is kept. private.known_browsers (20261125004600) forgets a browser not
-- used for a year: a sign-in from it after that is mailed as new again.
-- private.prune is recreated whole (20261125004500 defined it last).

create or replace function private.prune() returns jsonb
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
    select id from auth.users
     where email_confirmed_at is null and created_at < now() - interval '1 day'
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
revoke all on function private.prune() from public, anon, authenticated;
