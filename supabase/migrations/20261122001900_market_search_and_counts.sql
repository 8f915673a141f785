-- The market's search and its counts, without reading every token.
--
-- Search matches a part of a name, a username or a category, case-insensitively (ilike '%text%'):
-- trigram indexes answer that from an index (pg_trgm, available on Supabase and in PGlite).
create extension if not exists pg_trgm with schema extensions;
create index if not exists tokens_name_trgm_idx on public.tokens using gin (name extensions.gin_trgm_ops);
create index if not exists tokens_username_trgm_idx on public.tokens using gin (username extensions.gin_trgm_ops);
create index if not exists tokens_category_trgm_idx on public.tokens using gin (category extensions.gin_trgm_ops);

-- How many tokens each category has, kept by a trigger: the market's page count and its category
-- list read a handful of rows instead of counting every token.
create table private.token_counts (
  category text primary key,
  tokens bigint not null check (tokens >= 0)
);
revoke all on private.token_counts from public, anon, authenticated;
insert into private.token_counts (category, tokens) select category, count(*) from public.tokens group by category;

create or replace function private.count_tokens() returns trigger
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

-- The categories with their token counts (the market's filter).
create or replace view public.token_categories as
select category, tokens::int as tokens from private.token_counts;

-- The four figures above the market table.
create or replace view public.market_summary as
select
  (select coalesce(sum(market_cap), 0) from private.token_stats) as total_market_cap,
  (select coalesce(sum(value), 0) from public.trades where created_at > now() - interval '24 hours') as volume_24h,
  (select coalesce(sum(tokens), 0)::bigint from private.token_counts) as active_tokens,
  (select count(distinct user_id) from public.holdings where amount > 0 and user_id <> private.issuance_account()) as total_traders;
revoke all on public.market_summary, public.token_categories from anon;
grant select on public.market_summary, public.token_categories to authenticated;
