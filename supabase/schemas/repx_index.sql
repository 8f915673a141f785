-- The RepX index: the market's benchmark, and the basket a recurring buy can invest in.
--
-- Its method (docs/investing.md says it in words):
-- - Members are chosen at each day's rebalance, 00:00 UTC: tokens listed for at least 7 days, not
--   halted, traded at least once in the 30 days before. Fewer than 4 such tokens leave the day
--   before's basket as it was (a cap of 25% needs at least 4).
-- - Weights are market caps at the rebalance, each capped at 25%, what a capped token loses shared
--   among the others in proportion to their caps, until none is above. Market cap, because a
--   benchmark should move as the market's value does; the cap, so that one token is not the index
--   while few are listed. The reputation score is left to traders, who price it already.
-- - The level: each member holds fixed units for the day, and the level is their value, each at
--   its last trade price (its issue price before one). At the rebalance the new units are set at
--   the level the old ones reached, so a rebalance never moves it.
-- - It starts at 1,000 at the first rebalance with 4 members, and is kept at every hour and at
--   every day's close (00:00 UTC, the next day's open).

-- The method's numbers, in one place: the rebalance reads them, and so does the market screen's
-- description of the index.
create function public.index_method(
  out listed_days integer, out traded_days integer, out weight_cap numeric, out base_level numeric, out min_members integer
) language sql immutable set search_path = '' as $$
  -- The fewest members a cap allows: four at 25%.
  select 7, 30, c, 1000::numeric, ceil(1 / c)::integer from (select 0.25::numeric as c) x
$$;
revoke execute on function public.index_method() from public, anon;
grant execute on function public.index_method() to authenticated;

create table public.index_members (
  day date not null,
  token_id uuid not null references public.tokens (id) on delete cascade,
  weight numeric(7, 6) not null check (weight > 0 and weight <= (public.index_method()).weight_cap),
  units numeric not null check (units > 0),
  primary key (day, token_id)
);
alter table public.index_members enable row level security;
create policy "the index's members are visible to signed-in users" on public.index_members
  for select to authenticated using (true);
revoke all on public.index_members from anon;
revoke insert, update, delete, truncate on public.index_members from authenticated;

create table public.index_levels (
  period text not null check (period in ('hour', 'day')),
  at timestamptz not null,
  level numeric(14, 4) not null check (level > 0),
  primary key (period, at)
);
alter table public.index_levels enable row level security;
create policy "the index's levels are visible to signed-in users" on public.index_levels
  for select to authenticated using (true);
revoke all on public.index_levels from anon;
revoke insert, update, delete, truncate on public.index_levels from authenticated;

-- A token's price at a moment is private.price_at (portfolio.sql).

-- A day's basket valued at a moment.
create function private.index_value(p_day date, p_at timestamptz) returns numeric
language plpgsql stable security definer set search_path = '' as $$
begin
  return (select sum(m.units * private.price_at(m.token_id, p_at)) from public.index_members m where m.day = p_day);
end $$;
revoke execute on function private.index_value(date, timestamptz) from public;

-- Sets a day's basket, once: its members, their capped weights, and units that carry the level on.
-- Returns whether the day has a basket (none before the index starts).
create function private.rebalance_index(p_day date) returns boolean
language plpgsql security definer set search_path = '' as $$
declare
  method record := public.index_method();
  cap numeric := method.weight_cap;
  at timestamptz := p_day::timestamp at time zone 'UTC';
  previous date := (select max(m.day) from public.index_members m where m.day < p_day);
  ids uuid[];
  prices numeric[];
  caps numeric[];
  weights numeric[];
  capped boolean[];
  level numeric;
  free numeric;
  free_caps numeric;
  again boolean := true;
