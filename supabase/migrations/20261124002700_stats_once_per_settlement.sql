-- A token's market figures move once per settlement, not once per trade. The row trigger updated
-- the token's stats row for every trade an order made, and each update rewrote the row's six sort
-- indexes and checked its foreign key again: a market order that swept fifty resting orders paid
-- for fifty updates under the book's lock. A statement trigger sees the statement's trades
-- together (settle_fills inserts an order's trades in one statement) and moves each token once.
--
-- The figures are the same as the row trigger's: the newest trade sets the price and the change,
-- the volume grows by the trades' sum, and the oldest sets the first price and when the volume
-- starts to slide, if they were not set. Trades older than the token's last trade or than 24 hours
-- (a back-dated insert) recompute the token's figures from its trades instead, as before.

drop trigger trades_stats on public.trades;
drop function private.stats_on_trade();

create function private.stats_on_trades() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  batch record;
  oldest public.trades;
  newest public.trades;
begin
  for batch in
    select n.token_id, sum(n.value) as value, array_agg(n order by n.created_at, n.id) as trades
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
  end loop;
  return null;
end $$;

create trigger trades_stats after insert on public.trades
  referencing new table as new_trades
  for each statement execute function private.stats_on_trades();
