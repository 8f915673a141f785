-- connected_social_accounts: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

drop function if exists private.social_links(jsonb);

drop function if exists public.admin_list_applications(text);

drop function if exists public.apply_for_token(text,text,text,jsonb);

create table public.social_accounts ();

create table public.social_evidence ();

create table private.social_reads ();

create table public.social_history ();

create table private.social_attempts ();

alter table public.social_accounts add column "id" bigint generated always as identity;

alter table public.social_accounts add column "user_id" uuid not null;

alter table public.social_accounts add column "platform" text not null;

alter table public.social_accounts add column "handle" text not null;

alter table public.social_accounts add column "status" text default 'proving'::text not null;

alter table public.social_accounts add column "phrase" text not null;

alter table public.social_accounts add column "message" text;

alter table public.social_accounts add column "created_at" timestamp with time zone default now() not null;

alter table public.social_accounts add column "connected_at" timestamp with time zone;

alter table public.social_accounts add column "read_at" timestamp with time zone;

alter table public.social_accounts add column "due_at" timestamp with time zone;

alter table public.social_accounts add column "claimed_until" timestamp with time zone;

alter table public.social_accounts add column "followers" bigint;

alter table public.social_accounts add column "following" bigint;

alter table public.social_accounts add column "account_created" date;

alter table public.social_accounts add column "platform_verified" boolean;

alter table public.social_accounts add column "engagement_rate" numeric(8,4);

alter table public.social_accounts add column "posts_read" integer;

alter table public.social_accounts add column "analysis" jsonb;

alter table public.social_evidence add column "id" bigint generated always as identity;

alter table public.social_evidence add column "account_id" bigint not null;

alter table public.social_evidence add column "reason" text not null;

alter table public.social_evidence add column "posted_at" timestamp with time zone not null;

alter table public.social_evidence add column "text" text not null;

alter table public.social_evidence add column "likes" integer default 0 not null;

alter table public.social_evidence add column "replies" integer default 0 not null;

alter table public.social_evidence add column "reposts" integer default 0 not null;

alter table public.social_evidence add column "views" integer;

alter table private.social_reads add column "account_id" bigint not null;

alter table private.social_reads add column "read_on" date not null;

alter table private.social_reads add column "followers" bigint not null;

alter table private.social_reads add column "engagement_rate" numeric(8,4) not null;

alter table public.social_history add column "user_id" uuid not null;

alter table public.social_history add column "month" date not null;

alter table public.social_history add column "score" numeric(5,2) not null;

alter table private.social_attempts add column "user_id" uuid not null;

alter table private.social_attempts add column "at" timestamp with time zone default now() not null;

CREATE OR REPLACE FUNCTION private.claim_social_job(p_lease interval)
 RETURNS TABLE(id bigint, platform text, handle text, phrase text, status text)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
#variable_conflict use_column
begin
  return query
  update public.social_accounts a set claimed_until = now() + p_lease
   where a.id = (select s.id from public.social_accounts s
                  where s.due_at <= now() and s.status in ('checking', 'connected')
                    and (s.claimed_until is null or s.claimed_until < now())
                  order by s.due_at limit 1 for update skip locked)
  returning a.id, a.platform, a.handle, a.phrase, a.status;
end $function$;

CREATE OR REPLACE FUNCTION private.fail_social_job(p_account bigint, p_message text)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  update public.social_accounts
     set status = case when status = 'checking' then 'failed' else status end, message = p_message,
         due_at = case when status = 'connected' then now() + interval '1 hour' end, claimed_until = null
   where id = p_account;
end $function$;

