-- order_levels_by_key: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.order_levels(p_orders bigint[])
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return (select coalesce(jsonb_agg(jsonb_build_object('side', o.side, 'price', o.price)), '[]')
          from public.orders o
          where o.price is not null
            and o.id = any (p_orders || array(select p.oco_with from public.orders p
                                              where p.id = any (p_orders) and p.oco_with is not null)));
end $function$;
