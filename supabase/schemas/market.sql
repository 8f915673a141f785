-- The market: what every screen shows about a token (its price, market cap, 24h change, 24h
-- volume and holders), the market's list, search and counts, and a token's price history.
--
-- The figures are maintained, not recomputed on every read: one row per token holds them, kept
-- exact by triggers in the transaction that changes trades, holdings or the token (so they hold
-- whoever writes: the engine, an offering, the seed), and indexed for every sort the market offers.
--
-- Sliding: a trade leaves the 24h window 24 hours after it was made, which changes that token's
-- volume and the price its change compares with. `slides_at` is the next such moment for the
-- token; private.slide_token_stats() (run every few seconds by the scheduler, pg_cron on a hosted
-- project) recomputes the tokens whose moment has come. Between two runs a figure can be a few
-- seconds late; it is never approximate.

create table private.token_stats (
  token_id uuid primary key references public.tokens (id) on delete cascade,
  price numeric(12, 2) not null,
  market_cap numeric not null,
  change_24h numeric not null default 0,
  volume_24h numeric not null default 0,
  holders bigint not null default 0,
  -- The newest trade: a trade older than it (a back-dated insert) recomputes the row instead.
  last_trade_at timestamptz,
  last_trade_id bigint,
  -- What the 24h change compares with: the last price at least 24 hours old, else the first trade's.
  day_ago_price numeric,
  first_price numeric,
  slides_at timestamptz,
  -- The token's own fields that the market filters on, copied from its row (tokens_stats_copy),
  -- so that a filtered count reads this one table (market_tokens leaves tokens out of it).
  category text not null,
  reputation_score numeric(5, 2) not null,
  verified boolean not null,
  halted boolean not null,
  -- The market's search matches it (tokens.search_text, copied): a search sorted by market cap
  -- filters the market-cap index alone, and the search's count reads this table alone.
  search_text text not null
);
-- (sort column, token) serves both directions of each sort, ties broken by token id.
-- The default sort's index also carries every filtered figure, the search's text and the page's
-- other figures, so a filtered or searched page walks it without a visit to the table for each
-- token the filters refuse (an index-only scan where the table's pages are all-visible, as vacuum
-- leaves the tokens nobody traded since).
create index token_stats_market_cap_idx on private.token_stats (market_cap, token_id)
  include (price, change_24h, volume_24h, reputation_score, category, verified, halted, holders, search_text);
create index token_stats_price_idx on private.token_stats (price, token_id);
create index token_stats_change_idx on private.token_stats (change_24h, token_id);
create index token_stats_volume_idx on private.token_stats (volume_24h, token_id);
create index token_stats_holders_idx on private.token_stats (holders, token_id);
create index token_stats_reputation_idx on private.token_stats (reputation_score, token_id);
create index token_stats_category_idx on private.token_stats (category);
-- A rare term's matches, found by trigram rather than by walking the market.
create index token_stats_search_trgm_idx on private.token_stats using gin (search_text extensions.gin_trgm_ops);
create index token_stats_slides_idx on private.token_stats (slides_at) where slides_at is not null;

create function private.change_pct(price numeric, base numeric) returns numeric
language sql immutable as $$ select coalesce(round((price - base) / nullif(base, 0) * 100, 2), 0) $$;

-- The exact figures of one token, from its trades and holdings (the definition the triggers keep).
-- Holders are counted when the row is made; after that the holdings trigger alone keeps them (a
-- recount here could meet holdings changes whose triggers have not fired yet, and count them twice).
create function private.refresh_token_stats(p_token uuid) returns void
language plpgsql security definer set search_path = '' as $$
declare
  day_start timestamptz := now() - interval '24 hours';
  tok record;
  last_trade record;
  day_ago numeric;
  first numeric;
  volume numeric;
  oldest timestamptz;
  held bigint;
  price numeric;
