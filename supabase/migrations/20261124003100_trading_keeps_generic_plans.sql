-- The trading functions keep their generic plans, as the screens' read functions do (20261123002500).
--
-- A PL/pgSQL statement with parameters is planned afresh for its first five runs; after that the
-- planner keeps one generic plan only while that plan's estimate is no worse than the fresh ones'.
-- pg_stat_statements over 3,000 orders on PostgreSQL showed the two statements that lock an
-- order's accounts (`user_id = any(...)`, whose generic estimate is poor) planned at every run:
-- 32 and 17 us of planning to run in about 7 each. None of the order's statements changes shape
-- with its values (rows are found by key, the book by its index in rank order), so the generic plan
-- is the right one, made once per connection. Measured in-process with the two settings alternated
-- four times over 400 orders each on 32 books (2026-11-24), together with the two functions below:
-- the same in the first rounds, then 1.63 to 1.23 and 1.37 to 1.20 ms per order on PGlite, whose
-- planning also reads each relation's size from the file system; on PostgreSQL, generic plans
-- alone, 1.34 to 1.08 and 1.23 to 1.12 ms.
alter function public.place_order(uuid, text, text, numeric, numeric) set plan_cache_mode = force_generic_plan;
alter function public.cancel_order(bigint) set plan_cache_mode = force_generic_plan;
alter function private.check_order_request(uuid, text, text, numeric, numeric) set plan_cache_mode = force_generic_plan;
alter function private.check_order_funds(uuid, uuid, text, text, text, bigint, numeric, integer)
  set plan_cache_mode = force_generic_plan;
alter function private.match_order(uuid, uuid, bigint, text, text, bigint, numeric, numeric, integer)
  set plan_cache_mode = force_generic_plan;
alter function private.settle_fills(uuid, text, jsonb, timestamptz) set plan_cache_mode = force_generic_plan;
alter function private.release_order(bigint) set plan_cache_mode = force_generic_plan;
alter function private.stats_on_trades() set plan_cache_mode = force_generic_plan;
alter function private.stats_on_holding() set plan_cache_mode = force_generic_plan;

-- Two SQL functions of the settlement cannot be inlined (their SET clause, and for fill_rows its
-- estimate of four rows), so each call planned its body again: as PL/pgSQL they keep their plans.
-- Bodies and results as before (20261122000700, 20261122002300).
create or replace function private.fee_bps() returns integer
language plpgsql stable security definer set search_path = '' as $$
declare
  bps integer;
begin
  select fee_bps into bps from public.exchange_settings;
  return bps;
end $$;

create or replace function private.fill_rows(p_fills jsonb)
returns table (seq integer, buyer uuid, seller uuid, buy_order bigint, sell_order bigint, price numeric, amount bigint,
               buyer_reserved numeric, buyer_completes boolean, seller_reserved boolean)
language plpgsql immutable rows 4 set search_path = '' as $$
begin
  return query
  select * from jsonb_to_recordset(p_fills) as f(seq integer, buyer uuid, seller uuid, buy_order bigint, sell_order bigint,
    price numeric, amount bigint, buyer_reserved numeric, buyer_completes boolean, seller_reserved boolean);
end $$;
