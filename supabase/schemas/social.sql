-- Connected social accounts and the reputation analysis over them (docs/social.md).
--
-- A person connects a handle on x, instagram, youtube, tiktok or linkedin: RepX issues a one-time
-- phrase, the person puts it in the account's bio, and asks RepX to check. The server's social
-- worker (server/social/) asks the platform's provider whether the phrase is there, reads
-- the public profile and recent posts, and analyses each account (reach, engagement, authenticity,
-- tone: analysis.ts, which needs the posts and a sentiment lexicon). It writes here what the
-- analysis needs and nothing more: the profile's figures, each account's components with their
-- evidence, the few posts cited, and a daily read of the figures (for consistency over time).
-- Posts are not kept otherwise; disconnecting deletes everything read from the account.
--
-- How the accounts combine into one analysis, and the social component of the reputation score,
-- are the database's (private.social_analysis, reputation.sql). Accounts are re-read daily by the
-- scheduler and on the person's "Refresh now" (once an hour per account).

create table public.social_accounts (
  id bigint generated always as identity primary key,
  user_id uuid not null references public.profiles (id) on delete cascade,
  platform text not null check (platform in ('x', 'instagram', 'youtube', 'tiktok', 'linkedin')),
  handle text not null check (handle ~ '^[A-Za-z0-9_.-]{1,50}$'),
  -- proving: the phrase is issued; checking: the worker is asked to look; connected; failed (why).
  status text not null default 'proving' check (status in ('proving', 'checking', 'connected', 'failed')),
  phrase text not null,
  message text,
  created_at timestamptz not null default now(),
  connected_at timestamptz,
  -- The last read, and when the worker reads it next (null: not due); a claim's lease.
  read_at timestamptz,
  due_at timestamptz,
  claimed_until timestamptz,
  -- The public profile as last read.
  followers bigint check (followers >= 0),
  following bigint check (following >= 0),
  account_created date,
  platform_verified boolean,
  engagement_rate numeric(8, 4),
  posts_read integer,
  -- The account's components (0-100 each: reach, engagement, authenticity, tone), their evidence
  -- and warnings, as analysis.ts wrote them.
  analysis jsonb,
  unique (user_id, platform)
);
-- One person per handle: a handle proven by someone is not connected by another.
create unique index social_accounts_handle_idx on public.social_accounts (platform, lower(handle)) where status = 'connected';
create index social_accounts_due_idx on public.social_accounts (due_at) where due_at is not null;
alter table public.social_accounts enable row level security;
create policy "own social accounts" on public.social_accounts
  for select to authenticated using (user_id = (select auth.uid()) or (select private.is_admin()));
revoke all on public.social_accounts from anon;
revoke insert, update, delete, truncate on public.social_accounts from authenticated;

-- The posts an analysis cites as evidence (at most a few per account), and why.
create table public.social_evidence (
  id bigint generated always as identity primary key,
  account_id bigint not null references public.social_accounts (id) on delete cascade,
  reason text not null,
  posted_at timestamptz not null,
  text text not null,
  likes integer not null default 0,
  replies integer not null default 0,
  reposts integer not null default 0,
  views integer
);
create index social_evidence_account_idx on public.social_evidence (account_id);
alter table public.social_evidence enable row level security;
create policy "own social evidence" on public.social_evidence
  for select to authenticated using (
    (select private.is_admin())
    or exists (select 1 from public.social_accounts a where a.id = account_id and a.user_id = (select auth.uid())));
revoke all on public.social_evidence from anon;
revoke insert, update, delete, truncate on public.social_evidence from authenticated;

-- One read a day of each account's figures: consistency over time.
create table private.social_reads (
  account_id bigint not null references public.social_accounts (id) on delete cascade,
  read_on date not null,
  followers bigint not null,
  engagement_rate numeric(8, 4) not null,
  primary key (account_id, read_on)
);