begin
  select t.total_supply, t.issue_price, t.category, t.reputation_score, t.verified, t.halt_reason is not null as halted,
         t.search_text
    into tok from public.tokens t where t.id = p_token;
  if not found then return; end if;
  select tr.price, tr.created_at, tr.id into last_trade
    from public.trades tr where tr.token_id = p_token order by tr.created_at desc, tr.id desc limit 1;
  select tr.price into day_ago
    from public.trades tr where tr.token_id = p_token and tr.created_at <= day_start order by tr.created_at desc, tr.id desc limit 1;
  select tr.price into first from public.trades tr where tr.token_id = p_token order by tr.created_at, tr.id limit 1;
  select coalesce(sum(tr.value), 0), min(tr.created_at) into volume, oldest
    from public.trades tr where tr.token_id = p_token and tr.created_at > day_start;
  select count(*) into held from public.holdings h
   where h.token_id = p_token and h.amount > 0 and h.user_id <> private.issuance_account();
  price := coalesce(last_trade.price, tok.issue_price);
  insert into private.token_stats as s (token_id, price, market_cap, change_24h, volume_24h, holders,
                                        last_trade_at, last_trade_id, day_ago_price, first_price, slides_at,
                                        category, reputation_score, verified, halted, search_text)
  values (p_token, price, round(price * tok.total_supply, 2),
          private.change_pct(price, coalesce(day_ago, first, tok.issue_price)), volume, held,
          last_trade.created_at, last_trade.id, day_ago, first, oldest + interval '24 hours',
          tok.category, tok.reputation_score, tok.verified, tok.halted, tok.search_text)
  on conflict (token_id) do update set
    price = excluded.price, market_cap = excluded.market_cap, change_24h = excluded.change_24h,
    volume_24h = excluded.volume_24h, last_trade_at = excluded.last_trade_at,
    last_trade_id = excluded.last_trade_id, day_ago_price = excluded.day_ago_price,
    first_price = excluded.first_price, slides_at = excluded.slides_at, category = excluded.category,
    reputation_score = excluded.reputation_score, verified = excluded.verified, halted = excluded.halted,
    search_text = excluded.search_text;
end $$;
revoke execute on function private.refresh_token_stats(uuid) from public;

-- A token's figures and its candles move once per settlement: a statement trigger sees the
-- statement's trades together (settle_fills inserts an order's trades in one statement) and
-- updates each token's row once, not once per trade under the book's lock. The newest trade sets
-- the price and the change, the volume grows by the trades' sum, and the oldest sets the first
-- price and when the volume starts to slide, if they were not set. Trades older than the token's
-- last trade or than 24 hours (a back-dated insert) recompute the token's figures from its trades
-- instead. The candles (below) are upserted in the same pass: one trigger rather than two, since
-- every settlement pays for each trigger it fires.
create function private.stats_on_trades() returns trigger
language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
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
    -- A trade dated before today moves a past day's close, which kept portfolio days hold (analysis.sql).
    if oldest.created_at < date_trunc('day', now() at time zone 'UTC') at time zone 'UTC' then
      perform private.forget_portfolio_closes(null, oldest.created_at);
    end if;
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
end $$;
create trigger trades_stats after insert on public.trades
  referencing new table as new_trades
  for each statement execute function private.stats_on_trades();

-- A holder is an account (not the offering account) holding at least one token: only a change
-- between none and some moves the count, so most fills do not touch the row here. The same change
-- moves how many tokens the account holds, and so the market's count of traders.
create function private.stats_on_holding() returns trigger
language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  was boolean := tg_op <> 'INSERT' and old.amount > 0 and old.user_id <> private.issuance_account();
  now_held boolean := tg_op <> 'DELETE' and new.amount > 0 and new.user_id <> private.issuance_account();
begin
  if was <> now_held then
    update private.token_stats set holders = holders + case when now_held then 1 else -1 end
     where token_id = case when tg_op = 'DELETE' then old.token_id else new.token_id end;
    perform private.count_trader(case when tg_op = 'DELETE' then old.user_id else new.user_id end, now_held);
  end if;
  return null;
end $$;
create trigger holdings_stats_insert after insert on public.holdings
  for each row when (new.amount > 0) execute function private.stats_on_holding();
create trigger holdings_stats_update after update of amount on public.holdings
  for each row when ((old.amount > 0) <> (new.amount > 0)) execute function private.stats_on_holding();
