-- engine_one_trade_trigger: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

drop trigger if exists "trades_candles" on public.trades;

drop function if exists private.band_edge(numeric,text);

drop function if exists private.candles_on_trades();

CREATE OR REPLACE FUNCTION private.band_edge(ref numeric, p_side text)
 RETURNS numeric
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
begin
  return (select case when p_side = 'buy' then floor(ref * (1 + e.market_band_bps / 10000.0) * 100) / 100
                      else ceil(ref * (1 - e.market_band_bps / 10000.0) * 100) / 100 end
          from public.exchange_settings e);
end $function$;
revoke execute on function private.band_edge(numeric, text) from public;

CREATE OR REPLACE FUNCTION private.stats_on_trades()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  batch record;
  oldest public.trades;
  newest public.trades;
begin
  for batch in
    select n.token_id, sum(n.value) as value, array_agg(n::public.trades order by n.created_at, n.id) as trades,
           max(n.price) as high, min(n.price) as low, sum(n.amount)::bigint as volume, count(*)::integer as count
    from new_trades n group by n.token_id
  loop
    oldest := batch.trades[1];
    newest := batch.trades[cardinality(batch.trades)];
    update private.token_stats s set
      price = newest.price,
      market_cap = round(newest.price * (select total_supply from public.tokens where id = batch.token_id), 2),
      volume_24h = s.volume_24h + batch.value,
      first_price = coalesce(s.first_price, oldest.price),
      change_24h = private.change_pct(newest.price, coalesce(s.day_ago_price, s.first_price, oldest.price)),
      last_trade_at = newest.created_at,
      last_trade_id = newest.id,
      slides_at = coalesce(s.slides_at, oldest.created_at + interval '24 hours')
    where s.token_id = batch.token_id
      and oldest.created_at > now() - interval '24 hours'
      and (s.last_trade_at is null or (oldest.created_at, oldest.id) > (s.last_trade_at, s.last_trade_id));
    if not found then
      perform private.refresh_token_stats(batch.token_id); -- no row yet, or back-dated: recompute
    end if;

    -- One candle row per interval. A settlement's trades share one time, so they fall in one
    -- bucket of each interval and fold into six rows without grouping them again; trades at
    -- several times (the seed, a bulk load) go through candle_rows, which groups them by bucket.
    insert into public.candles as c
    select * from private.candle_rows(batch.trades) where oldest.created_at <> newest.created_at
    union all
    select batch.token_id, i.seconds, to_timestamp(floor(extract(epoch from oldest.created_at) / i.seconds) * i.seconds),
           oldest.price, batch.high, batch.low, newest.price, batch.volume, batch.count,
           oldest.created_at, oldest.id, newest.created_at, newest.id
    from unnest(array[60, 300, 900, 3600, 14400, 86400]) i (seconds) where oldest.created_at = newest.created_at
    on conflict (token_id, seconds, bucket) do update set
      open = case when (excluded.opened_at, excluded.opened_id) < (c.opened_at, c.opened_id) then excluded.open else c.open end,
      opened_at = least(c.opened_at, excluded.opened_at),
      opened_id = case when (excluded.opened_at, excluded.opened_id) < (c.opened_at, c.opened_id) then excluded.opened_id else c.opened_id end,
      close = case when (excluded.closed_at, excluded.closed_id) > (c.closed_at, c.closed_id) then excluded.close else c.close end,
      closed_at = greatest(c.closed_at, excluded.closed_at),
      closed_id = case when (excluded.closed_at, excluded.closed_id) > (c.closed_at, c.closed_id) then excluded.closed_id else c.closed_id end,
      high = greatest(c.high, excluded.high),
      low = least(c.low, excluded.low),
      volume = c.volume + excluded.volume,
      trades = c.trades + excluded.trades;
  end loop;
  return null;
end $function$;