begin
  if exists (select 1 from public.index_members m where m.day = p_day) then return true; end if;
  select array_agg(e.id order by e.id), array_agg(e.price order by e.id), array_agg(e.price * e.total_supply order by e.id)
    into ids, prices, caps
  from (select t.id, t.total_supply, private.price_at(t.id, at) as price from public.tokens t
        where t.created_at <= at - make_interval(days => method.listed_days) and t.halt_reason is null
          and exists (select 1 from public.trades tr where tr.token_id = t.id
                        and tr.created_at > at - make_interval(days => method.traded_days) and tr.created_at <= at)) e;

  if coalesce(cardinality(ids), 0) < method.min_members then
    if previous is null then return false; end if;
    insert into public.index_members (day, token_id, weight, units)
    select p_day, m.token_id, m.weight, m.units from public.index_members m where m.day = previous;
    return true;
  end if;

  -- Capping: a weight above the cap is set to it and the rest shared again by cap, until none is above.
  capped := array_fill(false, array[cardinality(ids)]);
  weights := array_fill(0::numeric, array[cardinality(ids)]);
  while again loop
    again := false;
    free := 1 - cap * (select count(*) from unnest(capped) c where c);
    free_caps := (select sum(x.c) from unnest(caps, capped) x (c, fixed) where not x.fixed);
    for i in 1 .. cardinality(ids) loop
      if capped[i] then continue; end if;
      weights[i] := free * caps[i] / free_caps;
      if weights[i] > cap then capped[i] := true; weights[i] := cap; again := true; end if;
    end loop;
  end loop;

  level := case when previous is null then method.base_level else private.index_value(previous, at) end;
  insert into public.index_members (day, token_id, weight, units)
  select p_day, ids[i], weights[i], level * weights[i] / prices[i] from generate_subscripts(ids, 1) i;
  return true;
end $$;
revoke execute on function private.rebalance_index(date) from public;

-- Records the levels due: every hour since the last recorded (or since the first trade, until the
-- index starts), each day's basket set as the day begins, the day's row at its 00:00. Run every
-- minute by the local server's scheduler; on a hosted project by pg_cron (supabase/cron.sql).
-- One run at a time (an advisory lock); each level is written once (its key). Returns how many hours it wrote.
create function private.record_index_levels() returns integer
language plpgsql security definer set search_path = '' as $$
declare
  h timestamptz;
  d date;
  value numeric;
  n integer := 0;
begin
  if not pg_try_advisory_xact_lock(hashtext('private.record_index_levels')) then return 0; end if;
  h := coalesce((select max(l.at) + interval '1 hour' from public.index_levels l where l.period = 'hour'),
                date_trunc('day', (select min(tr.created_at) from public.trades tr), 'UTC'));
  -- A bounded catch-up per run: a long history is written over a few runs.
  while h <= now() and n < 2000 loop
    d := (h at time zone 'UTC')::date;
    if not private.rebalance_index(d) then
      h := (d + 1)::timestamp at time zone 'UTC'; -- not started yet: try the next day
      continue;
    end if;
    value := round(private.index_value(d, h), 4);
    insert into public.index_levels (period, at, level) values ('hour', h, value) on conflict do nothing;
    if h = d::timestamp at time zone 'UTC' then
      insert into public.index_levels (period, at, level) values ('day', h, value) on conflict do nothing;
    end if;
    n := n + 1;
    h := h + interval '1 hour';
  end loop;
  -- Open market screens read the index again: a new hour's level, perhaps a new day's basket.
  if n > 0 then perform realtime.send(jsonb_build_object('kind', 'index', 'levels', n), 'index', 'market', true); end if;
  return n;
end $$;
revoke execute on function private.record_index_levels() from public;

-- The index as the market screen shows it: the latest basket's members with their weights, units
-- and last prices (so its level now is the sum of units times price).
create view public.index_basket as
select m.token_id, t.name, t.username, m.weight, m.units, s.price
from public.index_members m
join public.tokens t on t.id = m.token_id
join private.token_stats s on s.token_id = m.token_id
where m.day = (select max(x.day) from public.index_members x);
revoke all on public.index_basket from anon;
