-- market_filters_read_one_table: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

drop view if exists public.market_tokens;

alter table private.token_stats add column "category" text;

alter table private.token_stats add column "reputation_score" numeric(5,2);

alter table private.token_stats add column "verified" boolean;

alter table private.token_stats add column "halted" boolean;
-- Written by hand: every token's fields copied before they are required.
update private.token_stats s
   set category = t.category, reputation_score = t.reputation_score, verified = t.verified, halted = t.halt_reason is not null
  from public.tokens t where t.id = s.token_id;
alter table private.token_stats alter column "category" set not null;
alter table private.token_stats alter column "reputation_score" set not null;
alter table private.token_stats alter column "verified" set not null;
alter table private.token_stats alter column "halted" set not null;

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
  select t.total_supply, t.issue_price, t.category, t.reputation_score, t.verified, t.halt_reason is not null as halted
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
                                        category, reputation_score, verified, halted)
  values (p_token, price, round(price * tok.total_supply, 2),
          private.change_pct(price, coalesce(day_ago, first, tok.issue_price)), volume, held,
          last_trade.created_at, last_trade.id, day_ago, first, oldest + interval '24 hours',
          tok.category, tok.reputation_score, tok.verified, tok.halted)
  on conflict (token_id) do update set
    price = excluded.price, market_cap = excluded.market_cap, change_24h = excluded.change_24h,
    volume_24h = excluded.volume_24h, last_trade_at = excluded.last_trade_at,
    last_trade_id = excluded.last_trade_id, day_ago_price = excluded.day_ago_price,
    first_price = excluded.first_price, slides_at = excluded.slides_at, category = excluded.category,
    reputation_score = excluded.reputation_score, verified = excluded.verified, halted = excluded.halted;
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
         halted = new.halt_reason is not null
   where token_id = new.id;
  return null;
end $function$;

create view public.market_tokens as
 SELECT s.token_id AS id,
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
    ((t.total_supply)::numeric - ( SELECT COALESCE(sum(h.amount), (0)::numeric) AS "coalesce"
           FROM holdings h
          WHERE ((h.token_id = t.id) AND (h.user_id <> private.issuance_account())))) AS available_supply,
    t.search_text,
    s.halted
   FROM (private.token_stats s
     LEFT JOIN tokens t ON ((t.id = s.token_id)));

CREATE INDEX token_stats_category_idx ON private.token_stats USING btree (category);

CREATE INDEX token_stats_reputation_idx ON private.token_stats USING btree (reputation_score, token_id);

CREATE TRIGGER tokens_stats_copy AFTER UPDATE OF category, reputation_score, verified, halt_reason ON public.tokens FOR EACH ROW WHEN (((old.category IS DISTINCT FROM new.category) OR (old.reputation_score IS DISTINCT FROM new.reputation_score) OR (old.verified IS DISTINCT FROM new.verified) OR ((old.halt_reason IS NULL) IS DISTINCT FROM (new.halt_reason IS NULL)))) EXECUTE FUNCTION private.stats_copy_token();
revoke all on public.market_tokens from anon;
revoke insert, update, delete, truncate on public.market_tokens from authenticated;
