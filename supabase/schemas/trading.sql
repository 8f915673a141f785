-- Trading: the order book, its trades and the engine that matches them. Each call is one
-- transaction. The engine is in six files, in the order config.toml applies them:
--
--   trading.sql        orders and trades, the fee, the caller's open orders, the book's views
--   orders.sql         placing an order: place_order, its checks, the book's lock, execute_order
--   matching.sql       matching against the book and settling the fills (the one place money and
--                      tokens move in a trade)
--   quotes.sql         what an order would do now (quote_order), walked by the engine's rules
--   stops.sql          stops and their triggering, take-profit and stop pairs, expiry
--   order_changes.sql  cancelling, cancelling all, replacing, and a token's trading halt
--
-- The order path:
--
--   place_order = check_order_request -> lock the book -> check_order_funds -> match_order
--                 -> lock the accounts -> settle_fills -> rest what is left -> write the order
--                 -> tell the market and the accounts involved (realtime.sql)
--
-- Matching is price-time priority against the token's book, at the resting order's price.
-- Fees (spec section 9): a share of value on each side (exchange_settings.fee_bps, 2%); the buyer
-- pays value + fee, the seller receives value - fee; both are the exchange's revenue, recorded on
-- the trade row and summed for reports (no hot 'fees' row).
--
-- Locking follows one order (docs/database.md): the person's row (for a count kept per person),
-- the books in token order, the resting orders of a book as the match reaches them, then the cash
-- accounts and the holdings of every account involved, in ascending user id.
--
-- Self-trade policy (expire maker, as common exchanges and nodejs-order-book define it): an order
-- never trades with its owner's own resting orders; each one the order meets while matching is
-- cancelled, its reservation released, and matching goes on. The book never crosses.
--
-- Market orders are immediate-or-cancel within a band around the last price: they take the best
-- prices until filled, the book runs out or the band's edge is reached, and never spend more than
-- the buyer's available cash; what cannot fill is cancelled. A market order that cannot fill at
-- all is refused and changes nothing.
--
-- The engine's functions keep one generic plan per connection (plan_cache_mode): none of their
-- statements changes shape with its values (rows are found by key, the book by its index in rank
-- order), and a fresh plan for each of an order's statements costs more than running it.

create table public.orders (
  id bigint generated always as identity primary key,
  user_id uuid not null references public.profiles (id) on delete cascade,
  token_id uuid not null references public.tokens (id) on delete cascade,
  side text not null check (side in ('buy', 'sell')),
  type text not null check (type in ('market', 'limit')),
  price numeric(12, 2) check (price > 0),
  amount bigint not null check (amount > 0),
  filled bigint not null default 0 check (filled >= 0 and filled <= amount),
  -- Cash still held back for a resting buy order (value + fee of what is left, at its limit).
  reserved numeric(14, 2) not null default 0 check (reserved >= 0),
  -- open: on the book; pending: a stop waiting off the book for its trigger; filled, cancelled,
  -- expired (a good-til-date order past its time): closed.
  status text not null default 'open' check (status in ('open', 'pending', 'filled', 'cancelled', 'expired')),
  -- The order's time in the book: taken after the book's lock, so it follows every order before it.
  created_at timestamptz not null default now(),
  -- Fees are charged on each order's cumulative value: a fill pays fee(value filled so far) minus
  -- the fees the order already paid. So an order's fees come to the fee of its whole value, never
  -- a cent more than a resting buy reserved, however it is filled.
  filled_value numeric(14, 2) not null default 0 check (filled_value >= 0),
  fees_paid numeric(14, 2) not null default 0, -- net of a maker's rebates
  -- When the order stopped being open (filled or cancelled): spoofing is about how fast (fraud.sql).
  closed_at timestamptz,
  check ((type = 'limit') = (price is not null)),
  -- How long the order lives (docs/trading.md): gtc until cancelled, ioc fills what crosses and
  -- cancels the rest, fok fills entirely at once or is refused, gtd until expires_at.
  time_in_force text not null default 'gtc' check (time_in_force in ('gtc', 'ioc', 'fok', 'gtd')),
  expires_at timestamptz,
  -- A post-only order was refused if it would have taken liquidity: it only ever made it.
  post_only boolean not null default false,
  -- A stop: off the book until the last trade price reaches stop_price (at or above it for a buy,
  -- at or below it for a sell); then it enters the book as its type, at triggered_at.
  stop_price numeric(12, 2) check (stop_price > 0),
  triggered_at timestamptz,
  -- One-cancels-the-other: the take-profit limit and the stop of one pair name each other.
  oco_with bigint,
  check ((time_in_force = 'gtd') = (expires_at is not null)),
  check (status <> 'pending' or stop_price is not null)
);
create index orders_user_idx on public.orders (user_id, created_at desc);
-- The book, each side best first: rank is the price for asks and minus the price for bids, then
-- oldest first, then id (price-time priority). The match scans the other side in this order and
-- its price limit bounds the scan; the order book view reads the same index.
create index orders_book_rank_idx on public.orders
  (token_id, side, (case when side = 'buy' then -price else price end), created_at, id) where status = 'open';
