-- auction_figures_in_market_message: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.tell_market(p_token uuid, p_kind text, p_levels jsonb DEFAULT '[]'::jsonb, p_trades_at timestamp with time zone DEFAULT NULL::timestamp with time zone, p_before jsonb DEFAULT NULL::jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  s private.token_stats;
  trades jsonb := '[]';
  levels jsonb := coalesce(p_levels, '[]');
  changed jsonb;
begin
  select * into s from private.token_stats where token_id = p_token;
  if p_trades_at is not null then
    select coalesce(jsonb_agg(jsonb_build_object('id', t.id, 'price', t.price, 'amount', t.amount, 'value', t.value,
                                                 'type', t.taker_side, 'created_at', t.created_at)
                              order by t.id desc), '[]'),
           levels || coalesce(jsonb_agg(jsonb_build_object('side', case when t.taker_side = 'buy' then 'sell' else 'buy' end,
                                                           'price', t.price)), '[]')
      into trades, levels
      from public.trades t where t.token_id = p_token and t.created_at = p_trades_at;
  end if;
  changed := private.book_levels(p_token, levels);
  perform realtime.send(jsonb_build_object(
    'token_id', p_token, 'kind', p_kind,
    'price', s.price, 'change_24h', s.change_24h, 'volume_24h', s.volume_24h, 'market_cap', s.market_cap,
    'market_cap_change', coalesce(s.market_cap - (p_before->>'market_cap')::numeric, 0),
    'volume_change', coalesce(s.volume_24h - (p_before->>'volume_24h')::numeric, 0), 'holders', s.holders, 'halted', s.halted,
    'best_bid', (select o.price from public.orders o where o.token_id = p_token and o.side = 'buy' and o.status = 'open'
                  order by o.token_id, o.side, (case when o.side = 'buy' then -o.price else o.price end), o.created_at, o.id limit 1),
    'best_ask', (select o.price from public.orders o where o.token_id = p_token and o.side = 'sell' and o.status = 'open'
                  order by o.token_id, o.side, (case when o.side = 'buy' then -o.price else o.price end), o.created_at, o.id limit 1),
    'levels', changed,
    'trades', trades,
    -- In a volatility auction's call, what the book would uncross at now (auctions.sql): open
    -- screens follow it from the message instead of each reading it again. One probe of the open
    -- auctions' partial index otherwise.
    'auction', (select jsonb_build_object('indicative_price', u.price, 'indicative_volume', u.volume,
                                          'demand', u.demand, 'supply', u.supply)
                  from public.volatility_auctions a
                  left join lateral private.auction_uncross(a.token_id, a.reference_price) u on true
                 where a.token_id = p_token and a.uncrossed_at is null)), 'token', 'market', true);
  perform private.tell_feed(p_token, changed, trades);
end $function$;
