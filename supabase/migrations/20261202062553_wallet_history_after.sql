-- wallet_history_after: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.nth_wallet_time(p_user uuid, p_n integer, p_after timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS timestamp with time zone
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
begin
  if p_after is null then
    return (select x.at from (
      (select w.created_at as at from public.wallet_transactions w where w.user_id = p_user order by w.created_at desc limit p_n)
      union all (select t.created_at from public.trades t where t.buyer_id = p_user order by t.created_at desc limit p_n)
      union all (select t.created_at from public.trades t where t.seller_id = p_user order by t.created_at desc limit p_n)
      union all (select t.created_at from public.trades t where t.proceeds_to = p_user order by t.created_at desc limit p_n)
      union all (select t.created_at from public.trades t where t.creator_id = p_user and t.creator_share > 0
                 order by t.created_at desc limit p_n)
    ) x order by x.at desc offset p_n - 1 limit 1);
  end if;
  return (select x.at from (
    (select w.created_at as at from public.wallet_transactions w where w.user_id = p_user and w.created_at > p_after
     order by w.created_at limit p_n)
    union all (select t.created_at from public.trades t where t.buyer_id = p_user and t.created_at > p_after
               order by t.created_at limit p_n)
    union all (select t.created_at from public.trades t where t.seller_id = p_user and t.created_at > p_after
               order by t.created_at limit p_n)
    union all (select t.created_at from public.trades t where t.proceeds_to = p_user and t.created_at > p_after
               order by t.created_at limit p_n)
    union all (select t.created_at from public.trades t where t.creator_id = p_user and t.creator_share > 0
               and t.created_at > p_after order by t.created_at limit p_n)
  ) x order by x.at offset p_n - 1 limit 1);
end $function$;

CREATE OR REPLACE FUNCTION public.recent_wallet_history(p_kind text DEFAULT NULL::text, p_limit integer DEFAULT 500)
 RETURNS TABLE(id text, type text, description text, amount numeric, effect numeric, status text, message text, wallet_id bigint, trade_id bigint, created_at timestamp with time zone, balance numeric)
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  me uuid := (select auth.uid());
  n integer := least(greatest(coalesce(p_limit, 500), 1), 500);
  since timestamptz;
begin
  if p_kind is null then
    since := private.nth_wallet_time(me, n);
  end if;
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

CREATE OR REPLACE FUNCTION public.wallet_history_after(p_after_at timestamp with time zone DEFAULT NULL::timestamp with time zone, p_after_type text DEFAULT NULL::text, p_after_seq numeric DEFAULT NULL::numeric, p_after_id text DEFAULT NULL::text, p_balance numeric DEFAULT 0, p_limit integer DEFAULT 1000)
 RETURNS TABLE(id text, type text, description text, amount numeric, effect numeric, status text, message text, wallet_id bigint, trade_id bigint, created_at timestamp with time zone, balance numeric, seq numeric)
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  me uuid := (select auth.uid());
  n integer := least(greatest(coalesce(p_limit, 1000), 1), 1000);
  since timestamptz := coalesce(p_after_at, '-infinity');
  -- Every movement after the cursor, up to the n-th next source row's time: at least n, or all.
  until timestamptz := private.nth_wallet_time(me, n, since);
begin
  if p_after_at is not null and (p_after_type is null or p_after_seq is null or p_after_id is null) then
    raise exception 'A page after a movement names its date, type, seq and id.' using errcode = '22023';
  end if;
  return query
  select m.id, m.type, m.description, m.amount, m.effect, m.status, m.message, m.wallet_id, m.trade_id, m.created_at,
         coalesce(p_balance, 0) + sum(m.effect) over (order by m.created_at, m.type in ('Trade Fee', 'Fee Share'), m.seq, m.id
                                                       rows unbounded preceding),
         m.seq
  from private.wallet_moves m
  where m.created_at >= since and m.created_at <= coalesce(until, 'infinity')
    and (p_after_at is null
         or (m.created_at, m.type in ('Trade Fee', 'Fee Share'), m.seq, m.id)
            > (p_after_at, p_after_type in ('Trade Fee', 'Fee Share'), p_after_seq, p_after_id))
  order by m.created_at, m.type in ('Trade Fee', 'Fee Share'), m.seq, m.id
  limit n;
end $function$;

revoke all on routine private.nth_wallet_time(uuid,integer,timestamp with time zone) from public;
grant execute on routine private.nth_wallet_time(uuid,integer,timestamp with time zone) to authenticated;

revoke all on routine public.wallet_history_after(timestamp with time zone,text,numeric,text,numeric,integer) from anon;
revoke all on routine public.wallet_history_after(timestamp with time zone,text,numeric,text,numeric,integer) from public;
