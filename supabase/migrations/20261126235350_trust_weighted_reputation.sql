-- trust_weighted_reputation: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

create table private.account_trust ();

alter table private.account_trust add column "user_id" uuid not null;

alter table private.account_trust add column "trust" double precision not null;

alter table private.account_trust add column "weight" numeric not null;

CREATE OR REPLACE FUNCTION private.refresh_reputation()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  changed integer;
begin
  perform private.refresh_trust();
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
end $function$;

CREATE OR REPLACE FUNCTION private.refresh_trust()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  seeds integer;
  alpha constant double precision := 0.15;
  dangling double precision;
begin
  drop table if exists trust_seed, trust_edge, trust_now, trust_next; -- a second run in one transaction
  delete from private.account_trust;
  create temporary table trust_seed on commit drop as
    select p.id as user_id from public.profiles p
     where p.verified and p.created_at <= now() - interval '90 days' and p.id <> private.issuance_account();
  select count(*) into seeds from trust_seed;
  if seeds = 0 then return 0; end if;

  create temporary table trust_edge on commit drop as
  with raw as (
    select tr.buyer_id as src, coalesce(tr.proceeds_to, tr.seller_id) as dst, tr.value::double precision as w
      from public.trades tr
     where tr.created_at > now() - interval '90 days'
       and not exists (select 1 from public.fraud_alerts a where a.token_id = tr.token_id and a.status in ('open', 'reviewing', 'confirmed')
                          and tr.buyer_id = any (a.accounts) and tr.seller_id = any (a.accounts))
    union all
    select coalesce(tr.proceeds_to, tr.seller_id), tr.buyer_id, tr.value::double precision
      from public.trades tr
     where tr.created_at > now() - interval '90 days'
       and not exists (select 1 from public.fraud_alerts a where a.token_id = tr.token_id and a.status in ('open', 'reviewing', 'confirmed')
                          and tr.buyer_id = any (a.accounts) and tr.seller_id = any (a.accounts))
    union all
    select h.user_id, k.owner_id, (h.amount * s.price)::double precision
      from public.holdings h join public.tokens k on k.id = h.token_id join private.token_stats s on s.token_id = h.token_id
     where k.owner_id is not null and h.amount > 0 and h.user_id <> k.owner_id
  ),
  pairs as (
    select r.src, r.dst, sum(r.w) as w from raw r
     where r.src <> r.dst and r.src <> private.issuance_account() and r.dst <> private.issuance_account()
     group by r.src, r.dst
  )
  select p.src, p.dst, p.w / sum(p.w) over (partition by p.src) as c from pairs p where p.w > 0;

  create temporary table trust_now on commit drop as
    select s.user_id, 1.0::double precision / seeds as t from trust_seed s;
  for step in 1 .. 20 loop
    -- Trust held by accounts that trade with no one goes back to the seeds.
    select coalesce(sum(n.t), 0) into dangling from trust_now n
     where not exists (select 1 from trust_edge e where e.src = n.user_id);
    create temporary table trust_next on commit drop as
      select x.user_id, sum(x.t) as t from (
        select e.dst as user_id, (1 - alpha) * n.t * e.c as t from trust_now n join trust_edge e on e.src = n.user_id
        union all
        select s.user_id, (alpha + (1 - alpha) * dangling) / seeds from trust_seed s
      ) x group by x.user_id;
    drop table trust_now;
    alter table trust_next rename to trust_now;
  end loop;

  insert into private.account_trust (user_id, trust, weight)
  select n.user_id, n.t, least(1, n.t * seeds)::numeric from trust_now n;
  return seeds;
end $function$;

CREATE OR REPLACE FUNCTION private.trust_weight(p_user uuid)
 RETURNS numeric
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select case when not exists (select 1 from private.account_trust) then 1
              else coalesce((select t.weight from private.account_trust t where t.user_id = p_user), 0) end
$function$;

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
  facts as (
    select t.verified,
           (select count(*) from public.holdings h where h.token_id = t.id and h.amount > 0 and h.user_id <> private.issuance_account()) as holders,
           (select coalesce(sum(private.trust_weight(h.user_id)), 0) from public.holdings h
             where h.token_id = t.id and h.amount > 0 and h.user_id <> private.issuance_account()
               and not exists (select 1 from flagged f where h.user_id = any (f.accounts))) as holders_weighted,
           (select coalesce(sum(tr.value), 0) from public.trades tr where tr.token_id = t.id and tr.created_at > now() - interval '30 days') as volume,
           (select coalesce(sum(tr.value * least(private.trust_weight(tr.buyer_id),
                                                 private.trust_weight(coalesce(tr.proceeds_to, tr.seller_id)))), 0)
              from public.trades tr where tr.token_id = t.id and tr.created_at > now() - interval '30 days'
               and not exists (select 1 from flagged f where tr.buyer_id = any (f.accounts) and tr.seller_id = any (f.accounts))) as volume_weighted,
           (select count(*) from public.trades tr where tr.token_id = t.id and tr.created_at > now() - interval '7 days') as trades_7d,
           (select case when count(*) < 2 or avg(tr.price) = 0 then null else stddev_samp(tr.price) / avg(tr.price) end
              from public.trades tr where tr.token_id = t.id and tr.created_at > now() - interval '7 days') as variation,
           extract(epoch from now() - coalesce(t.person_since, t.created_at)) / 86400 as age_days,
           (select count(*) from public.fraud_alerts a where t.owner_id = any (a.accounts) and a.status in ('open', 'reviewing')) as alerts
    from t
  ),
  parts as (
    select holders, holders_weighted, volume, volume_weighted, trades_7d, variation, age_days, alerts,
           case when verified then 15 else 0 end::numeric as verified_points,
           least(20, 20 * ln(1 + holders_weighted::numeric) / ln(1001::numeric)) as holder_points,
           least(20, 20 * ln(1 + volume_weighted::numeric) / ln(1000001::numeric)) as volume_points,
           -- A Bayesian average: the observed stability weighs its trades against 20 trades at 10 points.
           (trades_7d * case when variation is null then 10 else greatest(0, least(20, 20 * (1 - 5 * variation))) end + 20 * 10)
             / (trades_7d + 20) as stability_points,
           least(15, greatest(0, 15 * age_days / 365)) as age_points,
           greatest(0, 10 - 5 * alerts)::numeric as alert_points
    from facts
  )
  select jsonb_build_object(
    'verified', round(verified_points, 2), 'holders', round(holder_points, 2), 'volume', round(volume_points, 2),
    'stability', round(stability_points, 2), 'age', round(age_points, 2), 'alerts', round(alert_points, 2),
    'score', round(least(100, greatest(0, verified_points + holder_points + volume_points + stability_points + age_points + alert_points)), 2),
    'facts', jsonb_build_object('holders', holders, 'holders_weighted', round(holders_weighted, 2),
                                'volume_30d', volume, 'volume_30d_weighted', round(volume_weighted, 2),
                                'trades_7d', trades_7d, 'price_variation_7d', round(variation, 4),
                                'account_age_days', floor(age_days), 'open_alerts', alerts))
  from parts);
end $function$;

alter table private.account_trust add constraint "account_trust_pkey" PRIMARY KEY (user_id);

alter table private.account_trust add constraint "account_trust_weight_check" CHECK (((weight >= (0)::numeric) AND (weight <= (1)::numeric)));

alter table private.account_trust add constraint "account_trust_user_id_fkey" FOREIGN KEY (user_id) REFERENCES profiles(id) ON DELETE CASCADE;

revoke all on routine private.refresh_trust() from public;

revoke all on routine private.trust_weight(uuid) from public;
