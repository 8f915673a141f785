-- recent_wallet_history_by_kind: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

CREATE OR REPLACE FUNCTION public.recent_wallet_history(p_kind text DEFAULT NULL::text, p_limit integer DEFAULT 500)
 RETURNS TABLE(id text, type text, description text, amount numeric, effect numeric, status text, message text, wallet_id bigint, trade_id bigint, created_at timestamp with time zone, balance numeric)
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  me uuid := (select auth.uid());
  n integer := least(greatest(coalesce(p_limit, 500), 1), 500);
  since timestamptz := private.nth_wallet_time(me, n);
  reach integer := n;
begin
  while p_kind is not null and since is not null
        and (select count(*) from private.wallet_moves m where m.created_at >= since and m.type = p_kind) < n loop
    reach := reach * 4;
    since := private.nth_wallet_time(me, reach);
  end loop;
  return query
  with recent as (
    select m.*,
           -- Ordered as wallet_history: this movement and those before it since `since`, and all of them.
           sum(m.effect) over (order by m.created_at, m.type in ('Trade Fee', 'Fee Share'), m.seq, m.id rows unbounded preceding) as upto,
           sum(m.effect) over () as total
    from private.wallet_moves m
    where m.created_at >= coalesce(since, '-infinity')
  )
  select r.id, r.type, r.description, r.amount, r.effect, r.status, r.message, r.wallet_id, r.trade_id, r.created_at,
         coalesce((select c.available + c.reserved from public.cash_accounts c where c.user_id = me), 0) - r.total + r.upto
  from recent r
  where p_kind is null or r.type = p_kind
  order by r.created_at desc, r.type in ('Trade Fee', 'Fee Share') desc, r.seq desc, r.id desc
  limit n;
end $function$;
