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
create policy "own wallet transactions" on public.wallet_transactions
  for select to authenticated using (user_id = auth.uid() or private.is_admin());
create policy "own watchlist" on public.watchlist
  for select to authenticated using (user_id = auth.uid());
create policy "add to own watchlist" on public.watchlist
  for insert to authenticated with check (user_id = auth.uid());
create policy "remove from own watchlist" on public.watchlist
  for delete to authenticated using (user_id = auth.uid());

grant execute on function public.price_history(uuid, integer) to authenticated;

-- Views follow their own rules: public aggregates for signed-in users only.
revoke all on public.order_book, public.recent_trades, public.my_trades from anon;
grant select on public.order_book, public.recent_trades, public.my_trades to authenticated;
