-- trading_screen: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

CREATE OR REPLACE FUNCTION public.trading_screen(p_token uuid)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select jsonb_build_object(
    'token', (select to_jsonb(m) from public.market_tokens m where m.id = p_token),
    'history', (select coalesce(jsonb_agg(h order by h.bucket), '[]') from public.price_history(p_token, 24) h),
    'book', (select coalesce(jsonb_agg(jsonb_build_object('side', b.side, 'price', b.price, 'amount', b.amount)), '[]')
               from public.order_book b where b.token_id = p_token),
    'tape', (select coalesce(jsonb_agg(t order by t.created_at desc, t.id desc), '[]')
               from (select r.id, r.price, r.amount, r.type, r.created_at from public.recent_trades r
                      where r.token_id = p_token order by r.created_at desc, r.id desc limit 5) t),
    'cash', coalesce((select c.available from public.cash_accounts c where c.user_id = (select auth.uid())), 0),
    'held', coalesce((select h.available from public.holdings h
                       where h.user_id = (select auth.uid()) and h.token_id = p_token), 0),
    'orders', (select coalesce(jsonb_agg(o order by o.created_at desc, o.id desc), '[]')
                 from public.list_open_orders(p_token) o),
    'vesting', (select jsonb_build_object('total', v.total, 'vested', v.vested, 'cliff_at', v.cliff_at, 'ends_at', v.ends_at)
                  from public.token_vesting v where v.token_id = p_token),
    'offering', (select to_jsonb(f) || jsonb_build_object('bid', (
                          select jsonb_build_object('price', b.price, 'amount', b.amount, 'reserved', b.reserved,
                                                    'placed_at', b.placed_at, 'allocated', b.allocated)
                            from public.offering_bids b where b.offering_id = f.id and b.user_id = (select auth.uid())))
                   from public.offering_book f where f.token_id = p_token order by f.opens_at desc limit 1)
  )
$function$;

revoke all on routine public.trading_screen(uuid) from anon;
revoke all on routine public.trading_screen(uuid) from public;
