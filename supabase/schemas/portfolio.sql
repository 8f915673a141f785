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

-- The caller's open positions: the tokens they hold (from holdings), their cost, value and P&L,
-- and whether the exchange halted trading in them.
create function public.my_positions()
returns table (token_id uuid, name text, username text, category text, avatar_url text, verified boolean,
               tokens bigint, avg_price numeric, cost numeric, price numeric, value numeric, pnl numeric, pnl_percent numeric,
               halted boolean)
language plpgsql stable security definer set search_path = '' as $$
#variable_conflict use_column
begin
  perform private.require_second_step();
  return query
  select h.token_id, m.name, m.username, m.category, m.avatar_url, m.verified, h.amount,
         round(coalesce(b.cost, 0) / h.amount, 2), round(coalesce(b.cost, 0), 2), m.price,
         round(h.amount * m.price, 2), round(h.amount * m.price, 2) - round(coalesce(b.cost, 0), 2),
         case when coalesce(b.cost, 0) > 0 then round((h.amount * m.price - b.cost) / b.cost * 100, 2) else 0 end,
         m.halted
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

-- One account's trades up to `p_at`, its own token left out (they received it): what the cost
-- basis and the lots fold over, token by token (`order by token_id, created_at, id`), so a fold
-- keeps one token's state at a time.
create function private.account_trades(p_user uuid, p_at timestamptz)
returns table (id bigint, token_id uuid, created_at timestamptz, bought boolean, amount bigint, value numeric, fee numeric)
language sql stable security definer set search_path = '' as $$
  select tr.id, tr.token_id, tr.created_at, tr.buyer_id = p_user, tr.amount, tr.value,
         case when tr.buyer_id = p_user then tr.buyer_fee else tr.seller_fee end
  from public.trades tr
  where (tr.buyer_id = p_user or tr.seller_id = p_user) and tr.created_at <= p_at
    and tr.token_id is distinct from (select k.id from public.tokens k where k.owner_id = p_user)
$$;
revoke execute on function private.account_trades(uuid, timestamp with time zone) from public;

-- The average-cost fold over one account's trades up to `p_at`: per token, what is still held by
-- trades, its cost, and what was realized.
create function private.cost_basis(p_user uuid, p_at timestamptz)
returns table (token_id uuid, tokens bigint, cost numeric, realized numeric)
language plpgsql stable security definer set search_path = '' as $$
declare
  t record;
  current_token uuid;
  held bigint;
  c numeric;
  r numeric;
  sold bigint;
  released numeric;
begin
  for t in select a.* from private.account_trades(p_user, p_at) a order by a.token_id, a.created_at, a.id loop
    if current_token is distinct from t.token_id then
      if current_token is not null then
        token_id := current_token; tokens := held; cost := c; realized := r;
        return next;
      end if;
      current_token := t.token_id; held := 0; c := 0; r := 0;
    end if;
    if t.bought then
      held := held + t.amount;
      c := c + t.value + t.fee;
    elsif held > 0 then
      sold := least(t.amount, held);
      released := c / held * sold;
      r := r + (t.value - t.fee) * sold / t.amount - released;
      c := c - released;
      held := held - sold;
    end if;
  end loop;
  if current_token is not null then
    token_id := current_token; tokens := held; cost := c; realized := r;
    return next;
  end if;
end $$;
revoke execute on function private.cost_basis(uuid, timestamp with time zone) from public;

-- Realized gains lot by lot, first in first out, for statements and the portfolio analysis (the
-- dashboard's P&L uses the average cost above). Each buy is a lot, its fee part of its cost; each
-- sale takes the oldest lots first, and each piece it takes is a row: the tokens, the lot's cost
-- for them, the sale's value and fee shared by tokens, and the gain (proceeds - fees - cost).
-- Tokens sold beyond the lots (none: the offering gives a person their own token, left out here)
-- are not a lot's. Full precision: a reader rounds to the cent. One token's lots at a time, in
-- arrays with a head index, so each trade costs the same however many lots came before.
create function private.fifo_lots(p_user uuid, p_at timestamptz)
returns table (token_id uuid, bought_at timestamptz, sold_at timestamptz, tokens bigint, cost numeric,
               proceeds numeric, fees numeric, gain numeric)
language plpgsql stable security definer set search_path = '' as $$
declare
  t record;
  current_token uuid;
  lot_at timestamptz[];
  lot_left bigint[];
  lot_unit numeric[];
  head integer;
  lots integer;
  left_in_sale bigint;
  piece bigint;
begin
  for t in select a.* from private.account_trades(p_user, p_at) a order by a.token_id, a.created_at, a.id loop
    if current_token is distinct from t.token_id then
      current_token := t.token_id; lot_at := '{}'; lot_left := '{}'; lot_unit := '{}'; head := 1; lots := 0;
    end if;
    if t.bought then
      lots := lots + 1;
      lot_at[lots] := t.created_at;
      lot_left[lots] := t.amount;
      lot_unit[lots] := (t.value + t.fee) / t.amount;
    else
      left_in_sale := t.amount;
      while left_in_sale > 0 and head <= lots loop
        piece := least(left_in_sale, lot_left[head]);
        token_id := t.token_id;
        bought_at := lot_at[head];
        sold_at := t.created_at;
        tokens := piece;
        cost := lot_unit[head] * piece;
        proceeds := t.value * piece / t.amount;
        fees := t.fee * piece / t.amount;
        gain := proceeds - fees - cost;
        return next;
        left_in_sale := left_in_sale - piece;
        lot_left[head] := lot_left[head] - piece;
        if lot_left[head] = 0 then head := head + 1; end if;
      end loop;
    end if;
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

-- A new person's first steps, for the dashboard's checklist: whether they have put money in,
-- traded, connected a social account and asked for their own token; and whether they are new
-- (joined within 30 days), the only ones the dashboard shows the list to. One read, by key.
create function public.my_first_steps() returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  uid uuid := private.active_caller();
begin
  return jsonb_build_object(
    'new', (select p.created_at > now() - interval '30 days' from public.profiles p where p.id = uid),
    'deposited', exists (select 1 from public.wallet_transactions w
                          where w.user_id = uid and w.type = 'deposit' and w.status = 'completed'),
    'traded', exists (select 1 from public.trades t where t.buyer_id = uid)
              or exists (select 1 from public.trades t where t.seller_id = uid),
    'connected', exists (select 1 from public.social_accounts a where a.user_id = uid and a.status = 'connected'),
    'applied', exists (select 1 from public.token_applications a where a.user_id = uid)
               or exists (select 1 from public.tokens k where k.owner_id = uid));
end $$;
revoke execute on function public.my_first_steps() from public, anon;
