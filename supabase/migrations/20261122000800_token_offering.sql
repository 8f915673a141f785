-- A person's own token: they apply, an admin approves or rejects, and on approval the database
-- issues the token in one transaction. Every admin decision lands in an append-only audit log.
--
-- Issue on approval (defaults in exchange_settings): a total supply, a founder allocation to the
-- person, and an initial offering of the rest at the issue price, resting on the order book as a
-- sell order of the issuance account. Each fill of the offering pays the person (value - fee);
-- the issuance account only ever holds the unsold tokens.

alter table public.exchange_settings
  add column token_supply bigint not null default 1000000 check (token_supply between 1000 and 1000000000),
  add column token_founder_bps integer not null default 2000 check (token_founder_bps between 0 and 10000),
  add column token_issue_price numeric(12, 2) not null default 10 check (token_issue_price > 0 and token_issue_price <= 1000000);

alter table public.profiles drop constraint profiles_role_check;
alter table public.profiles add constraint profiles_role_check check (role in ('user', 'admin', 'system'));

-- The issuance account: an account nobody can sign in to (no password, banned), holding what is
-- left of each token offering.
create or replace function private.issuance_account() returns uuid
language sql immutable as $$ select '00000000-0000-4000-8000-00000000155e'::uuid $$;
-- A constant the market views use; they call it as the reader.
grant execute on function private.issuance_account() to authenticated;

insert into auth.users (id, email, raw_user_meta_data, banned_until)
values (private.issuance_account(), 'issuance@system.repx.dev',
        '{"username": "repx_offering", "full_name": "RepX Token Offering"}', 'infinity');
update public.profiles set role = 'system', bio = 'Sells the initial offering of newly issued tokens.' where id = private.issuance_account();

-- Who receives a sale's proceeds when it is not the seller: the person behind an offering.
alter table public.trades add column proceeds_to uuid references public.profiles (id);
create index trades_proceeds_idx on public.trades (proceeds_to, created_at desc) where proceeds_to is not null;
drop policy "own trades" on public.trades;
create policy "own trades" on public.trades
  for select to authenticated using (buyer_id = auth.uid() or seller_id = auth.uid() or proceeds_to = auth.uid() or private.is_admin());

