-- A token's price history begins at its listing. The chart of a token listed ten minutes ago drew
-- its issue price across the whole day, as if it had traded at that price before it existed; an
-- hour that ended before the token was created now has no price (null), and the chart leaves it
-- empty. The hour of the listing shows the price at its end, as every other hour does. Copied
-- whole from 20261123002500 but for the token row and the hour's test.

create or replace function public.price_history(p_token uuid, p_hours integer default 24)
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
