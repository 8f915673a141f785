-- Reputation: a token's score out of 100, recomputed hourly from what the database knows of it,
-- with a point per month for the profile's history chart, and a person's achievements.
--
-- The score's parts (reputation_components), each capped so that no one part buys the score:
--   verified 15, holders up to 20 and 30-day volume up to 20 (both on a log scale), price
--   stability over 7 days up to 20, age of the person's account up to 15 (a year for all of it),
--   and 10 less 5 for each open or reviewed fraud alert naming the token's person.

create table public.reputation_history (
  token_id uuid not null references public.tokens (id) on delete cascade,
  month date not null check (extract(day from month) = 1),
  score numeric(5, 2) not null check (score between 0 and 100),
  primary key (token_id, month)
);
alter table public.reputation_history enable row level security;
create policy "reputation history is visible to signed-in users" on public.reputation_history
  for select to authenticated using (true);
revoke all on public.reputation_history from anon;
revoke insert, update, delete, truncate on public.reputation_history from authenticated;

create table public.achievements (
  id bigint generated always as identity primary key,
  profile_id uuid not null references public.profiles (id) on delete cascade,
  title text not null,
  description text not null,
  achieved_on date not null
);
create index achievements_profile_idx on public.achievements (profile_id, achieved_on desc);
alter table public.achievements enable row level security;
create policy "achievements are visible to signed-in users" on public.achievements
  for select to authenticated using (true);
revoke all on public.achievements from anon;
revoke insert, update, delete, truncate on public.achievements from authenticated;

-- A token's score and its parts, with the facts they come from (the profile shows them).
create function public.reputation_components(p_token uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
begin
  return (
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
  from parts);
end $$;
revoke execute on function public.reputation_components(uuid) from public, anon;

create function private.refresh_reputation() returns integer
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
revoke execute on function private.refresh_reputation() from public;
