-- Positions and profit & loss, computed in the database (one owner for what a person owns and
-- what it cost them). Average cost: a buy adds its total (value + fee) to the position's cost; a
-- sell releases the average cost of the tokens sold and realizes (value - fee) minus that cost.
-- A person's own token is not an investment (they received it): the profile shows it instead.

-- The fold over one account's trades up to `p_at`: per token, what is still held by trades, its
-- cost, and what was realized.
create or replace function private.cost_basis(p_user uuid, p_at timestamptz)
returns table (token_id uuid, tokens bigint, cost numeric, realized numeric)
language plpgsql stable security definer set search_path = '' as $$
declare
  t record;
  pos jsonb := '{}';
  p jsonb;
  held bigint;
  c numeric;
  r numeric;
  sold bigint;
  released numeric;
begin
  for t in
    select tr.token_id, tr.amount, tr.value, tr.buyer_fee, tr.seller_fee, tr.buyer_id = p_user as bought
    from public.trades tr
    where (tr.buyer_id = p_user or tr.seller_id = p_user) and tr.created_at <= p_at
      and tr.token_id is distinct from (select k.id from public.tokens k where k.owner_id = p_user)
    order by tr.created_at, tr.id
  loop
    p := coalesce(pos -> t.token_id::text, '{"tokens": 0, "cost": 0, "realized": 0}');
    held := (p ->> 'tokens')::bigint;
    c := (p ->> 'cost')::numeric;
    r := (p ->> 'realized')::numeric;
    if t.bought then
      held := held + t.amount;
      c := c + t.value + t.buyer_fee;
    elsif held > 0 then
      sold := least(t.amount, held);
      released := c / held * sold;
      r := r + (t.value - t.seller_fee) * sold / t.amount - released;
      c := c - released;
      held := held - sold;
    end if;
    pos := pos || jsonb_build_object(t.token_id::text, jsonb_build_object('tokens', held, 'cost', c, 'realized', r));
  end loop;
  return query select k::uuid, (v ->> 'tokens')::bigint, (v ->> 'cost')::numeric, (v ->> 'realized')::numeric from jsonb_each(pos) e(k, v);
end $$;

-- A token's price at a moment: its last trade then, else its issue price.
create or replace function private.price_at(p_token uuid, p_at timestamptz) returns numeric
language sql stable security definer set search_path = '' as $$
  select coalesce(
    (select tr.price from public.trades tr where tr.token_id = p_token and tr.created_at <= p_at order by tr.created_at desc, tr.id desc limit 1),
    (select k.issue_price from public.tokens k where k.id = p_token))
$$;

-- The caller's open positions: the tokens they hold (from holdings), their cost, value and P&L.
-- It reads public.market_tokens, which the market-stats migration defines (after this one), so its
-- body is checked when it is first called rather than now, as pg_dump's own scripts do.
set local check_function_bodies = off;
create or replace function public.my_positions()
returns table (token_id uuid, name text, username text, category text, avatar_url text, verified boolean,
               tokens bigint, avg_price numeric, cost numeric, price numeric, value numeric, pnl numeric, pnl_percent numeric)
language sql stable security definer set search_path = '' as $$
  select h.token_id, m.name, m.username, m.category, m.avatar_url, m.verified, h.amount,
         round(coalesce(b.cost, 0) / h.amount, 2), round(coalesce(b.cost, 0), 2), m.price,
         round(h.amount * m.price, 2), round(h.amount * m.price, 2) - round(coalesce(b.cost, 0), 2),
         case when coalesce(b.cost, 0) > 0 then round((h.amount * m.price - b.cost) / b.cost * 100, 2) else 0 end
  from public.holdings h
  join public.market_tokens m on m.id = h.token_id
  left join private.cost_basis(auth.uid(), now()) b on b.token_id = h.token_id
  where h.user_id = auth.uid() and h.amount > 0 and m.owner_id is distinct from auth.uid()
  order by round(h.amount * m.price, 2) desc, m.name
$$;
set local check_function_bodies = on;

-- Profit & loss over time, one point at the end of each of the last `p_days` days (the last point
-- is now, and is the dashboard's four figures): realized so far, and unrealized on what was held
-- then at that day's prices.
create or replace function public.my_pnl(p_days integer default 30)
returns table (at timestamptz, realized numeric, unrealized numeric, invested numeric, value numeric)
language sql stable security definer set search_path = '' as $$
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
  order by m.at
$$;

revoke all on function private.cost_basis(uuid, timestamptz), private.price_at(uuid, timestamptz) from public;
revoke execute on function public.my_positions(), public.my_pnl(integer) from public, anon;
grant execute on function public.my_positions(), public.my_pnl(integer) to authenticated;
