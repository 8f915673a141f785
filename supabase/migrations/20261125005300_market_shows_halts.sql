-- The market says which tokens are halted (20261125005200), so a trader sees it before opening one.
-- As in 20261124002800, with `halted` added at the end.
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
                    where h.token_id = t.id and h.user_id <> private.issuance_account()) as available_supply,
  t.search_text,
  t.halt_reason is not null as halted
from public.tokens t
join private.token_stats s on s.token_id = t.id;