-- The month's social score of each person, as the reputation history keeps the token's.
create table public.social_history (
  user_id uuid not null references public.profiles (id) on delete cascade,
  month date not null,
  score numeric(5, 2) not null check (score between 0 and 100),
  primary key (user_id, month)
);
alter table public.social_history enable row level security;
create policy "social history is visible to signed-in users" on public.social_history
  for select to authenticated using (true);
revoke all on public.social_history from anon;
revoke insert, update, delete, truncate on public.social_history from authenticated;

-- Attempts to prove a handle, an hour's worth, for the rate limit.
create table private.social_attempts (
  user_id uuid not null references public.profiles (id) on delete cascade,
  at timestamptz not null default now()
);
create index social_attempts_idx on private.social_attempts (user_id, at);

-- The analysis's weights, and the checks' limits: one home, read by the function and the docs.
create function public.social_method() returns jsonb
language sql immutable as $$
  select jsonb_build_object(
    'weights', jsonb_build_object('reach', 25, 'engagement', 20, 'authenticity', 25, 'tone', 15, 'consistency', 15),
    'proofs_per_hour', 10,
    'refresh_after_minutes', 60,
    'read_every_hours', 24)
$$;
revoke execute on function public.social_method() from public, anon;
grant execute on function public.social_method() to authenticated;

