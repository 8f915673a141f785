-- Sign-ups waiting for their mailed code: the admin sees them as such, they are not counted as
-- users, and one never confirmed expires after a day. A browser unused for a year is forgotten.
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
revoke all on function private.prune() from public, anon, authenticated;

-- User Management marks an account whose sign-up was never confirmed (confirmed false), and the
-- dashboard's user counts leave such accounts out: nobody has used them. admin_list_users gains a
-- column, so it is dropped and created whole (20261122001300 defined it), its grants with it;
-- admin_dashboard_stats is recreated whole (20261122001200).
drop function public.admin_list_users(text, text, text, boolean, integer, integer);
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
grant execute on function public.admin_list_users(text, text, text, boolean, integer, integer) to authenticated;

create or replace function public.admin_dashboard_stats() returns jsonb
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
