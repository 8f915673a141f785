-- Read models for the screens: market summary, categories, and the admin area's lists.

-- The four figures above the market table.
create or replace view public.market_summary as
select
  (select coalesce(sum(market_cap), 0) from public.market_tokens) as total_market_cap,
  (select coalesce(sum(round(price * amount, 2)), 0) from public.trades where created_at > now() - interval '24 hours') as volume_24h,
  (select count(*) from public.tokens) as active_tokens,
  (select count(distinct user_id) from public.holdings where amount > 0) as total_traders;

create or replace view public.token_categories as
select category, count(*)::int as tokens from public.tokens group by category;

revoke all on public.market_summary, public.token_categories from anon;
grant select on public.market_summary, public.token_categories to authenticated;

-- Admin: accounts with their activity.
create or replace function public.admin_list_users(p_limit integer default 100)
returns table (id uuid, username text, full_name text, email text, role text, status text, joined timestamptz,
               trades_30d bigint, last_sign_in_at timestamptz)
language plpgsql stable security definer set search_path = '' as $$
begin
  if not private.is_admin() then raise exception 'Admin privileges required.' using errcode = '42501'; end if;
  return query
    select p.id, p.username, p.full_name, u.email, p.role, p.status, p.created_at,
           (select count(*) from public.trades t
             where (t.buyer_id = p.id or t.seller_id = p.id) and t.created_at > now() - interval '30 days'),
           u.last_sign_in_at
    from public.profiles p join auth.users u on u.id = p.id
    order by p.created_at desc
    limit least(greatest(p_limit, 1), 1000);
end $$;

-- Admin: accounts flagged by the wash-trading signal.
create or replace function public.admin_fraud_alerts()
returns table (account uuid, username text, counterparty uuid, counterparty_username text, trades_with_counterparty bigint, trades_24h numeric)
language plpgsql stable security definer set search_path = '' as $$
begin
  if not private.is_admin() then raise exception 'Admin privileges required.' using errcode = '42501'; end if;
  return query
    select f.account, a.username, f.counterparty, c.username, f.trades_with_counterparty, f.trades_24h
    from private.fraud_alerts f
    join public.profiles a on a.id = f.account
    join public.profiles c on c.id = f.counterparty
    order by f.trades_24h desc;
end $$;

-- Admin: fee revenue and volume per day.
create or replace function public.admin_revenue_daily(p_days integer default 7)
returns table (day date, trades bigint, volume numeric, revenue numeric)
language plpgsql stable security definer set search_path = '' as $$
begin
  if not private.is_admin() then raise exception 'Admin privileges required.' using errcode = '42501'; end if;
  return query
    select d::date, count(t.id), coalesce(sum(round(t.price * t.amount, 2)), 0), coalesce(sum(t.buyer_fee + t.seller_fee), 0)
    from generate_series(current_date - (least(greatest(p_days, 1), 90) - 1), current_date, interval '1 day') d
    left join public.trades t on t.created_at >= d and t.created_at < d + interval '1 day'
    group by d order by d desc;
end $$;

revoke execute on function public.admin_list_users(integer), public.admin_fraud_alerts(), public.admin_revenue_daily(integer) from public, anon;
grant execute on function public.admin_list_users(integer), public.admin_fraud_alerts(), public.admin_revenue_daily(integer) to authenticated;
