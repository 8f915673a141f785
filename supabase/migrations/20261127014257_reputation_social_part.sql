-- reputation_social_part: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

CREATE OR REPLACE FUNCTION public.reputation_components(p_token uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return (
  with t as (select k.*, p.created_at as person_since from public.tokens k left join public.profiles p on p.id = k.owner_id where k.id = p_token),
  -- Accounts named together in an active or confirmed alert on this token: their trades with each
  -- other and their holdings count for nothing.
  flagged as (
    select a.accounts from public.fraud_alerts a, t
     where a.token_id = t.id and a.status in ('open', 'reviewing', 'confirmed')
  ),
  -- No trust computed yet (no seeds): every account weighs 1.
  trust as (select not exists (select 1 from private.account_trust) as off),
  facts as (
    select t.verified,
           (select count(*) from public.holdings h where h.token_id = t.id and h.amount > 0 and h.user_id <> private.issuance_account()) as holders,
           (select coalesce(sum(case when trust.off then 1 else coalesce(a.weight, 0) end), 0) from public.holdings h
              left join private.account_trust a on a.user_id = h.user_id
             where h.token_id = t.id and h.amount > 0 and h.user_id <> private.issuance_account()
               and not exists (select 1 from flagged f where h.user_id = any (f.accounts))) as holders_weighted,
           (select coalesce(sum(tr.value), 0) from public.trades tr where tr.token_id = t.id and tr.created_at > now() - interval '30 days') as volume,
           (select coalesce(sum(tr.value * case when trust.off then 1 else least(coalesce(ab.weight, 0), coalesce(sel.weight, 0)) end), 0)
              from public.trades tr
              left join private.account_trust ab on ab.user_id = tr.buyer_id
              left join private.account_trust sel on sel.user_id = coalesce(tr.proceeds_to, tr.seller_id)
             where tr.token_id = t.id and tr.created_at > now() - interval '30 days'
               and not exists (select 1 from flagged f where tr.buyer_id = any (f.accounts) and tr.seller_id = any (f.accounts))) as volume_weighted,
           (select count(*) from public.trades tr where tr.token_id = t.id and tr.created_at > now() - interval '7 days') as trades_7d,
           (select case when count(*) < 2 or avg(tr.price) = 0 then null else stddev_samp(tr.price) / avg(tr.price) end
              from public.trades tr where tr.token_id = t.id and tr.created_at > now() - interval '7 days') as variation,
           extract(epoch from now() - coalesce(t.person_since, t.created_at)) / 86400 as age_days,
           (select count(*) from public.fraud_alerts a where t.owner_id = any (a.accounts) and a.status in ('open', 'reviewing')) as alerts,
           -- The person's social analysis over their connected accounts (social.sql), 0-100.
           (select (private.social_analysis(t.owner_id) ->> 'score')::numeric where t.owner_id is not null) as social_score
    from t, trust
  ),
  parts as (
    select holders, holders_weighted, volume, volume_weighted, trades_7d, variation, age_days, alerts, social_score,
           case when verified then 10 else 0 end::numeric as verified_points,
           least(20, 20 * ln(1 + holders_weighted::numeric) / ln(1001::numeric)) as holder_points,
           least(15, 15 * ln(1 + volume_weighted::numeric) / ln(1000001::numeric)) as volume_points,
           -- A Bayesian average: the observed stability weighs its trades against 20 trades at 7.5 points.
           (trades_7d * case when variation is null then 7.5 else greatest(0, least(15, 15 * (1 - 5 * variation))) end + 20 * 7.5)
             / (trades_7d + 20) as stability_points,
           least(10, greatest(0, 10 * age_days / 365)) as age_points,
           greatest(0, 10 - 5 * alerts)::numeric as alert_points,
           coalesce(20 * social_score / 100, 0) as social_points
    from facts
  )
  select jsonb_build_object(
    'verified', round(verified_points, 2), 'holders', round(holder_points, 2), 'volume', round(volume_points, 2),
    'stability', round(stability_points, 2), 'age', round(age_points, 2), 'alerts', round(alert_points, 2),
    'social', round(social_points, 2),
    -- Each part's most, as the formulas above cap them: the screens read them from here.
    'max', jsonb_build_object('verified', 10, 'holders', 20, 'volume', 15, 'stability', 15, 'age', 10, 'alerts', 10, 'social', 20),
    'score', round(least(100, greatest(0, verified_points + holder_points + volume_points + stability_points + age_points
                                          + alert_points + social_points)), 2),
    'facts', jsonb_build_object('holders', holders, 'holders_weighted', round(holders_weighted, 2),
                                'volume_30d', volume, 'volume_30d_weighted', round(volume_weighted, 2),
                                'trades_7d', trades_7d, 'price_variation_7d', round(variation, 4),
                                'account_age_days', floor(age_days), 'open_alerts', alerts,
                                'social_score', round(social_score, 2)))
  from parts);
end $function$;
