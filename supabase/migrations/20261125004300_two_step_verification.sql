-- Two-step verification: a person who turned on an authenticator app acts only after entering
-- its code.
--
-- A password alone (guessed, phished or reused from another site's leak) opened the whole account.
-- With an app turned on (GoTrue's MFA: a verified factor in auth.mfa_factors), a session that has
-- not entered a code since signing in carries aal1 in its access token, one that has carries aal2.
-- An aal1 session of such a person is refused here, whoever calls: every function that moves money
-- or orders, or reads the person's own money, orders and holdings, and the admin role. The rule
-- has one owner, private.second_step_due; it reads the token and GoTrue's table, so it holds on a
-- hosted project too. Auth itself refuses such a session a new password or email (PUT /user).
--
-- Recreated whole, each with the one added check: active_caller (20261122000700), is_admin
-- (20261122000400), check_order_request (20261124003300), cancel_order (20261122000600, with the
-- plan setting of 20261124003100), cancel_all_orders (20261124004000), my_pnl (20261124003200),
-- my_positions (20261123002500).

-- Whether the caller has an app turned on and their session has not entered its code.
create or replace function private.second_step_due() returns boolean
language sql stable security definer set search_path = '' as $$
  select coalesce(auth.jwt() ->> 'aal', 'aal1') <> 'aal2'
     and exists (select from auth.mfa_factors f where f.user_id = auth.uid() and f.status = 'verified')
$$;
revoke all on function private.second_step_due() from public, anon;
grant execute on function private.second_step_due() to authenticated;

create or replace function private.require_second_step() returns void
language plpgsql stable security definer set search_path = '' as $$
begin
  if private.second_step_due() then
    raise exception 'Enter the code from your authenticator app first: two-step verification is on for this account.'
      using errcode = '42501', hint = 'mfa_required';
  end if;
end $$;
revoke all on function private.require_second_step() from public, anon, authenticated;

-- Reads of one's own money, orders and holdings: also after the second step (read once per
-- statement, in a sub-select).
do $$
declare
  t text;
begin
  foreach t in array array['cash_accounts', 'holdings', 'orders', 'trades', 'wallet_transactions', 'watchlist',
                           'payout_destinations', 'token_applications'] loop
    execute format('drop policy if exists "after the second step" on public.%I', t);
    execute format(
      'create policy "after the second step" on public.%I as restrictive to authenticated
         using (not (select private.second_step_due() as due))
         with check (not (select private.second_step_due() as due))', t);
  end loop;
end $$;

create or replace function private.active_caller() returns uuid
language plpgsql stable security definer set search_path = '' as $$
declare
  uid uuid := auth.uid();
begin
  if uid is null then raise exception 'Sign in first.' using errcode = '42501'; end if;
  if exists (select 1 from public.profiles where id = uid and status <> 'active') then
    raise exception 'Your account is suspended.' using errcode = '42501';
  end if;
  perform private.require_second_step();
  return uid;
end $$;

create or replace function private.is_admin() returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (select 1 from public.profiles where id = auth.uid() and role = 'admin' and status = 'active')
     and not private.second_step_due()
$$;

create or replace function private.check_order_request(
  p_user uuid, p_side text, p_type text, p_amount numeric, p_price numeric
) returns public.exchange_settings language plpgsql stable security definer set search_path = ''
set plan_cache_mode = force_generic_plan as $$
declare
  settings public.exchange_settings;
  read record;
begin
  if p_user is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_second_step();
  select s as settings, coalesce(p.status <> 'active', false) as suspended into read
    from public.exchange_settings s left join public.profiles p on p.id = p_user;
  settings := read.settings;
  if p_side is null or p_side not in ('buy', 'sell') then
    raise exception 'The side must be buy or sell.' using errcode = '22023';
  end if;
  if p_type is null or p_type not in ('market', 'limit') then
    raise exception 'The order type must be market or limit.' using errcode = '22023';
  end if;
  if p_amount is null or p_amount < 1 or p_amount <> trunc(p_amount) then
    raise exception 'The amount must be a whole number of tokens, at least 1.' using errcode = '22023';
  end if;
  if p_type = 'limit' then
    if p_price is null or p_price <= 0 then raise exception 'A limit order needs a price above $0.00.' using errcode = '22023'; end if;
    if p_price <> round(p_price, 2) then raise exception 'The limit price has at most two decimals.' using errcode = '22023'; end if;
    if p_price > settings.max_price then
      raise exception 'The limit price cannot exceed %.', private.money(settings.max_price) using errcode = '22023';
    end if;
  elsif p_price is not null then
    raise exception 'A market order takes no price: it trades at the best prices in the book.' using errcode = '22023';
  end if;
  if read.suspended then
    raise exception 'Your account is suspended: trading is disabled.' using errcode = '42501';
  end if;
  if settings.trading_halted then
    raise exception 'Trading is halted%. Cancelling open orders still works.',
      coalesce(': ' || nullif(settings.halt_reason, ''), '') using errcode = 'P0001';
  end if;
  if p_amount < settings.min_order_amount then
    raise exception 'The minimum order is % tokens.', settings.min_order_amount using errcode = '22023';
  end if;
  if p_type = 'limit' and (select count(*) from public.orders where user_id = p_user and status = 'open') >= settings.max_open_orders then
    raise exception 'You have % open orders, the most allowed. Cancel one before placing another limit order.',
      settings.max_open_orders using errcode = 'P0001';
  end if;
  return settings;
end $$;

create or replace function public.cancel_order(p_order bigint) returns jsonb
language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  uid uuid := auth.uid();
  o public.orders;
begin
  if uid is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_second_step();
  select * into o from public.orders where id = p_order and user_id = uid;
  if not found then raise exception 'You have no order #%.', p_order using errcode = 'P0001'; end if;
  perform 1 from public.tokens where id = o.token_id for update; -- the book's lock first
  select * into o from public.orders where id = p_order for update;
  if o.status <> 'open' then raise exception 'Order #% is already %.', p_order, o.status using errcode = 'P0001'; end if;
  perform private.release_order(p_order);
  insert into public.market_events (token_id, kind) values (o.token_id, 'book');
  return jsonb_build_object('order_id', p_order, 'status', 'cancelled', 'released_tokens',
    case when o.side = 'sell' then o.amount - o.filled else 0 end, 'released_cash', o.reserved);
end $$;

create or replace function public.cancel_all_orders(p_token uuid default null) returns integer
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := auth.uid();
  books uuid[];
  o bigint;
  n integer := 0;
begin
  if uid is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_second_step();
  select coalesce(array_agg(distinct token_id order by token_id), '{}') into books
  from public.orders where user_id = uid and status = 'open' and (p_token is null or token_id = p_token);
  perform 1 from public.tokens where id = any (books) order by id for update;
  for o in
    select id from public.orders
    where user_id = uid and status = 'open' and token_id = any (books)
    order by id for update
  loop
    perform private.release_order(o);
    n := n + 1;
  end loop;
  insert into public.market_events (token_id, kind) select b, 'book' from unnest(books) b;
  return n;
end $$;

create or replace function public.my_pnl(p_days integer default 30)
returns table (at timestamptz, realized numeric, unrealized numeric, invested numeric, value numeric)
language plpgsql stable security definer set search_path = '' set jit = off as $$
#variable_conflict use_column
begin
  perform private.require_second_step();
  return query
  with moments as (
    select least(d + interval '1 day', now()) as at
    from generate_series(date_trunc('day', now()) - make_interval(days => least(greatest(p_days, 1), 365) - 1), date_trunc('day', now()), interval '1 day') d
  )
  select m.at,
         round(coalesce(sum(b.realized), 0), 2),
         round(coalesce(sum(b.tokens * private.price_at(b.token_id, m.at) - b.cost) filter (where b.tokens > 0), 0), 2),
         round(coalesce(sum(b.cost) filter (where b.tokens > 0), 0), 2),
         round(coalesce(sum(b.tokens * private.price_at(b.token_id, m.at)) filter (where b.tokens > 0), 0), 2)
  from moments m left join lateral private.cost_basis(auth.uid(), m.at) b on true
  group by m.at
  order by m.at;
end $$;

create or replace function public.my_positions()
returns table (token_id uuid, name text, username text, category text, avatar_url text, verified boolean,
               tokens bigint, avg_price numeric, cost numeric, price numeric, value numeric, pnl numeric, pnl_percent numeric)
language plpgsql stable security definer set search_path = '' as $$
#variable_conflict use_column
begin
  perform private.require_second_step();
  return query
  select h.token_id, m.name, m.username, m.category, m.avatar_url, m.verified, h.amount,
         round(coalesce(b.cost, 0) / h.amount, 2), round(coalesce(b.cost, 0), 2), m.price,
         round(h.amount * m.price, 2), round(h.amount * m.price, 2) - round(coalesce(b.cost, 0), 2),
         case when coalesce(b.cost, 0) > 0 then round((h.amount * m.price - b.cost) / b.cost * 100, 2) else 0 end
  from public.holdings h
  join public.market_tokens m on m.id = h.token_id
  left join private.cost_basis(auth.uid(), now()) b on b.token_id = h.token_id
  where h.user_id = auth.uid() and h.amount > 0 and m.owner_id is distinct from auth.uid()
  order by round(h.amount * m.price, 2) desc, m.name;
end $$;
