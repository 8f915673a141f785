-- market_search_in_stats: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

drop trigger if exists "tokens_stats_copy" on public.tokens;

drop view if exists public.market_tokens;

drop index if exists private.token_stats_market_cap_idx;

drop index if exists public.tokens_search_trgm_idx;

-- Existing rows take their token's text before the column is required.
alter table private.token_stats add column "search_text" text;
update private.token_stats s set search_text = t.search_text from public.tokens t where t.id = s.token_id;
alter table private.token_stats alter column "search_text" set not null;

CREATE OR REPLACE FUNCTION private.refresh_token_stats(p_token uuid)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$;

CREATE OR REPLACE FUNCTION private.stats_copy_token()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  update private.token_stats
     set category = new.category, reputation_score = new.reputation_score, verified = new.verified,
         halted = new.halt_reason is not null, search_text = new.search_text
   where token_id = new.id;
  return null;
end $function$;

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

CREATE INDEX token_stats_market_cap_idx ON private.token_stats USING btree (market_cap, token_id) INCLUDE (price, change_24h, volume_24h, reputation_score, category, verified, halted, holders, search_text);

CREATE INDEX token_stats_search_trgm_idx ON private.token_stats USING gin (search_text extensions.gin_trgm_ops);

CREATE TRIGGER tokens_stats_copy AFTER UPDATE OF category, reputation_score, verified, halt_reason, name, username ON public.tokens FOR EACH ROW WHEN (((old.category IS DISTINCT FROM new.category) OR (old.reputation_score IS DISTINCT FROM new.reputation_score) OR (old.verified IS DISTINCT FROM new.verified) OR ((old.halt_reason IS NULL) IS DISTINCT FROM (new.halt_reason IS NULL)) OR (old.search_text IS DISTINCT FROM new.search_text))) EXECUTE FUNCTION private.stats_copy_token();

revoke all on table public.market_tokens from anon;
revoke insert, update, delete, truncate on table public.market_tokens from authenticated;
