-- market_screen: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

CREATE OR REPLACE FUNCTION public.market_screen(p_index_days integer DEFAULT 7)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select jsonb_build_object(
    'summary', (select to_jsonb(s) from public.market_summary s),
    'categories', (select coalesce(jsonb_agg(c.category order by c.category), '[]') from public.token_categories c),
    'offerings', (select coalesce(jsonb_agg(jsonb_build_object(
                     'token_id', o.token_id, 'closes_at', o.closes_at, 'indicative_price', o.indicative_price)), '[]')
                    from public.offering_book o where o.closed_at is null),
    'index', jsonb_build_object(
      'levels', (select coalesce(jsonb_agg(jsonb_build_object('at', l.at, 'level', l.level) order by l.at), '[]')
                   from public.index_levels l
                  where l.period = 'hour' and l.at >= now() - make_interval(days => least(greatest(p_index_days, 1), 366))),
      'basket', (select coalesce(jsonb_agg(jsonb_build_object(
                    'token_id', b.token_id, 'name', b.name, 'username', b.username, 'weight', b.weight,
                    'units', b.units, 'price', b.price) order by b.weight desc, b.name), '[]')
                   from public.index_basket b),
      'method', (select to_jsonb(m) from public.index_method() m))
  )
$function$;

revoke all on routine public.market_screen(integer) from anon;
revoke all on routine public.market_screen(integer) from public;
