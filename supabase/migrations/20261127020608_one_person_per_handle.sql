-- one_person_per_handle: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

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
    perform private.fail_social_job(p_account, format('@%s on %s is connected to another RepX account.', account.handle, account.platform));
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