CREATE OR REPLACE FUNCTION private.record_social_read(p_account bigint, p_read jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  account public.social_accounts;
begin
  update public.social_accounts
     set status = 'connected', message = null, connected_at = coalesce(connected_at, now()), read_at = now(),
         due_at = now() + make_interval(hours => (public.social_method() ->> 'read_every_hours')::integer), claimed_until = null,
         followers = (p_read ->> 'followers')::bigint, following = (p_read ->> 'following')::bigint,
         account_created = (p_read ->> 'accountCreated')::date, platform_verified = (p_read ->> 'verified')::boolean,
         engagement_rate = (p_read ->> 'engagementRate')::numeric, posts_read = (p_read ->> 'postsRead')::integer,
         analysis = p_read -> 'components'
   where id = p_account
  returning * into account;
  if account.id is null then return; end if; -- disconnected meanwhile
  delete from public.social_evidence where account_id = p_account;
  insert into public.social_evidence (account_id, reason, posted_at, text, likes, replies, reposts, views)
  select p_account, e ->> 'reason', (e ->> 'postedAt')::timestamptz, e ->> 'text', (e ->> 'likes')::integer,
         (e ->> 'replies')::integer, (e ->> 'reposts')::integer, (e ->> 'views')::integer
    from jsonb_array_elements(coalesce(p_read -> 'evidence', '[]')) e;
  insert into private.social_reads (account_id, read_on, followers, engagement_rate)
  values (p_account, current_date, account.followers, account.engagement_rate)
  on conflict (account_id, read_on) do update set followers = excluded.followers, engagement_rate = excluded.engagement_rate;
  perform private.record_social_score(account.user_id);
end $function$;

CREATE OR REPLACE FUNCTION private.record_social_score(p_user uuid)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  score numeric := (private.social_analysis(p_user) ->> 'score')::numeric;
begin
  if score is not null then
    insert into public.social_history (user_id, month, score) values (p_user, date_trunc('month', now())::date, score)
    on conflict (user_id, month) do update set score = excluded.score;
  end if;
  update public.tokens k set reputation_score = (public.reputation_components(k.id) ->> 'score')::numeric
   where k.owner_id = p_user;
end $function$;

CREATE OR REPLACE FUNCTION private.social_analysis(p_user uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  w jsonb := public.social_method() -> 'weights';
  result jsonb;
begin
  with acc as (
    select a.*, ln(1 + a.followers)::numeric as aud from public.social_accounts a
     where a.user_id = p_user and a.status = 'connected' and a.analysis is not null
  ),
  per as (
    select count(*) as n,
           sum(aud * (analysis ->> 'reach')::numeric) / nullif(sum(aud), 0) as reach,
           sum(aud * (analysis ->> 'engagement')::numeric) / nullif(sum(aud), 0) as engagement,
           sum(aud * (analysis ->> 'tone')::numeric) / nullif(sum(aud), 0) as tone,
           min((analysis ->> 'authenticity')::numeric) as authenticity,
           max((analysis ->> 'engagement')::numeric) - min((analysis ->> 'engagement')::numeric) as engagement_spread,
           max((analysis ->> 'tone')::numeric) - min((analysis ->> 'tone')::numeric) as tone_spread
      from acc
  ),
  over_time as (
    select avg(cv) as cv, max(reads) as reads from (
      select r.account_id, count(*) as reads,
             case when avg(r.engagement_rate) > 0 then stddev_samp(r.engagement_rate) / avg(r.engagement_rate) end as cv
        from (select r.*, row_number() over (partition by r.account_id order by r.read_on desc) as k
                from private.social_reads r join acc on acc.id = r.account_id) r
       where r.k <= 30 group by r.account_id having count(*) >= 3) x
  ),
  consistency as (
    select case when per.n >= 2 and over_time.cv is not null
                  then ((100 - (per.engagement_spread + per.tone_spread) / 2) + greatest(0, 100 - 100 * over_time.cv)) / 2
                when per.n >= 2 then 100 - (per.engagement_spread + per.tone_spread) / 2
                when over_time.cv is not null then greatest(0, 100 - 100 * over_time.cv)
                else 50 end as value,
           case when per.n >= 2 then format('%s platforms, their engagement and tone within %s points of each other',
                                            per.n, round(greatest(per.engagement_spread, per.tone_spread)))
                else 'one platform: nothing to compare across platforms' end
           || case when over_time.cv is not null then format('; engagement varied %s%% over %s daily reads', round(100 * over_time.cv), over_time.reads)
                   else '; fewer than three daily reads yet' end as evidence
      from per, over_time
  ),
  comp as (
    select c.key, c.value, (w ->> c.key)::numeric as weight, c.evidence
      from per, consistency,
           lateral (values
             ('reach', per.reach, (select string_agg(format('%s followers on %s', to_char(followers, 'FM999,999,999,990'), platform), '; ' order by followers desc) from acc)),
             ('engagement', per.engagement, (select string_agg(analysis -> 'evidence' ->> 'engagement', '; ' order by followers desc) from acc)),
             ('authenticity', per.authenticity, (select coalesce(string_agg(x, '; '), 'no sign of bought followers or automation')
                                                  from acc, jsonb_array_elements_text(analysis -> 'warnings') x)),
             ('tone', per.tone, (select string_agg(analysis -> 'evidence' ->> 'tone', '; ' order by followers desc) from acc)),
             ('consistency', consistency.value, consistency.evidence)) c(key, value, evidence)
     where per.n > 0
  ),
  total as (select sum(value * weight) / 100 as score from comp)
  select jsonb_build_object(
    'score', round(total.score, 2),
    'components', jsonb_object_agg(comp.key, jsonb_build_object(
       'value', round(comp.value, 1), 'weight', comp.weight,
       'share', case when total.score > 0 then round(comp.value * comp.weight / 100 / total.score * 100, 1) else 0 end,
       'evidence', comp.evidence)),
    'warnings', (select coalesce(jsonb_agg(format('%s: %s', acc.platform, x)), '[]') from acc, jsonb_array_elements_text(acc.analysis -> 'warnings') x),
    'accounts', (select jsonb_agg(jsonb_build_object('platform', platform, 'handle', handle, 'url', private.social_url(platform, handle),
                                                     'followers', followers, 'following', following, 'engagement_rate', engagement_rate,
                                                     'read_at', read_at) order by followers desc) from acc),
    'analysed_at', (select max(read_at) from acc))
    into result
    from comp, total group by total.score;
  return result;
end $function$;

CREATE OR REPLACE FUNCTION private.social_url(p_platform text, p_handle text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$
  select (('{"x": "https://x.com/", "instagram": "https://instagram.com/", "youtube": "https://youtube.com/@",
            "tiktok": "https://tiktok.com/@", "linkedin": "https://linkedin.com/in/"}'::jsonb) ->> p_platform) || p_handle
$function$;

CREATE OR REPLACE FUNCTION public.admin_list_applications(p_status text DEFAULT 'pending'::text)
 RETURNS TABLE(id bigint, user_id uuid, username text, email text, display_name text, category text, bio text, socials jsonb, status text, reason text, token_id uuid, created_at timestamp with time zone, decided_at timestamp with time zone, namesakes jsonb, analysis jsonb)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  perform private.require_admin();
  return query
    select a.id, a.user_id, p.username, u.email::text, a.display_name, a.category, a.bio, a.socials, a.status, a.reason,
           a.token_id, a.created_at, a.decided_at,
           coalesce((select jsonb_agg(jsonb_build_object('name', t.name, 'username', t.username, 'verified', t.verified)
                                      order by t.username)
                       from public.tokens t
                      where private.name_key(t.name) = private.name_key(a.display_name)
                        and t.owner_id is distinct from a.user_id), '[]'::jsonb),
           -- The applicant's social analysis now, with its evidence and warnings (social.sql).
           private.social_analysis(a.user_id)
    from public.token_applications a join public.profiles p on p.id = a.user_id join auth.users u on u.id = a.user_id
    where p_status is null or a.status = p_status
    order by a.created_at, a.id
    limit 500;
end $function$;

CREATE OR REPLACE FUNCTION public.apply_for_token(p_display_name text, p_category text, p_bio text DEFAULT ''::text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.active_caller();
  app public.token_applications;
begin
  perform 1 from public.profiles where id = uid for update; -- one application at a time per person
  if exists (select 1 from public.tokens where owner_id = uid) then perform private.refuse('You already have a token.'); end if;
  if exists (select 1 from public.token_applications where user_id = uid and status = 'pending') then
    perform private.refuse('Your application is already waiting for review.');
  end if;
  if char_length(trim(coalesce(p_display_name, ''))) not between 2 and 80 then
    perform private.refuse('The display name needs 2 to 80 characters.');
  end if;
  if not exists (select 1 from public.categories where name = p_category) then
    perform private.refuse('Choose one of the categories.');
  end if;
  if char_length(coalesce(p_bio, '')) > 500 then perform private.refuse('The bio has at most 500 characters.'); end if;
  insert into public.token_applications (user_id, display_name, category, bio, socials)
  values (uid, trim(p_display_name), p_category, coalesce(trim(p_bio), ''),
          coalesce((select jsonb_agg(jsonb_build_object('platform', a.platform, 'handle', a.handle,
                                                        'url', private.social_url(a.platform, a.handle), 'followers', a.followers)
                                     order by a.platform)
                      from public.social_accounts a where a.user_id = uid and a.status = 'connected'), '[]'))
  returning * into app;
  return to_jsonb(app);
end $function$;

CREATE OR REPLACE FUNCTION public.check_social_connection(p_platform text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.active_caller();
  account public.social_accounts;
begin
  select * into account from public.social_accounts where user_id = uid and platform = p_platform for update;
  if account.id is null then perform private.refuse(format('Start connecting your %s account first.', coalesce(p_platform, 'social'))); end if;
  if account.status = 'connected' then perform private.refuse('This account is connected already.'); end if;
  if (select count(*) from private.social_attempts where user_id = uid and at > now() - interval '1 hour')
     >= (public.social_method() ->> 'proofs_per_hour')::integer then
    perform private.refuse('Too many checks in the last hour: try again later.');
  end if;
  insert into private.social_attempts (user_id) values (uid);
  update public.social_accounts set status = 'checking', message = null, due_at = now(), claimed_until = null
   where id = account.id returning * into account;
  perform pg_notify('repx_social', '');
  return jsonb_build_object('platform', account.platform, 'handle', account.handle, 'status', account.status);
end $function$;

CREATE OR REPLACE FUNCTION public.disconnect_social_account(p_platform text)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.active_caller();
begin
  delete from public.social_accounts where user_id = uid and platform = p_platform;
  if not found then perform private.refuse(format('No %s account is connected.', coalesce(p_platform, 'social'))); end if;
  perform private.record_social_score(uid);
end $function$;

CREATE OR REPLACE FUNCTION public.refresh_social_accounts()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.active_caller();
  wait interval := make_interval(mins => (public.social_method() ->> 'refresh_after_minutes')::integer);
  next_at timestamptz;
  n integer;
begin
  if not exists (select 1 from public.social_accounts where user_id = uid and status = 'connected') then
    perform private.refuse('Connect an account first.');
  end if;
  select min(read_at) + wait into next_at from public.social_accounts where user_id = uid and status = 'connected';
  if next_at > now() then
    perform private.refuse(format('Your accounts were read less than an hour ago: refresh again after %s UTC.',
      to_char(next_at at time zone 'UTC', 'HH24:MI')));
  end if;
  update public.social_accounts set due_at = now() where user_id = uid and status = 'connected';
  get diagnostics n = row_count;
  perform pg_notify('repx_social', '');
  return n;
end $function$;

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
    'score', round(least(100, greatest(0, verified_points + holder_points + volume_points + stability_points + age_points
                                          + alert_points + social_points)), 2),
    'facts', jsonb_build_object('holders', holders, 'holders_weighted', round(holders_weighted, 2),
                                'volume_30d', volume, 'volume_30d_weighted', round(volume_weighted, 2),
                                'trades_7d', trades_7d, 'price_variation_7d', round(variation, 4),
                                'account_age_days', floor(age_days), 'open_alerts', alerts,
                                'social_score', round(social_score, 2)))
  from parts);
end $function$;

CREATE OR REPLACE FUNCTION public.social_analysis(p_user uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  full_result jsonb := private.social_analysis(p_user);
begin
  if auth.uid() is null then perform private.refuse('Sign in to read an analysis.'); end if;
  if full_result is null or p_user = auth.uid() or private.is_admin() then return full_result; end if;
  return jsonb_build_object('score', full_result -> 'score', 'analysed_at', full_result -> 'analysed_at',
    'components', (select jsonb_object_agg(key, value - 'evidence') from jsonb_each(full_result -> 'components')));
end $function$;

CREATE OR REPLACE FUNCTION public.social_method()
 RETURNS jsonb
 LANGUAGE sql
 IMMUTABLE
AS $function$
  select jsonb_build_object(
    'weights', jsonb_build_object('reach', 25, 'engagement', 20, 'authenticity', 25, 'tone', 15, 'consistency', 15),
    'proofs_per_hour', 10,
    'refresh_after_minutes', 60,
    'read_every_hours', 24)
$function$;

CREATE OR REPLACE FUNCTION public.start_social_connection(p_platform text, p_handle text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.active_caller();
  v_handle text := trim(leading '@' from trim(coalesce(p_handle, '')));
  v_phrase text := 'repx-' || substr(md5(gen_random_uuid()::text), 1, 10);
  account public.social_accounts;
begin
  if p_platform is null or p_platform not in ('x', 'instagram', 'youtube', 'tiktok', 'linkedin') then
    perform private.refuse('Choose x, instagram, youtube, tiktok or linkedin.');
  end if;
  if v_handle !~ '^[A-Za-z0-9_.-]{1,50}$' then
    perform private.refuse(format('The %s handle "%s" is not valid: letters, digits, dots, dashes and underscores only.', p_platform, v_handle));
  end if;
  if exists (select 1 from public.social_accounts a where a.platform = p_platform and lower(a.handle) = lower(v_handle)
               and a.status = 'connected' and a.user_id <> uid) then
    perform private.refuse(format('@%s on %s is connected to another RepX account.', v_handle, p_platform));
  end if;
  insert into public.social_accounts (user_id, platform, handle, phrase)
  values (uid, p_platform, v_handle, v_phrase)
  on conflict (user_id, platform) do update
    set handle = excluded.handle, phrase = excluded.phrase, status = 'proving', message = null, created_at = now(),
        connected_at = null, read_at = null, due_at = null, followers = null, following = null, account_created = null,
        platform_verified = null, engagement_rate = null, posts_read = null, analysis = null
  returning * into account;
  -- A new handle starts afresh: nothing read from the old one stays.
  delete from public.social_evidence where account_id = account.id;
  delete from private.social_reads where account_id = account.id;
  return jsonb_build_object('platform', account.platform, 'handle', account.handle, 'phrase', account.phrase);
end $function$;

alter table private.social_reads add constraint "social_reads_pkey" PRIMARY KEY (account_id, read_on);

alter table public.social_accounts add constraint "social_accounts_followers_check" CHECK ((followers >= 0));

alter table public.social_accounts add constraint "social_accounts_following_check" CHECK ((following >= 0));

alter table public.social_accounts add constraint "social_accounts_handle_check" CHECK ((handle ~ '^[A-Za-z0-9_.-]{1,50}$'::text));

alter table public.social_accounts add constraint "social_accounts_pkey" PRIMARY KEY (id);

alter table public.social_accounts add constraint "social_accounts_platform_check" CHECK ((platform = ANY (ARRAY['x'::text, 'instagram'::text, 'youtube'::text, 'tiktok'::text, 'linkedin'::text])));

alter table public.social_accounts add constraint "social_accounts_status_check" CHECK ((status = ANY (ARRAY['proving'::text, 'checking'::text, 'connected'::text, 'failed'::text])));

alter table public.social_accounts add constraint "social_accounts_user_id_platform_key" UNIQUE (user_id, platform);

alter table public.social_evidence add constraint "social_evidence_pkey" PRIMARY KEY (id);

alter table public.social_history add constraint "social_history_pkey" PRIMARY KEY (user_id, month);

alter table public.social_history add constraint "social_history_score_check" CHECK (((score >= (0)::numeric) AND (score <= (100)::numeric)));

alter table private.social_attempts add constraint "social_attempts_user_id_fkey" FOREIGN KEY (user_id) REFERENCES profiles(id) ON DELETE CASCADE;

alter table private.social_reads add constraint "social_reads_account_id_fkey" FOREIGN KEY (account_id) REFERENCES social_accounts(id) ON DELETE CASCADE;

alter table public.social_accounts add constraint "social_accounts_user_id_fkey" FOREIGN KEY (user_id) REFERENCES profiles(id) ON DELETE CASCADE;

alter table public.social_evidence add constraint "social_evidence_account_id_fkey" FOREIGN KEY (account_id) REFERENCES social_accounts(id) ON DELETE CASCADE;

alter table public.social_history add constraint "social_history_user_id_fkey" FOREIGN KEY (user_id) REFERENCES profiles(id) ON DELETE CASCADE;

CREATE INDEX social_attempts_idx ON private.social_attempts USING btree (user_id, at);

CREATE INDEX social_accounts_due_idx ON public.social_accounts USING btree (due_at) WHERE (due_at IS NOT NULL);

CREATE UNIQUE INDEX social_accounts_handle_idx ON public.social_accounts USING btree (platform, lower(handle)) WHERE (status = 'connected'::text);

CREATE INDEX social_evidence_account_idx ON public.social_evidence USING btree (account_id);

create policy "own social accounts" on public.social_accounts as permissive for select to authenticated
  using (((user_id = ( SELECT auth.uid() AS uid)) OR ( SELECT private.is_admin() AS is_admin)));

create policy "own social evidence" on public.social_evidence as permissive for select to authenticated
  using ((( SELECT private.is_admin() AS is_admin) OR (EXISTS ( SELECT 1
   FROM social_accounts a
  WHERE ((a.id = social_evidence.account_id) AND (a.user_id = ( SELECT auth.uid() AS uid)))))));

create policy "social history is visible to signed-in users" on public.social_history as permissive for select to authenticated
  using (true);

alter table public.social_accounts enable row level security;

alter table public.social_evidence enable row level security;

alter table public.social_history enable row level security;

revoke all on routine private.claim_social_job(interval) from public;

revoke all on routine private.fail_social_job(bigint,text) from public;

revoke all on routine private.record_social_read(bigint,jsonb) from public;

revoke all on routine private.record_social_score(uuid) from public;

revoke all on routine private.social_analysis(uuid) from public;

revoke all on routine private.social_url(text,text) from public;

revoke all on routine public.apply_for_token(text,text,text) from anon;
revoke all on routine public.apply_for_token(text,text,text) from public;

revoke all on routine public.check_social_connection(text) from anon;
revoke all on routine public.check_social_connection(text) from public;

revoke all on routine public.disconnect_social_account(text) from anon;
revoke all on routine public.disconnect_social_account(text) from public;

revoke all on routine public.refresh_social_accounts() from anon;
revoke all on routine public.refresh_social_accounts() from public;

revoke all on routine public.social_analysis(uuid) from anon;
revoke all on routine public.social_analysis(uuid) from public;

revoke all on routine public.start_social_connection(text,text) from anon;
revoke all on routine public.start_social_connection(text,text) from public;

revoke all on table public.social_accounts from anon;
revoke insert, update, delete, truncate on table public.social_accounts from authenticated;

revoke all on table public.social_evidence from anon;
revoke insert, update, delete, truncate on table public.social_evidence from authenticated;

revoke all on table public.social_history from anon;
revoke insert, update, delete, truncate on table public.social_history from authenticated;

-- Re-created: its grants as the schema file gives them (db:diff drops them with the function).
revoke execute on function public.admin_list_applications(text) from public, anon;
