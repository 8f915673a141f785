-- The wallet's P&L keeps its plans. my_pnl stayed a SQL function (20261123002500 only took its JIT
-- away), and with `set search_path` a SQL function is never inlined: PostgreSQL planned its body at
-- every call, and price_at, called for each held token on each of the 30 days, planned its own
-- body again in every call of my_pnl. As PL/pgSQL both keep their plans for the connection.
-- Measured in-process for the demo trader (2026-11-24, p50 of 50, two rounds): 2.16-2.23 ms to
-- 1.57-1.62 ms on PostgreSQL, 3.1-3.5 to 3.1-3.2 ms on PGlite. Bodies and results as in
-- 20261122001000.
create or replace function private.price_at(p_token uuid, p_at timestamptz) returns numeric
language plpgsql stable security definer set search_path = '' as $$
begin
  return coalesce(
    (select tr.price from public.trades tr where tr.token_id = p_token and tr.created_at <= p_at order by tr.created_at desc, tr.id desc limit 1),
    (select k.issue_price from public.tokens k where k.id = p_token));
end $$;

create or replace function public.my_pnl(p_days integer default 30)
returns table (at timestamptz, realized numeric, unrealized numeric, invested numeric, value numeric)
language plpgsql stable security definer set search_path = '' set jit = off as $$
#variable_conflict use_column
begin
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
