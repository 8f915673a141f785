-- social_impact_figures: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.record_social_score(p_user uuid)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
  update public.tokens k set reputation_score = (public.reputation_components(k.id) ->> 'score')::numeric
   where k.owner_id = p_user;
end $function$;