-- Fees are charged on each order's cumulative value: a fill pays fee(value filled so far) minus the
-- fees the order already paid. So an order's fees come to the fee of its whole value, never a cent
-- more than a resting buy reserved, however it is filled (each part's fee rounded on its own could
-- add up to more). Trades without an order (the seed's history) pay the fee of their own value.
alter table public.orders
  add column filled_value numeric(14, 2) not null default 0 check (filled_value >= 0),
  add column fees_paid numeric(14, 2) not null default 0 check (fees_paid >= 0);

-- The fee a fill of an order pays, and the order's running totals updated with it.
create or replace function private.charge_fill(p_order bigint, p_value numeric, p_bps integer) returns numeric
language plpgsql security definer set search_path = '' as $$
declare
  v_paid numeric;
  v_value numeric;
  v_charged numeric;
begin
  if p_order is null then return private.fee(p_value, p_bps); end if;
  select o.fees_paid, o.filled_value into v_paid, v_value from public.orders o where o.id = p_order;
  -- Never negative, should the fee setting fall while an order is partly filled.
  v_charged := greatest(0, private.fee(v_value + p_value, p_bps) - v_paid);
  update public.orders o set filled_value = v_value + p_value, fees_paid = v_paid + v_charged where o.id = p_order;
  return v_charged;
end $$;

-- settle_trade as before, but the offering's proceeds go to the token's person, and the fee follows
-- the setting, charged on each order's cumulative value and recorded on the trade.
create or replace function private.settle_trade(
  p_token uuid, p_buyer uuid, p_seller uuid, p_price numeric, p_amount bigint, p_taker_side text,
  p_buy_order bigint default null, p_sell_order bigint default null,
  p_buyer_reserved numeric default 0, p_seller_reserved boolean default false,
  p_at timestamptz default now()
) returns bigint language plpgsql security definer set search_path = '' as $$
declare
  bps integer := private.fee_bps(); -- read once: the fee and its record agree
  value numeric := round(p_price * p_amount, 2);
  buyer_fee numeric := private.charge_fill(p_buy_order, round(p_price * p_amount, 2), bps);
  seller_fee numeric := private.charge_fill(p_sell_order, round(p_price * p_amount, 2), bps);
  payee uuid := p_seller;
  trade_id bigint;
begin
  if p_buyer = p_seller then raise exception 'An account cannot trade with itself.' using errcode = 'P0001'; end if;
  if p_seller = private.issuance_account() then
    select coalesce(owner_id, p_seller) into payee from public.tokens where id = p_token;
  end if;
  update public.cash_accounts
     set reserved = reserved - p_buyer_reserved,
         available = available + p_buyer_reserved - value - buyer_fee
   where user_id = p_buyer;
  update public.cash_accounts set available = available + value - seller_fee where user_id = payee;
  update public.holdings
     set amount = amount - p_amount,
         reserved = reserved - case when p_seller_reserved then p_amount else 0 end
   where user_id = p_seller and token_id = p_token;
  if not found then raise exception 'The seller holds none of these tokens.' using errcode = 'P0001'; end if;
  insert into public.holdings (user_id, token_id, amount) values (p_buyer, p_token, p_amount)
  on conflict (user_id, token_id) do update set amount = public.holdings.amount + excluded.amount;
  insert into public.trades (token_id, buy_order_id, sell_order_id, buyer_id, seller_id, price, amount, taker_side, buyer_fee, seller_fee, created_at, proceeds_to, fee_bps)
  values (p_token, p_buy_order, p_sell_order, p_buyer, p_seller, p_price, p_amount, p_taker_side, buyer_fee, seller_fee, p_at,
          nullif(payee, p_seller), bps)
  returning id into trade_id;
  return trade_id;
end $$;

-- place_order as before, but: the accounts it locks include the person behind an offering; it follows
-- the settings (trading halt, minimum order, maximum open orders, the fee for market buys).
create or replace function public.place_order(
  p_token uuid, p_side text, p_type text, p_amount numeric, p_price numeric default null
) returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := auth.uid();
  tok record;
  v_amount bigint;
  v_order bigint;
  opposite text;
  remaining bigint;
  budget numeric := 0;
  spent numeric := 0;
  spent_value numeric := 0;
  maker record;
  n bigint;
  fills jsonb := '[]';
  expire bigint[] := '{}';
  f jsonb;
  involved uuid[];
  release numeric;
  value_sum numeric := 0;
  fee_sum numeric := 0;
  fill_value numeric;
  rest_cost numeric;
  final_status text;
  have numeric;
  settings public.exchange_settings;
begin
  if uid is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  select * into settings from public.exchange_settings;
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
  if exists (select 1 from public.profiles where id = uid and status <> 'active') then
    raise exception 'Your account is suspended: trading is disabled.' using errcode = '42501';
  end if;
  if settings.trading_halted then
    raise exception 'Trading is halted%. Cancelling open orders still works.',
      coalesce(': ' || nullif(settings.halt_reason, ''), '') using errcode = 'P0001';
  end if;
  if p_amount < settings.min_order_amount then
    raise exception 'The minimum order is % tokens.', settings.min_order_amount using errcode = '22023';
  end if;
  if p_type = 'limit' and (select count(*) from public.orders where user_id = uid and status = 'open') >= settings.max_open_orders then
    raise exception 'You have % open orders, the most allowed. Cancel one before placing another limit order.',
      settings.max_open_orders using errcode = 'P0001';
  end if;

  -- 1. The book's lock.
  select id, name, total_supply into tok from public.tokens where id = p_token for update;
  if not found then raise exception 'There is no such token.' using errcode = 'P0001'; end if;
  if p_amount > tok.total_supply then
    raise exception 'The amount cannot exceed the total supply of % tokens.', tok.total_supply using errcode = '22023';
  end if;
  v_amount := p_amount::bigint;
  opposite := case when p_side = 'buy' then 'sell' else 'buy' end;

  if p_side = 'sell' then
    select coalesce(max(amount - reserved), 0) into have from public.holdings where user_id = uid and token_id = p_token;
    if have < v_amount then
      raise exception 'You have % % tokens available to sell; this order needs %.', have, tok.name, v_amount using errcode = 'P0001';
    end if;
  else
    select coalesce(max(available), 0) into budget from public.cash_accounts where user_id = uid;
    if p_type = 'limit' and budget < private.buy_cost(p_price, v_amount) then
      raise exception 'Insufficient funds: this order needs % (value + % fee) and you have % available.',
        private.money(private.buy_cost(p_price, v_amount)), trim_scale(settings.fee_bps / 100.0)::text || '%', private.money(budget) using errcode = 'P0001';
    end if;
  end if;

  insert into public.orders (user_id, token_id, side, type, price, amount)
  values (uid, p_token, p_side, p_type, p_price, v_amount) returning id into v_order;

  -- 2. Walk the other side of the book, best price first, oldest first; compute the fills.
  remaining := v_amount;
  for maker in
    select o.id, o.user_id, o.price, o.amount - o.filled as open_amount, o.reserved, o.filled_value, o.fees_paid
    from public.orders o
    where o.token_id = p_token and o.status = 'open' and o.side = opposite
      and (p_type = 'market' or (p_side = 'buy' and o.price <= p_price) or (p_side = 'sell' and o.price >= p_price))
    order by case when p_side = 'buy' then o.price end asc, case when p_side = 'sell' then o.price end desc, o.created_at, o.id
    for update
  loop
    exit when remaining = 0;
    if maker.user_id = uid then
      expire := expire || maker.id; -- met one's own order: expire it, go on
      continue;
    end if;
    n := least(remaining, maker.open_amount);
    if p_side = 'buy' and p_type = 'market' then
      -- Never spend more than the cash available: as many tokens as it affords at this price, its
      -- fee counted on the order's cumulative value, as it will be charged.
      n := least(n, floor((budget - spent) / (maker.price * (1 + settings.fee_bps / 10000.0)))::bigint);
      while n > 0 and spent_value + round(maker.price * n, 2) + private.fee(spent_value + round(maker.price * n, 2)) > budget loop
        n := n - 1;
      end loop;
      exit when n <= 0;
    end if;
    fills := fills || jsonb_build_object('order', maker.id, 'user', maker.user_id, 'price', maker.price,
      'amount', n, 'open', maker.open_amount, 'reserved', maker.reserved,
      'filled_value', maker.filled_value, 'fees_paid', maker.fees_paid);
    spent_value := spent_value + round(maker.price * n, 2);
    spent := spent_value + private.fee(spent_value);
    remaining := remaining - n;
  end loop;

  if p_type = 'market' and jsonb_array_length(fills) = 0 then
    if exists (select 1 from public.orders where token_id = p_token and status = 'open' and side = opposite and user_id <> uid) then
      raise exception 'Insufficient funds: you cannot afford one % token at the best price.', tok.name using errcode = 'P0001';
    end if;
    raise exception 'There are no % orders for % right now. Place a limit order to wait for a %.',
      opposite, tok.name, case when p_side = 'buy' then 'seller' else 'buyer' end using errcode = 'P0001';
  end if;

  -- 3. Lock every account involved, cash then holdings, in ascending user id.
  -- The person behind a token offering receives its proceeds, so their cash is locked too.
  involved := array(select distinct u from (
    select uid as u
    union all select (x ->> 'user')::uuid from jsonb_array_elements(fills) x
    union all select t.owner_id from public.tokens t
     where t.id = p_token and t.owner_id is not null
       and exists (select 1 from jsonb_array_elements(fills) x where (x ->> 'user')::uuid = private.issuance_account())
  ) s order by u);
  perform 1 from public.cash_accounts where user_id = any (involved) order by user_id for update;
  perform 1 from public.holdings where token_id = p_token and user_id = any (involved) order by user_id for update;

  -- Own resting orders met while matching are expired (self-trade prevention).
  perform private.release_order(x) from unnest(expire) x;

  -- Re-check what was read before the locks.
  if p_side = 'buy' then
    select available into budget from public.cash_accounts where user_id = uid;
    rest_cost := case when p_type = 'limit' and remaining > 0
      then round(p_price * remaining, 2) + private.fee(spent_value + round(p_price * remaining, 2)) - private.fee(spent_value) else 0 end;
    if budget < spent + rest_cost then
      raise exception 'Insufficient funds: your available cash changed while the order was placed. Please try again.' using errcode = 'P0001';
    end if;
  else
    select coalesce(max(amount - reserved), 0) into have from public.holdings where user_id = uid and token_id = p_token;
    if have < v_amount then
      raise exception 'You have % % tokens available to sell; this order needs %.', have, tok.name, v_amount using errcode = 'P0001';
    end if;
  end if;

  -- 4. Settle each fill at the resting order's price.
  for f in select * from jsonb_array_elements(fills) loop
    n := (f ->> 'amount')::bigint;
    fill_value := round((f ->> 'price')::numeric * n, 2);
    if p_side = 'buy' then
      perform private.settle_trade(p_token, uid, (f ->> 'user')::uuid, (f ->> 'price')::numeric, n, 'buy',
        v_order, (f ->> 'order')::bigint, 0, true);
    else
      -- The resting buyer pays from its reservation; a completed order releases all of it.
      release := case when n = (f ->> 'open')::bigint then (f ->> 'reserved')::numeric
                      else least((f ->> 'reserved')::numeric, fill_value
                        + greatest(0, private.fee((f ->> 'filled_value')::numeric + fill_value) - (f ->> 'fees_paid')::numeric)) end;
      perform private.settle_trade(p_token, (f ->> 'user')::uuid, uid, (f ->> 'price')::numeric, n, 'sell',
        (f ->> 'order')::bigint, v_order, release, false);
      update public.orders set reserved = reserved - release where id = (f ->> 'order')::bigint;
    end if;
    update public.orders
       set filled = filled + n, status = case when filled + n = amount then 'filled' else 'open' end
     where id = (f ->> 'order')::bigint;
    value_sum := value_sum + fill_value;
  end loop;

  -- 5. What is left of a limit order rests on the book, its cost or tokens held back.
  if p_type = 'limit' and remaining > 0 then
    if p_side = 'buy' then
      -- rest_cost (computed above) holds back the rest's value and the fee it can add to the order's.
      update public.cash_accounts set available = available - rest_cost, reserved = reserved + rest_cost where user_id = uid;
      update public.orders set reserved = rest_cost where id = v_order;
    else
      update public.holdings set reserved = reserved + remaining where user_id = uid and token_id = p_token;
    end if;
    final_status := 'open';
  else
    final_status := case when remaining = 0 then 'filled' else 'cancelled' end;
  end if;
  update public.orders set filled = v_amount - remaining, status = final_status where id = v_order
  returning fees_paid into fee_sum;

  insert into public.market_events (token_id, kind) values (p_token, case when value_sum > 0 then 'trade' else 'book' end);

  return jsonb_build_object(
    'order_id', v_order,
    'status', final_status,
    'side', p_side,
    'type', p_type,
    'amount', v_amount,
    'filled', v_amount - remaining,
    'resting', case when final_status = 'open' then remaining else 0 end,
    'average_price', case when v_amount > remaining then round(value_sum / (v_amount - remaining), 2) end,
    'value', value_sum,
    'fee', fee_sum,
    'total', case when p_side = 'buy' then value_sum + fee_sum else value_sum - fee_sum end
  );
exception
  when check_violation then
    raise exception 'Insufficient funds or tokens for this order.' using errcode = 'P0001';
end $$;

-- Every movement of the caller's cash, with its effect on the balance (available + reserved):
-- deposits when completed, withdrawals from the moment they are held (until failed or cancelled),
-- each trade's value and each fee, and an offering's proceeds for the token's person. The running
-- balance is the sum of the effects so far, so the last one (the highest `position`) equals the balance.
drop view public.wallet_history;
create view public.wallet_history with (security_invoker = true) as
with moves as (
  select 'wt-' || w.id as id, w.created_at, w.id::numeric as seq,
         case w.type when 'deposit' then 'Deposit' else 'Withdrawal' end as type,
         coalesce(w.method, case w.type when 'deposit' then 'Deposit' else 'Withdrawal' end) as description,
         case w.type when 'deposit' then w.amount else -w.amount end as amount,
         case when w.type = 'deposit' and w.status = 'completed' then w.amount
              when w.type = 'withdrawal' and w.status not in ('failed', 'cancelled') then -w.amount
              else 0 end as effect,
         initcap(w.status) as status, w.message, w.id as wallet_id, null::bigint as trade_id
  from public.wallet_transactions w
  where w.user_id = auth.uid()
  union all
  select 'tr-' || m.id, m.created_at, m.id + 0.1,
         case m.type when 'buy' then 'Buy' else 'Sell' end,
         format('%s %s at %s', m.amount, m.name, private.money(m.price)),
         case m.type when 'buy' then -m.value else m.value end,
         case m.type when 'buy' then -m.value else m.value end,
         'Completed', null, null, m.id
  from public.my_trades m
  union all
  select 'fee-' || m.id, m.created_at, m.id + 0.2, 'Trade Fee',
         format('On the %s of %s %s', m.type, m.amount, m.name), -m.fee, -m.fee, 'Completed', null, null, m.id
  from public.my_trades m
  where m.fee > 0
  union all
  select 'ipo-' || tr.id, tr.created_at, tr.id + 0.1, 'Sell',
         format('Offering: %s %s at %s', tr.amount, t.name, private.money(tr.price)),
         round(tr.price * tr.amount, 2), round(tr.price * tr.amount, 2), 'Completed', null, null, tr.id
  from public.trades tr join public.tokens t on t.id = tr.token_id
  where tr.proceeds_to = auth.uid()
  union all
  select 'ipofee-' || tr.id, tr.created_at, tr.id + 0.2, 'Trade Fee',
         format('On the offering sale of %s %s', tr.amount, t.name), -tr.seller_fee, -tr.seller_fee, 'Completed', null, null, tr.id
  from public.trades tr join public.tokens t on t.id = tr.token_id
  where tr.proceeds_to = auth.uid() and tr.seller_fee > 0
)
select id, type, description, amount, effect, status, message, wallet_id, trade_id, created_at,
       sum(effect) over running as balance,
       row_number() over running as position
from moves
window running as (order by created_at, type = 'Trade Fee', seq, id rows unbounded preceding);
revoke all on public.wallet_history from anon;
grant select on public.wallet_history to authenticated;

-- The market's figures: what the offering has not sold yet is available, not held, and the
-- issuance account is not a holder.
create or replace view public.market_tokens as
select
  t.id,
  t.owner_id,
  t.name,
  t.username,
  t.category,
  t.reputation_score,
  t.avatar_url,
  t.verified,
  t.total_supply,
  coalesce(last_trade.price, t.issue_price) as price,
  coalesce(round((coalesce(last_trade.price, t.issue_price) - coalesce(day_ago.price, first_trade.price, t.issue_price))
    / coalesce(day_ago.price, first_trade.price, t.issue_price) * 100, 2), 0) as change_24h,
  coalesce(day.volume, 0) as volume_24h,
  round(coalesce(last_trade.price, t.issue_price) * t.total_supply, 2) as market_cap,
  coalesce(held.holders, 0) as holders,
  t.total_supply - coalesce(held.amount, 0) as available_supply
from public.tokens t
left join lateral (
  select tr.price from public.trades tr where tr.token_id = t.id order by tr.created_at desc, tr.id desc limit 1
) last_trade on true
left join lateral (
  select tr.price from public.trades tr
  where tr.token_id = t.id and tr.created_at <= now() - interval '24 hours'
  order by tr.created_at desc, tr.id desc limit 1
) day_ago on true
left join lateral (
  -- A token younger than a day compares with its first trade.
  select tr.price from public.trades tr where tr.token_id = t.id order by tr.created_at, tr.id limit 1
) first_trade on true
left join lateral (
  select sum(round(tr.price * tr.amount, 2)) as volume from public.trades tr
  where tr.token_id = t.id and tr.created_at > now() - interval '24 hours'
) day on true
left join lateral (
  select count(*) filter (where h.amount > 0) as holders, sum(h.amount) as amount
  from public.holdings h where h.token_id = t.id and h.user_id <> private.issuance_account()
) held on true;

create or replace view public.market_summary as
select
  (select coalesce(sum(market_cap), 0) from public.market_tokens) as total_market_cap,
  (select coalesce(sum(round(price * amount, 2)), 0) from public.trades where created_at > now() - interval '24 hours') as volume_24h,
  (select count(*) from public.tokens) as active_tokens,
  (select count(distinct user_id) from public.holdings where amount > 0 and user_id <> private.issuance_account()) as total_traders;

-- The audit log: append-only for everyone, admins included (no grant, and a trigger for the owner).
create table public.audit_log (
  id bigint generated always as identity primary key,
  actor_id uuid references public.profiles (id),
  action text not null,
  target_user uuid references public.profiles (id),
  target text,
  before jsonb,
  after jsonb,
  reason text,
  created_at timestamptz not null default now()
);
create index audit_log_time_idx on public.audit_log (created_at desc);
create index audit_log_target_idx on public.audit_log (target_user, created_at desc);
alter table public.audit_log enable row level security;
create policy "admins read the audit log" on public.audit_log for select to authenticated using (private.is_admin());
revoke all on public.audit_log from anon;
revoke insert, update, delete, truncate on public.audit_log from authenticated;

create or replace function private.forbid_audit_change() returns trigger
language plpgsql as $$ begin raise exception 'The audit log is append-only.' using errcode = '42501'; end $$;
create trigger audit_log_append_only before update or delete on public.audit_log
  for each row execute function private.forbid_audit_change();
create trigger audit_log_no_truncate before truncate on public.audit_log
  for each statement execute function private.forbid_audit_change();

create or replace function private.audit(p_action text, p_target_user uuid, p_target text, p_before jsonb, p_after jsonb, p_reason text default null)
returns void language sql security definer set search_path = '' as $$
  insert into public.audit_log (actor_id, action, target_user, target, before, after, reason)
  values (auth.uid(), p_action, p_target_user, p_target, p_before, p_after, p_reason)
$$;

create or replace function private.require_admin() returns uuid
language plpgsql stable security definer set search_path = '' as $$
begin
  if not private.is_admin() then raise exception 'Admin privileges required.' using errcode = '42501'; end if;
  return auth.uid();
end $$;

-- The categories a person may list under (spec section 3): one list, read by the browser.
create table public.categories (name text primary key, position smallint not null unique);
insert into public.categories (name, position) values
  ('Tech Influencer', 1), ('Business Leader', 2), ('Fitness Coach', 3), ('Content Creator', 4), ('Crypto Expert', 5), ('Designer', 6);
alter table public.categories enable row level security;
create policy "categories are visible to signed-in users" on public.categories for select to authenticated using (true);
revoke all on public.categories from anon;
revoke insert, update, delete, truncate on public.categories from authenticated;

-- Applications for a token.
create table public.token_applications (
  id bigint generated always as identity primary key,
  user_id uuid not null references public.profiles (id) on delete cascade,
  display_name text not null check (char_length(display_name) between 2 and 80),
  category text not null references public.categories (name),
  bio text not null default '' check (char_length(bio) <= 500),
  -- [{"platform": "x", "handle": "alexr", "url": "https://x.com/alexr"}]
  socials jsonb not null default '[]' check (jsonb_typeof(socials) = 'array'),
  status text not null default 'pending' check (status in ('pending', 'approved', 'rejected')),
  reason text,
  token_id uuid references public.tokens (id),
  decided_by uuid references public.profiles (id),
  decided_at timestamptz,
  created_at timestamptz not null default now()
);
create unique index token_applications_one_pending_idx on public.token_applications (user_id) where status = 'pending';
create index token_applications_status_idx on public.token_applications (status, created_at);
alter table public.token_applications enable row level security;
create policy "own applications" on public.token_applications for select to authenticated using (user_id = auth.uid() or private.is_admin());
revoke all on public.token_applications from anon;
revoke insert, update, delete, truncate on public.token_applications from authenticated;

create trigger token_applications_notify after insert or update on public.token_applications
  for each row execute function private.notify_realtime();
do $$
begin
  if exists (select 1 from pg_publication where pubname = 'supabase_realtime') then
    execute 'alter publication supabase_realtime add table public.token_applications';
  end if;
end $$;

-- Social handles become links; no social API is called (the machines have no outside network).
create or replace function private.social_links(p_socials jsonb) returns jsonb
language plpgsql immutable set search_path = '' as $$
declare
  bases constant jsonb := '{"x": "https://x.com/", "instagram": "https://instagram.com/", "youtube": "https://youtube.com/@",
                            "tiktok": "https://tiktok.com/@", "linkedin": "https://linkedin.com/in/"}';
  links jsonb := '[]';
  k text;
  handle text;