create trigger holdings_stats_delete after delete on public.holdings
  for each row when (old.amount > 0) execute function private.stats_on_holding();

create function private.stats_on_token() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform private.refresh_token_stats(new.id);
  return null;
end $$;
create trigger tokens_stats_insert after insert on public.tokens
  for each row execute function private.stats_on_token();
create trigger tokens_stats_update after update of issue_price, total_supply on public.tokens
  for each row execute function private.stats_on_token();

-- The fields the market filters and searches on follow the token's row: a rescoring, a
-- verification, a halt, a move to another category, a new name.
create function private.stats_copy_token() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  update private.token_stats
     set category = new.category, reputation_score = new.reputation_score, verified = new.verified,
         halted = new.halt_reason is not null, search_text = new.search_text
   where token_id = new.id;
  return null;
end $$;
create trigger tokens_stats_copy after update of category, reputation_score, verified, halt_reason, name, username on public.tokens
  for each row when (old.category is distinct from new.category or old.reputation_score is distinct from new.reputation_score
                     or old.verified is distinct from new.verified or (old.halt_reason is null) is distinct from (new.halt_reason is null)
                     or old.search_text is distinct from new.search_text)
  execute function private.stats_copy_token();

-- Recomputes the tokens a trade has just left the 24h window of, a batch at a time. Each token's
-- row lock is taken first, as the engine takes it, so a trade cannot slip between read and write.
create function private.slide_token_stats() returns integer
language plpgsql security definer set search_path = '' as $$
declare
  tid uuid;
  before jsonb;
  n integer := 0;
begin
  perform private.fold_market_changes(); -- the market's totals (below), on the same beat
  -- The batch due first, locked in token order, as the hourly rescoring locks tokens: two
  -- transactions that lock several tokens in one order cannot deadlock.
  for tid in select x.token_id from (select d.token_id from private.token_stats d where d.slides_at <= now()
                                     order by d.slides_at limit 500) x order by x.token_id loop
    perform 1 from public.tokens where id = tid for no key update;
    before := (select jsonb_build_object('market_cap', s.market_cap, 'volume_24h', s.volume_24h)
                 from private.token_stats s where s.token_id = tid);
    perform private.refresh_token_stats(tid);
    perform private.tell_market(tid, 'stats', '[]', null, before);
    n := n + 1;
  end loop;
  return n;
end $$;
revoke execute on function private.slide_token_stats() from public;

-- How many tokens each category has, kept by a trigger: the market's page count and its category
-- list read a handful of rows instead of counting every token.
create table private.token_counts (
  category text primary key,
  tokens bigint not null check (tokens >= 0)
);
create function private.count_tokens() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op in ('UPDATE', 'DELETE') then
    update private.token_counts set tokens = tokens - 1 where category = old.category;
    delete from private.token_counts where category = old.category and tokens = 0;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    insert into private.token_counts as c (category, tokens) values (new.category, 1)
    on conflict (category) do update set tokens = c.tokens + 1;
  end if;
  return null;
end $$;
create trigger tokens_count after insert or delete or update of category on public.tokens
  for each row execute function private.count_tokens();

-- The market's totals above its list: its market cap, its 24h volume and its traders (the accounts,
-- not the offering account, holding at least one token), kept so that every market screen opened
-- reads a few rows rather than every token and every holding. Each account's count of tokens held
-- is kept, its row locked while it changes, so that two orders of one account on two books move
-- the traders once; an account holding none has no row. Every change to the totals is appended to
-- market_changes rather than made to one row: a row that every order locked until it commits
-- would serialize them all, and could deadlock with the cash rows they take after it.
-- private.slide_token_stats folds the changes into market_counts every few seconds; the summary
-- adds those not folded yet, so it is always exact.
create table private.tokens_held (
  user_id uuid primary key,
  tokens bigint not null check (tokens > 0)
);
create table private.market_changes (
  traders smallint not null default 0 check (traders between -1 and 1),
  market_cap numeric not null default 0,
  volume_24h numeric not null default 0
);
create table private.market_counts (
  only_row boolean primary key default true check (only_row),
  traders bigint not null default 0 check (traders >= 0),
  market_cap numeric not null default 0,
  volume_24h numeric not null default 0
);
insert into private.market_counts default values;

