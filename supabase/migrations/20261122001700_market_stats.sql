-- Market figures maintained, not recomputed. The market views used to derive each token's price,
-- 24h change, 24h volume and holders from trades and holdings on every read (five correlated
-- subqueries per token, then a sort of every token to keep one page). Now one row per token holds
-- them, kept exact by triggers in the transaction that changes trades, holdings or the token (so
-- they hold whoever writes: the engine, an offering, the seed), and indexed for every sort the
-- market offers.
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
  slides_at timestamptz
);
-- (sort column, token) serves both directions of each sort, ties broken by token id.
create index token_stats_market_cap_idx on private.token_stats (market_cap, token_id);
create index token_stats_price_idx on private.token_stats (price, token_id);
create index token_stats_change_idx on private.token_stats (change_24h, token_id);
create index token_stats_volume_idx on private.token_stats (volume_24h, token_id);
create index token_stats_holders_idx on private.token_stats (holders, token_id);
create index token_stats_slides_idx on private.token_stats (slides_at) where slides_at is not null;
create index if not exists tokens_reputation_idx on public.tokens (reputation_score, id);
revoke all on private.token_stats from public, anon, authenticated;

create or replace function private.change_pct(price numeric, base numeric) returns numeric
language sql immutable as $$ select coalesce(round((price - base) / nullif(base, 0) * 100, 2), 0) $$;

-- The exact figures of one token, from its trades and holdings (the definition the triggers keep).
-- Holders are counted when the row is made; after that the holdings trigger alone keeps them (a
-- recount here could meet holdings changes whose triggers have not fired yet, and count them twice).
create or replace function private.refresh_token_stats(p_token uuid) returns void
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
  select t.total_supply, t.issue_price into tok from public.tokens t where t.id = p_token;
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
                                        last_trade_at, last_trade_id, day_ago_price, first_price, slides_at)
  values (p_token, price, round(price * tok.total_supply, 2),
          private.change_pct(price, coalesce(day_ago, first, tok.issue_price)), volume, held,
          last_trade.created_at, last_trade.id, day_ago, first, oldest + interval '24 hours')
  on conflict (token_id) do update set
    price = excluded.price, market_cap = excluded.market_cap, change_24h = excluded.change_24h,
    volume_24h = excluded.volume_24h, last_trade_at = excluded.last_trade_at,
    last_trade_id = excluded.last_trade_id, day_ago_price = excluded.day_ago_price,
    first_price = excluded.first_price, slides_at = excluded.slides_at;
end $$;

-- A new trade moves its token's figures. The engine holds the token's row lock, so this row is
-- updated by one transaction at a time per token.
create or replace function private.stats_on_trade() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  s private.token_stats;
begin
  select * into s from private.token_stats where token_id = new.token_id;
  if not found or new.created_at <= now() - interval '24 hours'
     or (new.created_at, new.id) < (s.last_trade_at, s.last_trade_id) then
    perform private.refresh_token_stats(new.token_id); -- back-dated: recompute
    return null;
  end if;
  update private.token_stats set
    price = new.price,
    market_cap = round(new.price * (select total_supply from public.tokens where id = new.token_id), 2),
    volume_24h = volume_24h + new.value,
    first_price = coalesce(first_price, new.price),
    change_24h = private.change_pct(new.price, coalesce(day_ago_price, first_price, new.price)),
    last_trade_at = new.created_at,
    last_trade_id = new.id,
    slides_at = coalesce(slides_at, new.created_at + interval '24 hours')
  where token_id = new.token_id;
  return null;
end $$;
create trigger trades_stats after insert on public.trades
  for each row execute function private.stats_on_trade();

-- A holder is an account (not the issuance account) holding at least one token: only a change
-- between none and some moves the count, so most fills do not touch the row here.
create or replace function private.stats_on_holding() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  was boolean := tg_op <> 'INSERT' and old.amount > 0 and old.user_id <> private.issuance_account();
  now_held boolean := tg_op <> 'DELETE' and new.amount > 0 and new.user_id <> private.issuance_account();
begin
  if was <> now_held then
    update private.token_stats set holders = holders + case when now_held then 1 else -1 end
     where token_id = case when tg_op = 'DELETE' then old.token_id else new.token_id end;
  end if;
  return null;
end $$;
create trigger holdings_stats_insert after insert on public.holdings
  for each row when (new.amount > 0) execute function private.stats_on_holding();
create trigger holdings_stats_update after update of amount on public.holdings
  for each row when ((old.amount > 0) <> (new.amount > 0)) execute function private.stats_on_holding();
create trigger holdings_stats_delete after delete on public.holdings
  for each row when (old.amount > 0) execute function private.stats_on_holding();

create or replace function private.stats_on_token() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform private.refresh_token_stats(new.id);
  return null;
end $$;
create trigger tokens_stats_insert after insert on public.tokens
  for each row execute function private.stats_on_token();
create trigger tokens_stats_update after update of issue_price, total_supply on public.tokens
  for each row execute function private.stats_on_token();

-- Recomputes the tokens a trade has just left the 24h window of, a batch at a time. Each token's
-- row lock is taken first, as the engine takes it, so a trade cannot slip between read and write.
create or replace function private.slide_token_stats() returns integer
language plpgsql security definer set search_path = '' as $$
declare
  tid uuid;
  n integer := 0;
begin
  for tid in select token_id from private.token_stats where slides_at <= now() order by slides_at limit 500 loop
    perform 1 from public.tokens where id = tid for update;
    perform private.refresh_token_stats(tid);
    n := n + 1;
  end loop;
  return n;
end $$;
revoke all on function private.slide_token_stats(), private.refresh_token_stats(uuid) from public;

select private.refresh_token_stats(id) from public.tokens;

-- Everything the market table and the trading header show about a token, read from its
-- maintained row. What an offering has not sold is available, not held (the issuance account is no
-- holder); it is only computed for the rows returned (a handful of holdings each).
create or replace view public.market_tokens as
select
  t.id,
  t.owner_id,
  t.name,
  t.username,
  t.category,
  t.reputation_score,
  t.avatar_url,
  t.verified,
  t.total_supply,
  s.price,
  s.change_24h,
  s.volume_24h,
  s.market_cap,
  s.holders,
  t.total_supply - (select coalesce(sum(h.amount), 0) from public.holdings h
                    where h.token_id = t.id and h.user_id <> private.issuance_account()) as available_supply
from public.tokens t
join private.token_stats s on s.token_id = t.id;
revoke all on public.market_tokens from anon;
revoke insert, update, delete, truncate on public.market_tokens from authenticated;
grant select on public.market_tokens to authenticated;
