-- Reputation: a token's score out of 100, recomputed hourly from what the database knows of it,
-- with a point per month for the profile's history chart, and a person's achievements.
--
-- The score's parts (reputation_components), each capped so that no one part buys the score:
--   verified 10, holders up to 20 and 30-day volume up to 15 (both on a log scale), price
--   stability over 7 days up to 15, age of the person's account up to 10 (a year for all of it),
--   10 less 5 for each open or reviewed fraud alert naming the token's person, and the social
--   analysis of the person's connected accounts up to 20 (social.sql: its score out of 100, x 0.2).
--
-- Holders and volume count by trust, so that accounts made to trade among themselves buy nothing:
-- - Each account's trust comes from an EigenTrust propagation over the last 90 days of trades and
--   today's holdings (private.refresh_trust, hourly before the rescoring), seeded by the verified
--   accounts older than 90 days. An account's weight is its trust times the number of seeds,
--   capped at 1: a seed weighs about 1, an account nobody trusted trades with about 0.
-- - A holder counts its weight; a trade counts its value times the lesser weight of its two sides.
-- - Trades between accounts named together in an open, reviewed or confirmed fraud alert on the
--   token, and those accounts' holdings of it, count for nothing.
-- - Stability shrinks toward the neutral 7.5 points by a Bayesian average with a prior of 20
--   trades: a token with three trades cannot look steadier than one with three thousand.
-- Without any seed (a new installation), every weight is 1 and the raw figures count.

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

-- Each account's trust and the weight it gives its holdings and trades (see the header).
create table private.account_trust (
  user_id uuid primary key references public.profiles (id) on delete cascade,
  trust double precision not null,
  weight numeric not null check (weight between 0 and 1)
);

-- EigenTrust over the trading graph: each account spreads its trust over those it traded with in
-- the last 90 days (by value) and the people whose tokens it holds (by value now), and 15% of all
-- trust returns to the seeds at each step; 20 steps. Trades in an active or confirmed fraud alert
-- between its accounts carry none. Returns the number of seeds (0: no trust, every weight 1).
create function private.refresh_trust() returns integer
language plpgsql security definer set search_path = '' as $$
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
end $$;
revoke execute on function private.refresh_trust() from public;

-- A token's score and its parts, with the facts they come from (the profile shows them).
create function public.reputation_components(p_token uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
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
end $$;
revoke execute on function public.reputation_components(uuid) from public, anon;

-- The score as last computed, with the parts and facts it was computed from: what the screens
-- show and explain. The score itself is tokens.reputation_score, which the market lists and
-- filters; the two are written together (private.rescore), so the number a screen explains is
-- the number it shows, at every moment.
create table public.reputation_scores (
  token_id uuid primary key references public.tokens (id) on delete cascade,
  parts jsonb not null,
  scored_at timestamptz not null default now()
);
alter table public.reputation_scores enable row level security;
create policy "scores are visible to signed-in users" on public.reputation_scores
  for select to authenticated using (true);
revoke all on public.reputation_scores from anon;
revoke insert, update, delete, truncate on public.reputation_scores from authenticated;

-- Scores a token now: its parts by the formula, its score, and the snapshot the screens explain.
-- The one place a score is written. Returns whether the score changed.
create function private.rescore(p_token uuid) returns boolean
language plpgsql security definer set search_path = '' as $$
declare
  parts jsonb := public.reputation_components(p_token);
begin
  insert into public.reputation_scores (token_id, parts, scored_at) values (p_token, parts, now())
  on conflict (token_id) do update set parts = excluded.parts, scored_at = excluded.scored_at;
  update public.tokens k set reputation_score = (parts ->> 'score')::numeric
   where k.id = p_token and k.reputation_score is distinct from (parts ->> 'score')::numeric;
  return found;
end $$;
revoke execute on function private.rescore(uuid) from public;

-- The token's score as the screens show it, and its parts as they were computed (a token not yet
-- scored has none: null).
create function public.reputation_breakdown(p_token uuid) returns jsonb
language sql stable security invoker set search_path = '' as $$
  select s.parts || jsonb_build_object('scored_at', s.scored_at) from public.reputation_scores s where s.token_id = p_token
$$;
revoke execute on function public.reputation_breakdown(uuid) from public, anon;

create function private.refresh_reputation() returns integer
language plpgsql security definer set search_path = '' as $$
declare
  changed integer := 0;
  tok uuid;
begin
  perform private.refresh_trust();
  -- Each token's row in token order, as the market figures' slide locks them (no deadlock).
  for tok in select k.id from public.tokens k order by k.id loop
    if private.rescore(tok) then changed := changed + 1; end if;
  end loop;
  insert into public.reputation_history (token_id, month, score)
  select k.id, date_trunc('month', now())::date, k.reputation_score from public.tokens k
  on conflict (token_id, month) do update set score = excluded.score;
  return changed;
end $$;
revoke execute on function private.refresh_reputation() from public;