begin
  if p_socials is null or p_socials = 'null'::jsonb then return links; end if;
  if jsonb_typeof(p_socials) <> 'object' then perform private.refuse('Social handles must be given per platform.'); end if;
  for k, handle in select key, trim(leading '@' from trim(value #>> '{}')) from jsonb_each(p_socials) loop
    if not bases ? k then perform private.refuse(format('%s is not a supported platform: use x, instagram, youtube, tiktok or linkedin.', k)); end if;
    continue when handle = '';
    if handle !~ '^[A-Za-z0-9_.-]{1,50}$' then
      perform private.refuse(format('The %s handle "%s" is not valid: letters, digits, dots, dashes and underscores only.', k, handle));
    end if;
    links := links || jsonb_build_object('platform', k, 'handle', handle, 'url', (bases ->> k) || handle);
  end loop;
  return links;
end $$;

create or replace function public.apply_for_token(p_display_name text, p_category text, p_bio text default '', p_socials jsonb default '{}')
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.active_caller();
  app public.token_applications;
begin
  perform 1 from public.profiles where id = uid for update; -- one application at a time per person
  if exists (select 1 from public.tokens where owner_id = uid) then perform private.refuse('You already have a token.'); end if;
  if exists (select 1 from public.token_applications where user_id = uid and status = 'pending') then
    perform private.refuse('Your application is already waiting for review.');
  end if;
  if char_length(trim(coalesce(p_display_name, ''))) not between 2 and 80 then
    perform private.refuse('The display name needs 2 to 80 characters.');
  end if;
  if not exists (select 1 from public.categories where name = p_category) then
    perform private.refuse('Choose one of the categories.');
  end if;
  if char_length(coalesce(p_bio, '')) > 500 then perform private.refuse('The bio has at most 500 characters.'); end if;
  insert into public.token_applications (user_id, display_name, category, bio, socials)
  values (uid, trim(p_display_name), p_category, coalesce(trim(p_bio), ''), private.social_links(p_socials))
  returning * into app;
  return to_jsonb(app);
end $$;

-- Admin: applications, oldest first.
create or replace function public.admin_list_applications(p_status text default 'pending')
returns table (id bigint, user_id uuid, username text, email text, display_name text, category text, bio text, socials jsonb,
               status text, reason text, token_id uuid, created_at timestamptz, decided_at timestamptz)
language plpgsql stable security definer set search_path = '' as $$
begin
  perform private.require_admin();
  return query
    select a.id, a.user_id, p.username, u.email::text, a.display_name, a.category, a.bio, a.socials, a.status, a.reason, a.token_id, a.created_at, a.decided_at
    from public.token_applications a join public.profiles p on p.id = a.user_id join auth.users u on u.id = a.user_id
    where p_status is null or a.status = p_status
    order by a.created_at, a.id
    limit 500;
end $$;

-- Approval issues the token in this one transaction: supply, founder allocation, and the offering
-- of the rest at the issue price on the order book. It is on the market at once.
create or replace function public.admin_approve_application(p_id bigint, p_total_supply bigint default null, p_issue_price numeric default null)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  admin uuid := private.require_admin();
  s public.exchange_settings;
  app public.token_applications;
  owner public.profiles;
  supply bigint;
  price numeric;
  founder bigint;
  tok uuid;
begin
  select * into app from public.token_applications where id = p_id for update;
  if not found then perform private.refuse('There is no such application.'); end if;
  if app.status <> 'pending' then perform private.refuse(format('This application was already %s.', app.status)); end if;
  select * into owner from public.profiles where id = app.user_id for update;
  if owner.status <> 'active' then perform private.refuse('The applicant''s account is suspended.'); end if;
  if exists (select 1 from public.tokens where owner_id = app.user_id) then perform private.refuse('The applicant already has a token.'); end if;
  select * into s from public.exchange_settings;
  supply := coalesce(p_total_supply, s.token_supply);
  price := coalesce(p_issue_price, s.token_issue_price);
  if supply < 1000 or supply > 1000000000 then perform private.refuse('The total supply must be between 1,000 and 1,000,000,000 tokens.'); end if;
  if price <= 0 or price > 1000000 or price <> round(price, 2) then
    perform private.refuse('The issue price must be between $0.01 and $1,000,000.00, in cents.');
  end if;
  if exists (select 1 from public.tokens where lower(username) = lower(owner.username)) then
    perform private.refuse(format('A token named @%s already exists.', owner.username));
  end if;
  founder := floor(supply * s.token_founder_bps / 10000.0)::bigint;

  insert into public.tokens (owner_id, name, username, category, reputation_score, total_supply, issue_price, avatar_url, verified)
  values (app.user_id, app.display_name, owner.username, app.category, 0, supply, price, owner.avatar_url, owner.verified)
  returning id into tok;
  if founder > 0 then perform private.issue_tokens(tok, app.user_id, founder); end if;
  -- Its first score, by the formula (reputation score migration), and the month's history point.
  update public.tokens set reputation_score = (public.reputation_components(tok) ->> 'score')::numeric where id = tok;
  insert into public.reputation_history (token_id, month, score)
  select tok, date_trunc('month', now())::date, reputation_score from public.tokens where id = tok;
  if supply > founder then
    perform private.issue_tokens(tok, private.issuance_account(), supply - founder);
    perform private.rest_order(private.issuance_account(), tok, 'sell', price, supply - founder);
  end if;
  update public.token_applications set status = 'approved', token_id = tok, decided_by = admin, decided_at = now() where id = p_id
  returning * into app;
  insert into public.market_events (token_id, kind) values (tok, 'book');
  perform private.audit('application.approve', app.user_id, 'application ' || p_id, jsonb_build_object('status', 'pending'),
    jsonb_build_object('status', 'approved', 'token_id', tok, 'total_supply', supply, 'issue_price', price, 'founder_allocation', founder));
  return jsonb_build_object('application', to_jsonb(app), 'token_id', tok, 'total_supply', supply, 'issue_price', price,
    'founder_allocation', founder, 'offering', supply - founder);
end $$;

create or replace function public.admin_reject_application(p_id bigint, p_reason text)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  admin uuid := private.require_admin();
  app public.token_applications;
begin
  if char_length(trim(coalesce(p_reason, ''))) not between 3 and 500 then
    perform private.refuse('Give the applicant a reason of 3 to 500 characters.');
  end if;
  select * into app from public.token_applications where id = p_id for update;
  if not found then perform private.refuse('There is no such application.'); end if;
  if app.status <> 'pending' then perform private.refuse(format('This application was already %s.', app.status)); end if;
  update public.token_applications set status = 'rejected', reason = trim(p_reason), decided_by = admin, decided_at = now()
   where id = p_id returning * into app;
  perform private.audit('application.reject', app.user_id, 'application ' || p_id, jsonb_build_object('status', 'pending'),
    jsonb_build_object('status', 'rejected'), trim(p_reason));
  return to_jsonb(app);
end $$;

-- The system account is not a user to manage or count.
create or replace function public.admin_dashboard_stats() returns jsonb
language plpgsql stable security definer set search_path = '' as $$
begin
  perform private.require_admin();
  return jsonb_build_object(
    'total_users', (select count(*) from public.profiles where role <> 'system'),
    'active_users', (select count(*) from public.profiles where role <> 'system' and status = 'active'),
    'suspended_users', (select count(*) from public.profiles where status = 'suspended'),
    'fraud_alerts', (select count(*) from private.fraud_alerts),
    'daily_volume', (select coalesce(sum(round(price * amount, 2)), 0) from public.trades where created_at > now() - interval '24 hours'),
    'revenue_24h', (select coalesce(sum(buyer_fee + seller_fee), 0) from public.trades where created_at > now() - interval '24 hours'),
    'trades_24h', (select count(*) from public.trades where created_at > now() - interval '24 hours'),
    'pending_applications', (select count(*) from public.token_applications where status = 'pending')
  );
end $$;

revoke execute on function public.apply_for_token(text, text, text, jsonb), public.admin_list_applications(text),
  public.admin_approve_application(bigint, bigint, numeric), public.admin_reject_application(bigint, text) from public, anon;
grant execute on function public.apply_for_token(text, text, text, jsonb), public.admin_list_applications(text),
  public.admin_approve_application(bigint, bigint, numeric), public.admin_reject_application(bigint, text) to authenticated;
revoke all on function private.audit(text, uuid, text, jsonb, jsonb, text), private.require_admin(),
  private.social_links(jsonb), private.forbid_audit_change() from public;
