-- Everything a screen shows about a token is derived here from trades, orders and holdings.
-- Public aggregates (no account is named) are plain views, which read as their owner; views
-- of one account's data are security_invoker, so row-level security applies to the reader.

-- Open limit orders, aggregated per price level: what an order book shows.
create or replace view public.order_book as
select token_id, side, price, sum(amount - filled)::bigint as amount, count(*)::int as orders
from public.orders
where status = 'open' and type = 'limit'
group by token_id, side, price;

-- The tape: trades without the names of the accounts.
create or replace view public.recent_trades as
select id, token_id, price, amount, value, taker_side as type, created_at from public.trades;

-- Hourly closing prices of a token over the last `hours` hours (spec: price chart, hourly points).
-- An hour without trades carries the previous close forward.
create or replace function public.price_history(p_token uuid, p_hours integer default 24)
returns table (bucket timestamptz, price numeric)
language sql stable security definer set search_path = '' as $$
  with hours as (
    select generate_series(date_trunc('hour', now()) - make_interval(hours => least(greatest(p_hours, 1), 720) - 1),
                           date_trunc('hour', now()), interval '1 hour') as bucket
  )
  select h.bucket,
         coalesce(
           (select tr.price from public.trades tr
             where tr.token_id = p_token and tr.created_at < h.bucket + interval '1 hour'
             order by tr.created_at desc, tr.id desc limit 1),
           (select t.issue_price from public.tokens t where t.id = p_token)) as price
  from hours h
  order by h.bucket
$$;

-- The signed-in account's trades, from its own side: a buy costs value + fee, a sell yields value - fee.
create or replace view public.my_trades with (security_invoker = true) as
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
  tr.created_at
from public.trades tr
join public.tokens t on t.id = tr.token_id
where tr.buyer_id = auth.uid() or tr.seller_id = auth.uid();
