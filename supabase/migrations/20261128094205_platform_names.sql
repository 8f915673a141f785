-- platform_names: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.platform_name(p_platform text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$
  select coalesce(('{"x": "X", "instagram": "Instagram", "youtube": "YouTube", "tiktok": "TikTok",
                     "linkedin": "LinkedIn"}'::jsonb) ->> p_platform, p_platform)
$function$;

CREATE OR REPLACE FUNCTION private.record_social_read(p_account bigint, p_read jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  account public.social_accounts;
begin
  -- Someone else proved the handle meanwhile: one person per handle.
  select * into account from public.social_accounts where id = p_account;
  if exists (select 1 from public.social_accounts a
              where a.platform = account.platform and lower(a.handle) = lower(account.handle)
                and a.status = 'connected' and a.id <> p_account) then
    perform private.fail_social_job(p_account, format('@%s on %s is connected to another RepX account.', account.handle, private.platform_name(account.platform)));
    return;
  end if;
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
             ('reach', per.reach, (select string_agg(format('%s followers on %s', to_char(followers, 'FM999,999,999,990'), private.platform_name(platform)), '; ' order by followers desc) from acc)),
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
  if account.id is null then perform private.refuse(format('Start connecting your %s account first.', coalesce(private.platform_name(p_platform), 'social'))); end if;
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
  if not found then perform private.refuse(format('No %s account is connected.', coalesce(private.platform_name(p_platform), 'social'))); end if;
  perform private.record_social_score(uid);
end $function$;

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
    perform private.refuse('Choose X, Instagram, YouTube, TikTok or LinkedIn.');
  end if;
  if v_handle !~ '^[A-Za-z0-9_.-]{1,50}$' then
    perform private.refuse(format('The %s handle "%s" is not valid: letters, digits, dots, dashes and underscores only.', private.platform_name(p_platform), v_handle));
  end if;
  if exists (select 1 from public.social_accounts a where a.platform = p_platform and lower(a.handle) = lower(v_handle)
               and a.status = 'connected' and a.user_id <> uid) then
    perform private.refuse(format('@%s on %s is connected to another RepX account.', v_handle, private.platform_name(p_platform)));
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

revoke all on routine private.platform_name(text) from public;
