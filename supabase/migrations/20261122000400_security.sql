-- Who may read and change what, enforced by the database whoever calls: row-level security on
-- every table, column grants where a row is partly editable, and role checks in admin functions.

create or replace function private.is_admin() returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (select 1 from public.profiles where id = auth.uid() and role = 'admin' and status = 'active')
$$;
grant usage on schema private to authenticated;
grant execute on function private.is_admin() to authenticated;

alter table public.profiles enable row level security;
alter table public.tokens enable row level security;
alter table public.cash_accounts enable row level security;
alter table public.holdings enable row level security;
alter table public.orders enable row level security;
alter table public.trades enable row level security;
alter table public.wallet_transactions enable row level security;
alter table public.watchlist enable row level security;
alter table public.reputation_history enable row level security;
alter table public.achievements enable row level security;

-- Nothing is readable without signing in.
revoke all on all tables in schema public from anon;
revoke execute on all functions in schema public from anon, public;

-- Direct writes are limited to what a user may edit; money, tokens and orders move only
-- through the ledger functions.
revoke insert, update, delete, truncate on all tables in schema public from authenticated;
grant update (full_name, bio, location, avatar_url, cover_url) on public.profiles to authenticated;
grant insert, delete on public.watchlist to authenticated;

-- Profiles and tokens are public to signed-in users: traders look each other up.
create policy "profiles are visible to signed-in users" on public.profiles
  for select to authenticated using (true);
create policy "users edit their own profile" on public.profiles
  for update to authenticated using (id = auth.uid()) with check (id = auth.uid());

create policy "tokens are visible to signed-in users" on public.tokens
  for select to authenticated using (true);
create policy "reputation history is visible to signed-in users" on public.reputation_history
  for select to authenticated using (true);
create policy "achievements are visible to signed-in users" on public.achievements
  for select to authenticated using (true);

-- Private rows: each user sees only their own; admins see all.
create policy "own cash" on public.cash_accounts
  for select to authenticated using (user_id = auth.uid() or private.is_admin());
create policy "own holdings" on public.holdings
  for select to authenticated using (user_id = auth.uid() or private.is_admin());
create policy "own orders" on public.orders
  for select to authenticated using (user_id = auth.uid() or private.is_admin());
create policy "own trades" on public.trades
  for select to authenticated using (buyer_id = auth.uid() or seller_id = auth.uid() or private.is_admin());
create policy "own wallet transactions" on public.wallet_transactions
  for select to authenticated using (user_id = auth.uid() or private.is_admin());
create policy "own watchlist" on public.watchlist
  for select to authenticated using (user_id = auth.uid());
create policy "add to own watchlist" on public.watchlist
  for insert to authenticated with check (user_id = auth.uid());
create policy "remove from own watchlist" on public.watchlist
  for delete to authenticated using (user_id = auth.uid());

grant execute on function public.price_history(uuid, integer) to authenticated;

-- Admin dashboard figures (spec section 2): refused to anyone but an active admin.
create or replace function public.admin_dashboard_stats() returns jsonb
language plpgsql stable security definer set search_path = '' as $$
begin
  if not private.is_admin() then
    raise exception 'Admin privileges required.' using errcode = '42501';
  end if;
  return jsonb_build_object(
    'total_users', (select count(*) from public.profiles),
    'active_users', (select count(*) from public.profiles where status = 'active'),
    'suspended_users', (select count(*) from public.profiles where status = 'suspended'),
    'fraud_alerts', (select count(*) from private.fraud_alerts),
    'daily_volume', (select coalesce(sum(round(price * amount, 2)), 0) from public.trades where created_at > now() - interval '24 hours'),
    'revenue_24h', (select coalesce(sum(buyer_fee + seller_fee), 0) from public.trades where created_at > now() - interval '24 hours'),
    'trades_24h', (select count(*) from public.trades where created_at > now() - interval '24 hours')
  );
end $$;

-- A simple wash-trading signal: an account that made 10 or more trades in the last 24 hours,
-- more than half of them against one counterparty.
create or replace view private.fraud_alerts as
with legs as (
  select buyer_id as account, seller_id as counterparty from public.trades where created_at > now() - interval '24 hours'
  union all
  select seller_id, buyer_id from public.trades where created_at > now() - interval '24 hours'
), per_pair as (
  select account, counterparty, count(*) as n, sum(count(*)) over (partition by account) as total
  from legs group by account, counterparty
)
select account, counterparty, n as trades_with_counterparty, total as trades_24h
from per_pair where total >= 10 and n * 2 > total;

-- Suspend or reactivate an account (the trigger bans or unbans its sign-in).
create or replace function public.admin_set_account_status(p_user uuid, p_status text) returns void
language plpgsql security definer set search_path = '' as $$
begin
  if not private.is_admin() then
    raise exception 'Admin privileges required.' using errcode = '42501';
  end if;
  if p_status not in ('active', 'suspended') then
    raise exception 'Status must be active or suspended.' using errcode = '22023';
  end if;
  if p_user = auth.uid() then
    raise exception 'Admins cannot change the status of their own account.' using errcode = 'P0001';
  end if;
  update public.profiles set status = p_status where id = p_user;
  if not found then raise exception 'No such account.' using errcode = 'P0001'; end if;
end $$;

revoke execute on function public.admin_dashboard_stats(), public.admin_set_account_status(uuid, text) from public, anon;
grant execute on function public.admin_dashboard_stats(), public.admin_set_account_status(uuid, text) to authenticated;

-- Views follow their own rules: public aggregates for signed-in users only.
revoke all on public.market_tokens, public.order_book, public.recent_trades, public.my_trades, public.wallet_history from anon;
grant select on public.market_tokens, public.order_book, public.recent_trades, public.my_trades, public.wallet_history to authenticated;
