-- Bounded growth: open orders are listed a page at a time, and what only matters for a while is
-- pruned on a schedule (the local server every 10 minutes; pg_cron on a hosted project).

create or replace function public.list_open_orders(p_token uuid default null, p_limit integer default 100, p_offset integer default 0)
returns setof public.orders
language sql stable security invoker set search_path = '' as $$
  select * from public.orders
  where user_id = auth.uid() and status = 'open' and (p_token is null or token_id = p_token)
  order by created_at desc, id desc
  limit least(greatest(coalesce(p_limit, 100), 1), 500) offset greatest(coalesce(p_offset, 0), 0)
$$;
create index if not exists orders_open_user_idx on public.orders (user_id, created_at desc) where status = 'open';
revoke execute on function public.list_open_orders(uuid, integer, integer) from public, anon;
grant execute on function public.list_open_orders(uuid, integer, integer) to authenticated;

-- Market events are signals for live screens: an hour is plenty. Sessions unused for 30 days end
-- (their refresh tokens with them); rotated refresh tokens are kept a day for reuse detection.
create or replace function private.prune() returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  events integer;
  sessions integer;
  tokens integer;
begin
  delete from public.market_events where created_at < now() - interval '1 hour';
  get diagnostics events = row_count;
  delete from auth.sessions where coalesce(refreshed_at, created_at) < now() - interval '30 days';
  get diagnostics sessions = row_count;
  delete from auth.refresh_tokens where revoked and updated_at < now() - interval '1 day';
  get diagnostics tokens = row_count;
  return jsonb_build_object('market_events', events, 'sessions', sessions, 'refresh_tokens', tokens);
end $$;
revoke all on function private.prune() from public;
