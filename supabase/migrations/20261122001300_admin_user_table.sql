-- User Management at scale: the accounts table is searched, filtered, sorted and paged in the
-- database (one page of rows and the total count per call), and Details opens one account.

create index if not exists profiles_created_idx on public.profiles (created_at desc, id);

create or replace function public.admin_list_users(
  p_search text default null, p_filter text default 'all', p_sort text default 'joined', p_desc boolean default true,
  p_limit integer default 25, p_offset integer default 0
)
returns table (id uuid, username text, full_name text, email text, role text, status text, verified boolean, joined timestamptz,
               trades_30d bigint, last_sign_in_at timestamptz, application_id bigint, total bigint)
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
           pg.last_sign_in_at, pg.application_id, pg.total
    from page pg;
end $$;

-- Details: everything about one account an operator needs, in one call.
create or replace function public.admin_account_details(p_user uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  p public.profiles;
begin
  perform private.require_admin();
  select * into p from public.profiles where id = p_user and role <> 'system';
  if not found then perform private.refuse('There is no such account.'); end if;
  return jsonb_build_object(
    'profile', to_jsonb(p) || jsonb_build_object('email', (select email from auth.users where id = p_user),
      'last_sign_in_at', (select last_sign_in_at from auth.users where id = p_user)),
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
    'sessions', coalesce((select jsonb_agg(jsonb_build_object('created_at', s.created_at, 'refreshed_at', s.refreshed_at) order by s.created_at desc)
      from auth.sessions s where s.user_id = p_user), '[]'),
    'activity', coalesce((select jsonb_agg(x order by x.created_at desc) from (
      select l.created_at, a.username as actor, l.action, l.reason from public.audit_log l left join public.profiles a on a.id = l.actor_id
      where l.target_user = p_user order by l.created_at desc limit 50) x), '[]')
  );
end $$;

revoke execute on function public.admin_list_users(text, text, text, boolean, integer, integer), public.admin_account_details(uuid) from public, anon;
grant execute on function public.admin_list_users(text, text, text, boolean, integer, integer), public.admin_account_details(uuid) to authenticated;