-- A platform's name as people write it, for messages: 'x' is X, 'youtube' YouTube.
create function private.platform_name(p_platform text) returns text
language sql immutable as $$
  select coalesce(('{"x": "X", "instagram": "Instagram", "youtube": "YouTube", "tiktok": "TikTok",
                     "linkedin": "LinkedIn"}'::jsonb) ->> p_platform, p_platform)
$$;
revoke execute on function private.platform_name(text) from public;

-- A link to the account's public page.
create function private.social_url(p_platform text, p_handle text) returns text
language sql immutable as $$
  select (('{"x": "https://x.com/", "instagram": "https://instagram.com/", "youtube": "https://youtube.com/@",
            "tiktok": "https://tiktok.com/@", "linkedin": "https://linkedin.com/in/"}'::jsonb) ->> p_platform) || p_handle
$$;
revoke execute on function private.social_url(text, text) from public;

-- Starts connecting a handle (or starts again): returns the one-time phrase to put in its bio.
create function public.start_social_connection(p_platform text, p_handle text) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.person_caller('change your connected accounts');
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
end $$;
revoke execute on function public.start_social_connection(text, text) from public, anon;

-- Asks the worker to look for the phrase in the handle's bio (at most ten times an hour).
create function public.check_social_connection(p_platform text) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.person_caller('change your connected accounts');
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
end $$;
revoke execute on function public.check_social_connection(text) from public, anon;

-- Re-reads the caller's connected accounts now, each at most once an hour.
create function public.refresh_social_accounts() returns integer
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.person_caller('change your connected accounts');
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
end $$;
revoke execute on function public.refresh_social_accounts() from public, anon;

-- Disconnects one of the caller's accounts: everything read from it is deleted.
create function public.disconnect_social_account(p_platform text) returns void
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.person_caller('change your connected accounts');
begin
  delete from public.social_accounts where user_id = uid and platform = p_platform;
  if not found then perform private.refuse(format('No %s account is connected.', coalesce(private.platform_name(p_platform), 'social'))); end if;
  perform private.record_social_score(uid);
end $$;
revoke execute on function public.disconnect_social_account(text) from public, anon;

-- The worker's next job: an account to prove, or a connected one due for its read. Leased, so a
-- crash hands it out again; skip locked, so two workers never take one.
create function private.claim_social_job(p_lease interval)
returns table (id bigint, platform text, handle text, phrase text, status text)
language plpgsql security definer set search_path = '' as $$
#variable_conflict use_column
begin
  return query
  update public.social_accounts a set claimed_until = now() + p_lease
   where a.id = (select s.id from public.social_accounts s
                  where s.due_at <= now() and s.status in ('checking', 'connected')
                    and (s.claimed_until is null or s.claimed_until < now())
                  order by s.due_at limit 1 for update skip locked)
  returning a.id, a.platform, a.handle, a.phrase, a.status;
end $$;
revoke execute on function private.claim_social_job(interval) from public;

-- A proof failed, or an account could not be read: said to the person, nothing kept.
create function private.fail_social_job(p_account bigint, p_message text) returns void
language plpgsql security definer set search_path = '' as $$
begin
  update public.social_accounts
     set status = case when status = 'checking' then 'failed' else status end, message = p_message,
         due_at = case when status = 'connected' then now() + interval '1 hour' end, claimed_until = null
   where id = p_account;
end $$;
revoke execute on function private.fail_social_job(bigint, text) from public;

-- What the worker read and analysed of one account (analysis.ts's AccountRead): its figures, its
-- components and the posts it cites. The account is connected from now, read again in a day.
create function private.record_social_read(p_account bigint, p_read jsonb) returns void
language plpgsql security definer set search_path = '' as $$
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
end $$;
revoke execute on function private.record_social_read(bigint, jsonb) from public;

-- The person's analysis now: each connected account's components combined, the consistency
-- across platforms and over time, the score, each component's share of it, the evidence and
-- warnings. Null without a connected account.
--
--   reach, engagement, tone: the accounts' values weighted by audience, ln(1 + followers);
--   authenticity: the weakest account's (one bought audience taints the whole);
--   consistency: 100 less the spread (highest less lowest) of the accounts' engagement and tone
--     values, averaged, across two or more platforms; and 100 less 100 x the coefficient of
--     variation of each account's daily engagement rate over its last 30 reads (three or more);
--     the mean of the two that apply, or a neutral 50 while neither does;
--   score: the components weighted by public.social_method()'s weights, out of 100.
create function private.social_analysis(p_user uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
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
end $$;
revoke execute on function private.social_analysis(uuid) from public;

-- The analysis as the reader may see it: all of it to the person and to admins; to others, the
-- published components (value, weight, share) and the score, without evidence, warnings or accounts.
create function public.social_analysis(p_user uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  full_result jsonb := private.social_analysis(p_user);
begin
  if auth.uid() is null then perform private.refuse('Sign in to read an analysis.'); end if;
  if full_result is null or p_user = auth.uid() or private.is_admin() then return full_result; end if;
  return jsonb_build_object('score', full_result -> 'score', 'analysed_at', full_result -> 'analysed_at',
    'components', (select jsonb_object_agg(key, value - 'evidence') from jsonb_each(full_result -> 'components')));
end $$;
revoke execute on function public.social_analysis(uuid) from public, anon;

-- After a read or a disconnection: the profile's Social Impact figures (followers and following
-- summed over the connected accounts, engagement weighted by followers), the person's score into
-- this month's history, and their token's reputation with it.
create function private.record_social_score(p_user uuid) returns void
language plpgsql security definer set search_path = '' as $$
declare
  score numeric := (private.social_analysis(p_user) ->> 'score')::numeric;
begin
  update public.profiles p
     set followers = coalesce(x.followers, 0), following = coalesce(x.following, 0), engagement_rate = coalesce(x.rate, 0)
    from (select sum(a.followers) as followers, sum(a.following) as following,
                 round(sum(a.followers * a.engagement_rate) / nullif(sum(a.followers), 0), 2) as rate
            from public.social_accounts a where a.user_id = p_user and a.status = 'connected') x
   where p.id = p_user;
  if score is not null then
    insert into public.social_history (user_id, month, score) values (p_user, date_trunc('month', now())::date, score)
    on conflict (user_id, month) do update set score = excluded.score;
  end if;
  perform private.rescore(k.id) from public.tokens k where k.owner_id = p_user;
end $$;
revoke execute on function private.record_social_score(uuid) from public;