-- One more (p_held) or one fewer token held by an account, from private.stats_on_holding.
create function private.count_trader(p_user uuid, p_held boolean) returns void
language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  n bigint;
begin
  if p_held then
    insert into private.tokens_held as h (user_id, tokens) values (p_user, 1)
    on conflict (user_id) do update set tokens = h.tokens + 1
    returning h.tokens into n;
    if n = 1 then insert into private.market_changes (traders) values (1); end if;
  else
    update private.tokens_held set tokens = tokens - 1 where user_id = p_user and tokens > 1 returning tokens into n;
    if n is null then
      delete from private.tokens_held where user_id = p_user;
      if found then insert into private.market_changes (traders) values (-1); end if;
    end if;
  end if;
end $$;
revoke execute on function private.count_trader(uuid, boolean) from public;

-- How a statement moved the tokens' market caps and 24h volumes, whichever wrote them (a trade's
-- settlement, a slide, a token's new supply, a token deleted). Once per statement: a settlement
-- updates its token's row in one.
create function private.total_token_stats() returns trigger
language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
begin
  if tg_op = 'INSERT' then
    insert into private.market_changes (market_cap, volume_24h)
    select sum(n.market_cap), sum(n.volume_24h) from new_stats n having sum(n.market_cap) <> 0 or sum(n.volume_24h) <> 0;
  elsif tg_op = 'UPDATE' then
    insert into private.market_changes (market_cap, volume_24h)
    select sum(d.market_cap), sum(d.volume_24h)
      from (select n.market_cap, n.volume_24h from new_stats n
            union all select -o.market_cap, -o.volume_24h from old_stats o) d
    having sum(d.market_cap) <> 0 or sum(d.volume_24h) <> 0;
  else
    insert into private.market_changes (market_cap, volume_24h)
    select -sum(o.market_cap), -sum(o.volume_24h) from old_stats o having sum(o.market_cap) <> 0 or sum(o.volume_24h) <> 0;
  end if;
  return null;
end $$;
create trigger token_stats_total_insert after insert on private.token_stats
  referencing new table as new_stats for each statement execute function private.total_token_stats();
create trigger token_stats_total_update after update on private.token_stats
  referencing old table as old_stats new table as new_stats for each statement execute function private.total_token_stats();
create trigger token_stats_total_delete after delete on private.token_stats
  referencing old table as old_stats for each statement execute function private.total_token_stats();

-- The totals' changes so far, folded into market_counts in one transaction (the changes committed
-- after its snapshot wait for the next fold).
create function private.fold_market_changes() returns void
language plpgsql security definer set search_path = '' as $$
begin
  with folded as (delete from private.market_changes returning *)
  update private.market_counts c
     set traders = c.traders + f.traders, market_cap = c.market_cap + f.market_cap, volume_24h = c.volume_24h + f.volume_24h
    from (select coalesce(sum(traders), 0) as traders, coalesce(sum(market_cap), 0) as market_cap,
                 coalesce(sum(volume_24h), 0) as volume_24h from folded) f;
end $$;
revoke execute on function private.fold_market_changes() from public;

-- What trading in a token is doing now: 'halted' (by an admin, the token or the whole exchange),
-- 'volatility_auction' (auctions.sql), 'offering' (its batch auction, offerings.sql) or
-- 'continuous'. PL/pgSQL: the offerings are defined after the market.
create function private.trading_phase(p_token uuid, p_halted boolean, p_auction_until timestamptz) returns text
language plpgsql stable security definer set search_path = '' as $$
begin
  return case when p_halted or (select e.trading_halted from public.exchange_settings e) then 'halted'
              when p_auction_until is not null then 'volatility_auction'
              when exists (select 1 from public.offerings f where f.token_id = p_token and f.closed_at is null) then 'offering'
              else 'continuous' end;
end $$;
revoke execute on function private.trading_phase(uuid, boolean, timestamp with time zone) from public;
grant execute on function private.trading_phase(uuid, boolean, timestamp with time zone) to authenticated;