-- A user's open orders newest first, all tokens or one: each list read in its index's order, so a
-- page stops at its end (list_open_orders).
create index orders_open_user_rank_idx on public.orders (user_id, created_at desc, id desc) where status in ('open', 'pending');
create index orders_open_user_token_idx on public.orders (user_id, token_id, created_at desc, id desc) where status in ('open', 'pending');
-- Each book's waiting stops, the one its trigger crossed first at the head: the lowest buy
-- trigger, the highest sell trigger, then the oldest (private.trigger_stops).
create index orders_stops_idx on public.orders
  (token_id, side, (case when side = 'buy' then stop_price else -stop_price end), id) where status = 'pending';
-- Each token's orders that closed without trading, by time (token_integrity's cancel-to-fill
-- count). Partial: a row enters it only when an order is cancelled or expires unfilled, an update
-- that writes every index of the row anyway; orders placed and filled never do.
create index orders_unfilled_closed_idx on public.orders (token_id, created_at)
  where status in ('cancelled', 'expired') and filled = 0;
-- Every order of a recent window (the fraud scan's spoofing and cancel counts): orders are written
-- in time order, so BRIN, as for trades; an order's row moved by an update mostly stays among its
-- neighbours in time.
create index orders_time_brin_idx on public.orders using brin (created_at);
-- Good-til-date orders still live, soonest first (private.expire_orders).
create index orders_expiry_idx on public.orders (expires_at) where status in ('open', 'pending') and expires_at is not null;
alter table public.orders enable row level security;
create policy "own orders" on public.orders
  for select to authenticated using (user_id = (select auth.uid()) or (select private.is_admin()));
revoke all on public.orders from anon;
revoke insert, update, delete, truncate on public.orders from authenticated;

-- A trade's value: price x tokens, rounded half up to the cent. Its one definition, read by the
-- trades' generated column and by the engine before a trade exists (an order's cost, a fill).
create function private.trade_value(price numeric, amount numeric) returns numeric
language sql immutable parallel safe as $$ select round(price * amount, 2) $$;
revoke execute on function private.trade_value(numeric, numeric) from public;

-- The exchange's fee rate, read once per order so that the fees and their record agree; and the
-- fee on `value` at `bps` basis points, rounded half up to the cent.
create function private.fee_bps() returns integer
language plpgsql stable security definer set search_path = '' as $$
declare
  bps integer;
begin
  select fee_bps into bps from public.exchange_settings;
  return bps;
end $$;
revoke execute on function private.fee_bps() from public;
create function private.fee(value numeric, bps integer) returns numeric
language sql immutable as $$ select round(value * bps / 10000.0, 2) $$;
revoke execute on function private.fee(numeric, integer) from public;

-- What buying `amount` at `price` costs: its value and the fee on it at `bps`.
create function private.buy_cost(price numeric, amount numeric, bps integer) returns numeric
language sql immutable as $$ select private.trade_value(price, amount) + private.fee(private.trade_value(price, amount), bps) $$;
revoke execute on function private.buy_cost(numeric, numeric, integer) from public;

-- Every fill. Both fees are recorded with the rate they were charged at.
create table public.trades (
  id bigint generated always as identity primary key,
  token_id uuid not null references public.tokens (id) on delete cascade,
  -- An order is written once it is settled (place_order), after the trades that name it: these
  -- references are checked at commit.
  buy_order_id bigint references public.orders (id) deferrable initially deferred,
  sell_order_id bigint references public.orders (id) deferrable initially deferred,
  buyer_id uuid not null references public.profiles (id),
  seller_id uuid not null references public.profiles (id),
  price numeric(12, 2) not null check (price > 0),
  amount bigint not null check (amount > 0),
  value numeric generated always as (private.trade_value(price, amount)) stored,
  taker_side text not null check (taker_side in ('buy', 'sell')),
  -- A maker's fee is negative when it is a rebate; the two never sum below zero.
  buyer_fee numeric(14, 2) not null,
  seller_fee numeric(14, 2) not null,
  created_at timestamptz not null default now(),
  -- The taker's rate (the maker's is maker_fee_bps).
  fee_bps integer not null check (fee_bps between 0 and 1000),
  -- Who receives a sale's proceeds when it is not the seller: the person behind an offering.
  proceeds_to uuid references public.profiles (id),
  -- The person behind the token, credited creator_share of the two fees in the trade's transaction
  -- (exchange_settings.creator_fee_share_bps); the exchange keeps the rest.
  creator_id uuid references public.profiles (id),
  creator_share numeric(14, 2) not null default 0 check (creator_share >= 0 and creator_share <= buyer_fee + seller_fee),
  -- The maker's rate (null on trades settled before makers had their own).
  maker_fee_bps integer check (maker_fee_bps between -1000 and 1000),
  check (buyer_fee + seller_fee >= 0),
  check (buyer_id <> seller_id)
);
create index trades_token_time_idx on public.trades (token_id, created_at desc, id desc);
create index trades_buyer_idx on public.trades (buyer_id, created_at desc);
create index trades_seller_idx on public.trades (seller_id, created_at desc);
create index trades_proceeds_idx on public.trades (proceeds_to, created_at desc) where proceeds_to is not null;
create index trades_creator_idx on public.trades (creator_id, created_at desc) where creator_share > 0;
-- Every trade of a recent window, whatever the token or the account: the fraud scan's each minute,
-- the admin's dashboard and revenue. Trades are written in time order, so a BRIN index keeps each
-- range of pages' first and last time in a few pages, and such a read skips the older history; it
-- costs an order almost nothing, since the newest pages are not summarized until vacuum does it.
create index trades_time_brin_idx on public.trades using brin (created_at);

