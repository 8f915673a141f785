-- The reputation score: one documented formula over what the exchange knows, no invented figure.
-- Out of 100:
--   verified person ............................... 15
--   holders ....................................... up to 20   20 * ln(1 + holders) / ln(1 + 1,000)
--   traded volume, 30 days ........................ up to 20   20 * ln(1 + volume) / ln(1 + 1,000,000)
--   price stability, 7 days ....................... up to 20   20 * (1 - 5 * coefficient of variation of trade prices)
--                                                              (10 with fewer than two trades)
--   account age of the person ..................... up to 15   15 * days / 365
--   no open fraud alert on the person ............. up to 10   10 - 5 per open alert
-- Each part is clamped to its range. Recomputed on a schedule (hourly in the local server; pg_cron on
-- a hosted project), with the month's value kept in reputation_history for the profile's Analytics.

create or replace function public.reputation_components(p_token uuid) returns jsonb
language sql stable security definer set search_path = '' as $$
  with t as (select k.*, p.created_at as person_since from public.tokens k left join public.profiles p on p.id = k.owner_id where k.id = p_token),
  facts as (
    select t.verified,
           (select count(*) from public.holdings h where h.token_id = t.id and h.amount > 0 and h.user_id <> private.issuance_account()) as holders,
           (select coalesce(sum(tr.value), 0) from public.trades tr where tr.token_id = t.id and tr.created_at > now() - interval '30 days') as volume,
           (select case when count(*) < 2 or avg(tr.price) = 0 then null else stddev_samp(tr.price) / avg(tr.price) end
              from public.trades tr where tr.token_id = t.id and tr.created_at > now() - interval '7 days') as variation,
           extract(epoch from now() - coalesce(t.person_since, t.created_at)) / 86400 as age_days,
           (select count(*) from public.fraud_alerts a where t.owner_id = any (a.accounts) and a.status in ('open', 'reviewing')) as alerts
    from t
  ),
  parts as (
    select holders, volume, variation, age_days, alerts,
           case when verified then 15 else 0 end::numeric as verified_points,
           least(20, 20 * ln(1 + holders::numeric) / ln(1001::numeric)) as holder_points,
           least(20, 20 * ln(1 + volume::numeric) / ln(1000001::numeric)) as volume_points,
           case when variation is null then 10 else greatest(0, least(20, 20 * (1 - 5 * variation))) end as stability_points,
           least(15, greatest(0, 15 * age_days / 365)) as age_points,
           greatest(0, 10 - 5 * alerts)::numeric as alert_points
    from facts
  )
  select jsonb_build_object(
    'verified', round(verified_points, 2), 'holders', round(holder_points, 2), 'volume', round(volume_points, 2),
    'stability', round(stability_points, 2), 'age', round(age_points, 2), 'alerts', round(alert_points, 2),
    'score', round(least(100, greatest(0, verified_points + holder_points + volume_points + stability_points + age_points + alert_points)), 2),
    'facts', jsonb_build_object('holders', holders, 'volume_30d', volume, 'price_variation_7d', round(variation, 4),
                                'account_age_days', floor(age_days), 'open_alerts', alerts))
  from parts
$$;

-- Recomputes every token's score and this month's history point; returns how many changed.
create or replace function private.refresh_reputation() returns integer
language plpgsql security definer set search_path = '' as $$
declare
  changed integer;
begin
  with scores as (select k.id, (public.reputation_components(k.id) ->> 'score')::numeric as score from public.tokens k),
  updated as (
    update public.tokens k set reputation_score = s.score from scores s
     where s.id = k.id and k.reputation_score is distinct from s.score
    returning k.id
  )
  select count(*) into changed from updated;
  insert into public.reputation_history (token_id, month, score)
  select k.id, date_trunc('month', now())::date, k.reputation_score from public.tokens k
  on conflict (token_id, month) do update set score = excluded.score;
  return changed;
end $$;

revoke all on function private.refresh_reputation() from public;
revoke execute on function public.reputation_components(uuid) from public, anon;
grant execute on function public.reputation_components(uuid) to authenticated;