-- The market's table: each token with its figures. search_text is what the search matches
-- (tokens.sql); `halted` tells a trader before they open one. Built on token_stats, with tokens
-- joined on the left: a query that asks for no column of tokens (a filtered count) reads one
-- table, as PostgreSQL leaves out a left join to a unique key that nothing uses.
create view public.market_tokens as
select
  s.token_id as id,
  t.owner_id,
  t.name,
  t.username,
  s.category,
  s.reputation_score,
  t.avatar_url,
  s.verified,
  t.total_supply,
  s.price,
  s.change_24h,
  s.volume_24h,
  s.market_cap,
  s.holders,
  t.total_supply - (select coalesce(sum(h.amount), 0) from public.holdings h
                    where h.token_id = t.id and h.user_id <> private.issuance_account()) as available_supply,
  s.search_text,
  s.halted,
  private.trading_phase(s.token_id, s.halted, t.auction_until) as trading_phase,
  t.auction_until
from private.token_stats s
left join public.tokens t on t.id = s.token_id;
revoke all on public.market_tokens from anon;
revoke insert, update, delete, truncate on public.market_tokens from authenticated;

-- The categories with their token counts (the market's filter).
create view public.token_categories as
select category, tokens::int as tokens from private.token_counts;
revoke all on public.token_categories from anon;

-- The four figures above the market table, from the kept totals (above) and the kept counts of
-- tokens. Every market screen opened reads this, so it reads no trade, no holding and no token.
create view public.market_summary as
select
  c.market_cap + ch.market_cap as total_market_cap,
  c.volume_24h + ch.volume_24h as volume_24h,
  (select coalesce(sum(tokens), 0)::bigint from private.token_counts) as active_tokens,
  c.traders + ch.traders as total_traders
from private.market_counts c
cross join (select coalesce(sum(x.traders), 0) as traders, coalesce(sum(x.market_cap), 0) as market_cap,
                   coalesce(sum(x.volume_24h), 0) as volume_24h from private.market_changes x) ch;
revoke all on public.market_summary from anon;

-- Candles: each token's open, high, low, close and volume per interval (1m, 5m, 15m, 1h, 4h, 1d),
-- kept up to date by the trades' statement trigger (private.stats_on_trades, above), so the chart
-- reads stored rows and never aggregates trades per request. Buckets are UTC, aligned to their
-- interval from the Unix epoch. The open and the close are the first and last trade by (time,
-- id), whatever order trades are inserted in (the seed back-dates them); a bucket without trades
-- has no row.
create table public.candles (
  token_id uuid not null references public.tokens (id) on delete cascade,
  seconds integer not null check (seconds in (60, 300, 900, 3600, 14400, 86400)),
  bucket timestamptz not null,
  open numeric(12, 2) not null,
  high numeric(12, 2) not null,
  low numeric(12, 2) not null,
  close numeric(12, 2) not null,
  -- Tokens traded, and how many trades.
  volume bigint not null,
  trades integer not null,
  opened_at timestamptz not null,
  opened_id bigint not null,
  closed_at timestamptz not null,
  closed_id bigint not null,
  primary key (token_id, seconds, bucket)
) with (fillfactor = 70); -- room on each page, so a candle's update stays on its page (HOT)
alter table public.candles enable row level security;
create policy "candles are visible to signed-in users" on public.candles
  for select to authenticated using (true);
revoke all on public.candles from anon;
revoke insert, update, delete, truncate on public.candles from authenticated;

-- The candle intervals, by the names the chart offers.
create function private.candle_seconds(p_interval text) returns integer
language sql immutable as $$
  select case p_interval when '1m' then 60 when '5m' then 300 when '15m' then 900
                         when '1h' then 3600 when '4h' then 14400 when '1d' then 86400 end
$$;
revoke execute on function private.candle_seconds(text) from public;

-- Trades folded into candle rows: one per token, interval and bucket they fall in. PL/pgSQL, so
-- that the trades' trigger does not plan it again at each call (a SQL function with SET would).
create function private.candle_rows(p_trades public.trades[]) returns setof public.candles
language plpgsql stable set search_path = '' as $$
begin
  -- The prices as the table types them: a PL/pgSQL result must match its columns' precision too.
  return query
  select b.token_id, b.seconds, b.bucket,
         (array_agg(b.price order by b.created_at, b.id))[1]::numeric(12, 2), max(b.price)::numeric(12, 2),
         min(b.price)::numeric(12, 2), (array_agg(b.price order by b.created_at desc, b.id desc))[1]::numeric(12, 2),
         sum(b.amount)::bigint, count(*)::integer,
         (array_agg(b.created_at order by b.created_at, b.id))[1], (array_agg(b.id order by b.created_at, b.id))[1],
         (array_agg(b.created_at order by b.created_at desc, b.id desc))[1],
         (array_agg(b.id order by b.created_at desc, b.id desc))[1]
  from (select n.token_id, n.id, n.price, n.amount, n.created_at, i.seconds,
               to_timestamp(floor(extract(epoch from n.created_at) / i.seconds) * i.seconds) as bucket
        from unnest(p_trades) n cross join (values (60), (300), (900), (3600), (14400), (86400)) i (seconds)) b
  group by b.token_id, b.seconds, b.bucket;
end $$;
revoke execute on function private.candle_rows(public.trades[]) from public;


-- Every candle computed again from the trades, a token and a UTC day at a time (no candle spans
-- two days, so no day's candles need another's trades): for a database whose trades came before
-- its candles (the migration that added them runs it).
create function private.rebuild_candles() returns void
language plpgsql security definer set search_path = '' as $$
declare
  d record;
begin
  delete from public.candles;
  for d in select distinct token_id, date_trunc('day', created_at at time zone 'UTC') as day from public.trades loop
    insert into public.candles
    select * from private.candle_rows(array(
      select t from public.trades t
      where t.token_id = d.token_id
        and t.created_at >= d.day at time zone 'UTC' and t.created_at < (d.day + interval '1 day') at time zone 'UTC'));
  end loop;
end $$;
revoke execute on function private.rebuild_candles() from public;

-- A token's latest `p_limit` candles of an interval (1m, 5m, 15m, 1h, 4h or 1d), oldest first:
-- the chart's read, a walk back along the primary key.
create function public.candles(p_token uuid, p_interval text default '1h', p_limit integer default 300)
returns table (bucket timestamptz, open numeric, high numeric, low numeric, close numeric, volume bigint)
language plpgsql stable security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
#variable_conflict use_column
declare
  secs integer := private.candle_seconds(p_interval);
begin
  if secs is null then perform private.refuse('The interval must be 1m, 5m, 15m, 1h, 4h or 1d.'); end if;
  return query
  select x.bucket, x.open, x.high, x.low, x.close, x.volume from (
    select c.bucket, c.open, c.high, c.low, c.close, c.volume from public.candles c
    where c.token_id = p_token and c.seconds = secs
    order by c.bucket desc
    limit least(greatest(coalesce(p_limit, 300), 1), 1000)) x
  order by x.bucket;
end $$;
revoke execute on function public.candles(uuid, text, integer) from public, anon;

-- Hourly closing prices of a token over the last `hours` hours (the price chart). An hour without
-- trades carries the previous close forward; an hour that ended before the token was listed has
-- no price, so a new token's chart starts at its listing.
create function public.price_history(p_token uuid, p_hours integer default 24)
returns table (bucket timestamptz, price numeric)
language plpgsql stable security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
#variable_conflict use_column
begin
  return query
  with hours as (
    select generate_series(date_trunc('hour', now()) - make_interval(hours => least(greatest(p_hours, 1), 720) - 1),
                           date_trunc('hour', now()), interval '1 hour') as bucket
  ),
  token as (select t.created_at, t.issue_price from public.tokens t where t.id = p_token)
  select h.bucket,
         case when h.bucket + interval '1 hour' > tk.created_at then
           coalesce(
             (select tr.price from public.trades tr
               where tr.token_id = p_token and tr.created_at < h.bucket + interval '1 hour'
               order by tr.created_at desc, tr.id desc limit 1),
             tk.issue_price)
         end as price
  from hours h left join token tk on true
  order by h.bucket;
end $$;
revoke execute on function public.price_history(uuid, integer) from public, anon;