-- What a trade's taker paid in fees (its maker paid the rest of the two, or was rebated it).
create function private.taker_fee(t public.trades) returns numeric
language sql immutable as $$ select case when t.taker_side = 'buy' then t.buyer_fee else t.seller_fee end $$;
revoke execute on function private.taker_fee(public.trades) from public;
alter table public.trades enable row level security;
create policy "own trades" on public.trades
  for select to authenticated
  using (buyer_id = (select auth.uid()) or seller_id = (select auth.uid()) or proceeds_to = (select auth.uid())
         or creator_id = (select auth.uid()) or (select private.is_admin()));
revoke all on public.trades from anon;
revoke insert, update, delete, truncate on public.trades from authenticated;

-- The caller's open orders, newest first, all tokens or one, a page at a time. Each case has its
-- own statement and its own index holding the list's whole order, so the kept generic plan walks
-- the index in order and stops at the page's end.
create function public.list_open_orders(p_token uuid default null, p_limit integer default 100, p_offset integer default 0)
returns setof public.orders
language plpgsql stable security invoker set search_path = '' set plan_cache_mode = force_generic_plan as $$
begin
  if p_token is null then
    return query
    select * from public.orders
    where user_id = (select auth.uid()) and status in ('open', 'pending')
    order by created_at desc, id desc
    limit least(greatest(coalesce(p_limit, 100), 1), 500) offset greatest(coalesce(p_offset, 0), 0);
  else
    return query
    select * from public.orders
    where user_id = (select auth.uid()) and status in ('open', 'pending') and token_id = p_token
    order by created_at desc, id desc
    limit least(greatest(coalesce(p_limit, 100), 1), 500) offset greatest(coalesce(p_offset, 0), 0);
  end if;
end $$;
revoke execute on function public.list_open_orders(uuid, integer, integer) from public, anon;

-- What screens read of the book and the tape. Public aggregates (no account is named) are plain
-- views, which read as their owner; views of one account's data are security_invoker, so
-- row-level security applies to the reader.

-- Open limit orders, aggregated per price level: what an order book shows.
create view public.order_book as
select token_id, side, price, sum(amount - filled)::bigint as amount, count(*)::int as orders
from public.orders
where status = 'open' and type = 'limit'
group by token_id, side, price;
revoke all on public.order_book from anon;
revoke insert, update, delete, truncate on public.order_book from authenticated;

-- The tape: trades without the names of the accounts.
create view public.recent_trades as
select id, token_id, price, amount, value, taker_side as type, created_at from public.trades;
revoke all on public.recent_trades from anon;
revoke insert, update, delete, truncate on public.recent_trades from authenticated;

-- The signed-in account's trades, from its own side: a buy costs value + fee, a sell yields value - fee
-- (a maker's rebate is a negative fee).
create view public.my_trades with (security_invoker = true) as
select
  tr.id,
  tr.token_id,
  t.name,
  t.username,
  case when tr.buyer_id = auth.uid() then 'buy' else 'sell' end as type,
  tr.amount,
  tr.price,
  tr.value,
  case when tr.buyer_id = auth.uid() then tr.buyer_fee else tr.seller_fee end as fee,
  case when tr.buyer_id = auth.uid() then tr.value + tr.buyer_fee else tr.value - tr.seller_fee end as total,
  tr.created_at,
  -- Whether the account's order traded at once (taker) or waited in the book (maker): which fee applied.
  case when (tr.buyer_id = auth.uid()) = (tr.taker_side = 'buy') then 'taker' else 'maker' end as liquidity
from public.trades tr
join public.tokens t on t.id = tr.token_id
where tr.buyer_id = auth.uid() or tr.seller_id = auth.uid();
revoke all on public.my_trades from anon;
revoke insert, update, delete, truncate on public.my_trades from authenticated;
