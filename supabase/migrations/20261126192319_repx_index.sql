-- repx_index: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

create table public.index_members ();

create table public.index_levels ();

alter table public.index_members add column "day" date not null;

alter table public.index_members add column "token_id" uuid not null;

alter table public.index_members add column "weight" numeric(7,6) not null;

alter table public.index_members add column "units" numeric not null;

alter table public.index_levels add column "period" text not null;

alter table public.index_levels add column "at" timestamp with time zone not null;

alter table public.index_levels add column "level" numeric(14,4) not null;

CREATE OR REPLACE FUNCTION private.index_value(p_day date, p_at timestamp with time zone)
 RETURNS numeric
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return (select sum(m.units * private.price_at(m.token_id, p_at)) from public.index_members m where m.day = p_day);
end $function$;

CREATE OR REPLACE FUNCTION private.rebalance_index(p_day date)
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  cap constant numeric := 0.25;
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
        where t.created_at <= at - interval '7 days' and t.halt_reason is null
          and exists (select 1 from public.trades tr where tr.token_id = t.id
                        and tr.created_at > at - interval '30 days' and tr.created_at <= at)) e;

  if coalesce(cardinality(ids), 0) < 1 / cap then
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

  level := case when previous is null then 1000 else private.index_value(previous, at) end;
  insert into public.index_members (day, token_id, weight, units)
  select p_day, ids[i], weights[i], level * weights[i] / prices[i] from generate_subscripts(ids, 1) i;
  return true;
end $function$;

CREATE OR REPLACE FUNCTION private.record_index_levels()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
  return n;
end $function$;

create view public.index_basket as
 SELECT m.token_id,
    t.name,
    t.username,
    m.weight,
    m.units,
    s.price
   FROM ((index_members m
     JOIN tokens t ON ((t.id = m.token_id)))
     JOIN private.token_stats s ON ((s.token_id = m.token_id)))
  WHERE (m.day = ( SELECT max(x.day) AS max
           FROM index_members x));

alter table public.index_levels add constraint "index_levels_level_check" CHECK ((level > (0)::numeric));

alter table public.index_levels add constraint "index_levels_period_check" CHECK ((period = ANY (ARRAY['hour'::text, 'day'::text])));

alter table public.index_levels add constraint "index_levels_pkey" PRIMARY KEY (period, at);

alter table public.index_members add constraint "index_members_pkey" PRIMARY KEY (day, token_id);

alter table public.index_members add constraint "index_members_units_check" CHECK ((units > (0)::numeric));

alter table public.index_members add constraint "index_members_weight_check" CHECK (((weight > (0)::numeric) AND (weight <= 0.25)));

alter table public.index_members add constraint "index_members_token_id_fkey" FOREIGN KEY (token_id) REFERENCES tokens(id) ON DELETE CASCADE;

create policy "the index's levels are visible to signed-in users" on public.index_levels as permissive for select to authenticated
  using (true);

create policy "the index's members are visible to signed-in users" on public.index_members as permissive for select to authenticated
  using (true);

alter table public.index_levels enable row level security;

alter table public.index_members enable row level security;

revoke all on function private.index_value(date,timestamp with time zone) from public;

revoke all on function private.rebalance_index(date) from public;

revoke all on function private.record_index_levels() from public;

revoke all on table public.index_levels from anon;
revoke insert, update, delete, truncate on table public.index_levels from authenticated;

revoke all on table public.index_members from anon;
revoke insert, update, delete, truncate on table public.index_members from authenticated;

revoke all on table public.index_basket from anon;

-- Written by hand: the levels from the history a deployed database has.
select private.record_index_levels();
