-- The trading engine: place, cancel and list orders, each call one transaction.
--
-- Matching is price-time priority against the token's book, at the resting order's price.
-- Fees (spec section 9): 2% of value on each side; the buyer pays value + fee, the seller
-- receives value - fee; both are the exchange's revenue, recorded on the trade row.
--
-- Locking, always in this order, so there are no deadlocks:
--   1. the token row (one book at a time: two orders for one token never take the same liquidity),
--   2. the resting orders of that book,
--   3. the cash accounts, then the holdings, of every account involved, in ascending user id.
--
-- Self-trade policy (expire maker, as common exchanges and nodejs-order-book define it): an order
-- never trades with its owner's own resting orders; each one the order meets while matching is
-- cancelled, its reservation released, and matching goes on. The book never crosses.
--
-- Market orders are immediate-or-cancel: they take the best prices until filled or the book is
-- empty, and never spend more than the buyer's available cash; what cannot fill is cancelled.
-- A market order that cannot fill at all is refused and changes nothing.

-- A public signal that a book or the tape changed: it names no account, so any signed-in user may
-- follow it. It is not announced by NOTIFY inside the trading transaction: on PostgreSQL every
-- notifying commit takes one global lock, which would serialize all trading. Readers follow it by
-- id instead (the local server's Realtime polls it; Supabase Realtime reads the publication).
-- Tables that change now and then keep their NOTIFY (private.notify_realtime).
create table public.market_events (
  id bigint generated always as identity primary key,
  token_id uuid not null references public.tokens (id) on delete cascade,
  kind text not null check (kind in ('trade', 'book')),
  created_at timestamptz not null default now()
);
create index market_events_time_idx on public.market_events (created_at);
alter table public.market_events enable row level security;
create policy "market events are visible to signed-in users" on public.market_events
  for select to authenticated using (true);
revoke all on public.market_events from anon;
revoke insert, update, delete, truncate on public.market_events from authenticated;

create or replace function private.notify_realtime() returns trigger
language plpgsql as $$
begin
  perform pg_notify('repx_realtime', json_build_object(
    'schema', tg_table_schema, 'table', tg_table_name, 'type', tg_op,
    'commit_timestamp', to_char(now() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'record', to_jsonb(new))::text);
  return null;
end $$;

-- Adds a table to Supabase Realtime's publication where there is one (a hosted project); the
-- local server relays the changes itself.
create function private.publish_realtime(p_table regclass) returns void
language plpgsql as $$
begin
  if exists (select 1 from pg_publication where pubname = 'supabase_realtime') then
    execute format('alter publication supabase_realtime add table %s', p_table);
  end if;
end $$;
select private.publish_realtime('public.market_events');

-- Money in messages: $30,600.00
create or replace function private.money(n numeric) returns text
language sql immutable as $$ select '$' || to_char(n, 'FM999,999,999,990.00') $$;

-- Cancels an open order and releases what it held back.
create or replace function private.release_order(p_order bigint) returns void
language plpgsql security definer set search_path = '' as $$
declare
  o public.orders;
begin
  select * into o from public.orders where id = p_order for update;
  if o.status <> 'open' then return; end if;
  if o.side = 'buy' then
    update public.cash_accounts set reserved = reserved - o.reserved, available = available + o.reserved where user_id = o.user_id;
  else
    update public.holdings set reserved = reserved - (o.amount - o.filled) where user_id = o.user_id and token_id = o.token_id;
  end if;
  update public.orders set status = 'cancelled', reserved = 0 where id = p_order;
end $$;

create or replace function public.cancel_order(p_order bigint) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := auth.uid();
  o public.orders;
begin
  if uid is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
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

revoke execute on function public.cancel_order(bigint) from public, anon;
grant execute on function public.cancel_order(bigint) to authenticated;
revoke all on function private.release_order(bigint), private.money(numeric), private.notify_realtime(), private.publish_realtime(regclass)
  from public;
