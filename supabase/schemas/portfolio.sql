-- Portfolio: what a person owns, what it cost them, and the tokens they watch.
--
-- Positions and profit & loss are computed in the database, the one owner of what a person owns
-- and what it cost them. Average cost: a buy adds its total (value + fee) to the position's cost;
-- a sell releases the average cost of the tokens sold and realizes (value - fee) minus that cost.
-- A person's own token is not an investment (they received it): the profile shows it instead.
-- The read functions are PL/pgSQL so that each connection plans their statements once.

-- The tokens a person follows on the dashboard.
create table public.watchlist (
  user_id uuid not null references public.profiles (id) on delete cascade,
  token_id uuid not null references public.tokens (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (user_id, token_id)
);
alter table public.watchlist enable row level security;
create policy "own watchlist" on public.watchlist
  for select to authenticated using (user_id = (select auth.uid()));
create policy "add to own watchlist" on public.watchlist
  for insert to authenticated with check (user_id = (select auth.uid()));
create policy "remove from own watchlist" on public.watchlist
  for delete to authenticated using (user_id = (select auth.uid()));
revoke all on public.watchlist from anon;
revoke update, truncate on public.watchlist from authenticated;

-- The caller's open positions: the tokens they hold (from holdings), their cost, value and P&L.
create function public.my_positions()
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
revoke execute on function public.my_positions() from public, anon;

-- The caller's P&L at the end of each of the last `p_days` days: realized, unrealized, invested
-- and the positions' value. JIT is off: the plan's estimate (a thousand days of generate_series
-- times a thousand positions, the defaults for function scans) is past every JIT threshold, and
-- compiling its expressions with LLVM costs far more than running a query this small.
create function public.my_pnl(p_days integer default 30)
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
revoke execute on function public.my_pnl(integer) from public, anon;

-- The fold over one account's trades up to `p_at`: per token, what is still held by trades, its
-- cost, and what was realized.
create function private.cost_basis(p_user uuid, p_at timestamptz)
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
revoke execute on function private.cost_basis(uuid, timestamp with time zone) from public;

-- Realized gains lot by lot, first in first out, for statements and the portfolio analysis (the
-- dashboard's P&L uses the average cost above). Each buy is a lot, its fee part of its cost; each
-- sale takes the oldest lots first, and each piece it takes is a row: the tokens, the lot's cost
-- for them, the sale's value and fee shared by tokens, and the gain (proceeds - fees - cost).
-- Tokens sold beyond the lots (none: the offering gives a person their own token, left out here)
-- are not a lot's. Full precision: a reader rounds to the cent.
create function private.fifo_lots(p_user uuid, p_at timestamptz)
returns table (token_id uuid, bought_at timestamptz, sold_at timestamptz, tokens bigint, cost numeric,
               proceeds numeric, fees numeric, gain numeric)
language plpgsql stable security definer set search_path = '' as $$
declare
  t record;
  queues jsonb := '{}';
  queue jsonb;
  lot jsonb;
  left_in_sale bigint;
  piece bigint;
begin
  for t in
    select tr.token_id, tr.created_at, tr.amount, tr.value, tr.buyer_fee, tr.seller_fee, tr.buyer_id = p_user as bought
    from public.trades tr
    where (tr.buyer_id = p_user or tr.seller_id = p_user) and tr.created_at <= p_at
      and tr.token_id is distinct from (select k.id from public.tokens k where k.owner_id = p_user)
    order by tr.created_at, tr.id
  loop
    queue := coalesce(queues -> t.token_id::text, '[]');
    if t.bought then
      queue := queue || jsonb_build_array(jsonb_build_object(
        'at', t.created_at, 'left', t.amount, 'unit', (t.value + t.buyer_fee) / t.amount));
    else
      left_in_sale := t.amount;
      while left_in_sale > 0 and jsonb_array_length(queue) > 0 loop
        lot := queue -> 0;
        piece := least(left_in_sale, (lot ->> 'left')::bigint);
        token_id := t.token_id;
        bought_at := (lot ->> 'at')::timestamptz;
        sold_at := t.created_at;
        tokens := piece;
        cost := (lot ->> 'unit')::numeric * piece;
        proceeds := t.value * piece / t.amount;
        fees := t.seller_fee * piece / t.amount;
        gain := proceeds - fees - cost;
        return next;
        left_in_sale := left_in_sale - piece;
        if piece = (lot ->> 'left')::bigint then
          queue := queue - 0;
        else
          queue := jsonb_set(queue, '{0,left}', to_jsonb((lot ->> 'left')::bigint - piece));
        end if;
      end loop;
    end if;
    queues := queues || jsonb_build_object(t.token_id::text, queue);
  end loop;
end $$;
revoke execute on function private.fifo_lots(uuid, timestamp with time zone) from public;

-- The caller's realized lots (private.fifo_lots) sold within [p_from, p_to], in cents, oldest sale first.
create function public.my_realized_lots(p_from timestamptz default null, p_to timestamptz default null)
returns table (token_id uuid, name text, bought_at timestamptz, sold_at timestamptz, tokens bigint,
               cost numeric, proceeds numeric, fees numeric, gain numeric)
language plpgsql stable security definer set search_path = '' as $$
#variable_conflict use_column
begin
  perform private.require_second_step();
  return query
  select l.token_id, k.name, l.bought_at, l.sold_at, l.tokens, round(l.cost, 2), round(l.proceeds, 2),
         round(l.fees, 2), round(l.proceeds, 2) - round(l.fees, 2) - round(l.cost, 2)
  from private.fifo_lots(auth.uid(), coalesce(p_to, now())) l
  join public.tokens k on k.id = l.token_id
  where p_from is null or l.sold_at >= p_from
  order by l.sold_at, l.bought_at;
end $$;
revoke execute on function public.my_realized_lots(timestamp with time zone, timestamp with time zone) from public, anon;

-- A token's last price at `p_at` (its issue price before its first trade).
create function private.price_at(p_token uuid, p_at timestamptz) returns numeric
language plpgsql stable security definer set search_path = '' as $$
begin
  return coalesce(
    (select tr.price from public.trades tr where tr.token_id = p_token and tr.created_at <= p_at order by tr.created_at desc, tr.id desc limit 1),
    (select k.issue_price from public.tokens k where k.id = p_token));
end $$;
revoke execute on function private.price_at(uuid, timestamp with time zone) from public;
