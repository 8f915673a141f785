-- Revenue Reports: the exchange's fee revenue (both sides of every trade) by day, by week or by
-- token, over the last `p_days` days (null: since the first trade). The revenue column sums to the
-- trade fees of the period to the cent, so an export reconciles with the ledger.
create or replace function public.admin_revenue(p_group text default 'day', p_days integer default 30)
returns table (bucket text, starts timestamptz, trades bigint, volume numeric, revenue numeric)
language plpgsql stable security definer set search_path = '' as $$
declare
  since timestamptz;
begin
  perform private.require_admin();
  if p_group is null or p_group not in ('day', 'week', 'token') then perform private.refuse('Group revenue by day, week or token.'); end if;
  if p_days is not null and p_days not between 1 and 3650 then perform private.refuse('The period is 1 to 3,650 days.'); end if;
  since := case when p_days is null then coalesce((select min(created_at) from public.trades), now())
                else date_trunc('day', now()) - make_interval(days => p_days - 1) end;
  if p_group = 'token' then
    return query
      select k.name || ' (@' || k.username || ')', min(t.created_at), count(*), sum(t.value), sum(t.buyer_fee + t.seller_fee)
      from public.trades t join public.tokens k on k.id = t.token_id
      where t.created_at >= since
      group by k.id, k.name, k.username
      order by sum(t.buyer_fee + t.seller_fee) desc, k.name;
  else
    return query
      select to_char(b, case p_group when 'day' then 'YYYY-MM-DD' else 'IYYY-"W"IW' end), b,
             count(t.id), coalesce(sum(t.value), 0), coalesce(sum(t.buyer_fee + t.seller_fee), 0)
      from generate_series(date_trunc(p_group, since), date_trunc(p_group, now()), ('1 ' || p_group)::interval) b
      left join public.trades t on t.created_at >= greatest(b, since) and t.created_at < b + ('1 ' || p_group)::interval
      group by b
      order by b desc;
  end if;
end $$;

revoke execute on function public.admin_revenue(text, integer) from public, anon;
grant execute on function public.admin_revenue(text, integer) to authenticated;
