-- posts_admin_once_per_statement: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

drop policy if exists "posts as their room and moderation allow" on public.posts;

drop routine if exists private.post_visible(public.posts,uuid);

CREATE OR REPLACE FUNCTION private.post_visible(p public.posts, p_user uuid, p_admin boolean)
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if p.author_id = p_user or p_admin then return true; end if;
  return p.hidden is null
     and not exists (select 1 from public.profiles a where a.id = p.author_id and a.status <> 'active')
     and (p.room = 'public' or private.in_holders_room(p.token_id, p_user));
end $function$;

CREATE OR REPLACE FUNCTION public.create_post(p_token uuid, p_body text, p_reply_to bigint DEFAULT NULL::bigint, p_room text DEFAULT 'public'::text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.person_caller('post');
  tok public.tokens;
  parent public.posts;
  body text := btrim(p_body);
  room text := p_room;
  held bigint;
  w double precision := private.trust_weight(uid);
  made public.posts;
  named text;
  post jsonb;
begin
  select * into tok from public.tokens where id = p_token;
  if not found then perform private.refuse('That token does not exist.'); end if;
  if body is null or body = '' then perform private.refuse('Write something to post.'); end if;
  if char_length(body) > 1000 then
    perform private.refuse(format('A post is at most 1,000 characters; this one has %s.', to_char(char_length(body), 'FM999,990')));
  end if;
  perform private.refuse_hidden_characters(body, 'A post', true);
  if p_reply_to is not null then
    select * into parent from public.posts where id = p_reply_to;
    if not found or parent.token_id <> p_token or not private.post_visible(parent, uid, private.is_admin()) or parent.hidden is not null then
      perform private.refuse('The post you reply to is not there any more.');
    end if;
    if parent.reply_to is not null then perform private.refuse('Reply to the post itself: replies have no replies.'); end if;
    room := parent.room;
  end if;
  perform private.require_room(p_token, room, uid);
  perform 1 from public.profiles where id = uid for no key update; -- one post at a time per account: the limit holds
  if (select count(*) from public.posts where author_id = uid and created_at > now() - interval '10 minutes') >= private.post_limit() then
    perform private.refuse(format('You can post %s times in 10 minutes. Wait a few minutes and post again.', private.post_limit()));
  end if;
  held := coalesce((select amount from public.holdings where user_id = uid and token_id = p_token), 0);
  insert into public.posts (token_id, room, author_id, reply_to, body, held_then, standing)
  values (p_token, room, uid, p_reply_to, body, held,
          w * (2 + coalesce((select reputation_score from public.tokens where owner_id = uid), 0) / 50
                 + log(1 + held * coalesce((select price from private.token_stats where token_id = p_token), tok.issue_price)) / 2))
  returning * into made;

  -- The replied-to author, and up to five people named with @username, hear of it.
  if parent.id is not null and parent.author_id <> uid then
    perform private.notify(parent.author_id, 'reply', format('%s replied to your post', (select full_name from public.profiles where id = uid)),
      left(body, 300), '/trading/' || p_token);
  end if;
  for named in
    select distinct lower(m[1]) from regexp_matches(body, '(?:^|[^A-Za-z0-9_.-])@([A-Za-z0-9_.-]{2,30})', 'g') m limit 5
  loop
    perform private.notify(p.id, 'reply', format('%s mentioned you', (select full_name from public.profiles where id = uid)),
      left(body, 300), '/trading/' || p_token)
      from public.profiles p
     where lower(p.username) = named and p.id <> uid and p.id is distinct from parent.author_id
       and (room = 'public' or private.in_holders_room(p_token, p.id));
  end loop;

  post := private.post_json(made, uid, made.reply_to is null);
  if room = 'public' then
    perform realtime.send(post - 'reactions' || jsonb_build_object('reactions',
      jsonb_build_object('like', 0, 'insightful', 0, 'disagree', 0, 'mine', '[]'::jsonb)), 'post', 'discussion:' || p_token, true);
  else
    perform realtime.send(jsonb_build_object('id', made.id, 'reply_to', made.reply_to), 'post', 'holders:' || p_token, true);
  end if;
  return post;
end $function$;

CREATE OR REPLACE FUNCTION public.react_to_post(p_post bigint, p_kind text)
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.person_caller('react to a post');
  p public.posts;
  gone private.post_reactions;
  w double precision;
begin
  if p_kind is null or p_kind not in ('like', 'insightful', 'disagree') then
    perform private.refuse('React with like, insightful or disagree.');
  end if;
  select * into p from public.posts where id = p_post;
  if not found or not private.post_visible(p, uid, private.is_admin()) or p.hidden is not null then
    perform private.refuse('That post is not there any more.');
  end if;
  delete from private.post_reactions where post_id = p_post and user_id = uid and kind = p_kind returning * into gone;
  if found then
    if gone.kind <> 'disagree' then update public.posts set votes = greatest(votes - gone.weight, 0) where id = p_post; end if;
    return false;
  end if;
  if p.author_id = uid then perform private.refuse('You cannot react to your own post.'); end if;
  if (select count(*) from private.post_reactions where user_id = uid and created_at > now() - interval '10 minutes') >= private.reaction_limit() then
    perform private.refuse(format('You can react %s times in 10 minutes. Wait a few minutes and react again.', private.reaction_limit()));
  end if;
  w := private.trust_weight(uid);
  insert into private.post_reactions (post_id, user_id, kind, weight) values (p_post, uid, p_kind, w)
  on conflict do nothing;
  if found and p_kind <> 'disagree' then update public.posts set votes = votes + w where id = p_post; end if;
  return true;
end $function$;

CREATE OR REPLACE FUNCTION public.report_post(p_post bigint, p_reason text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.person_caller('report a post');
  p public.posts;
  reason text := btrim(p_reason);
  total double precision;
begin
  select * into p from public.posts where id = p_post;
  if not found or not private.post_visible(p, uid, private.is_admin()) then perform private.refuse('That post is not there any more.'); end if;
  if p.author_id = uid then perform private.refuse('You cannot report your own post.'); end if;
  perform private.require_reason(reason, 'Say in 3 to 500 characters what is wrong with the post.');
  perform private.refuse_hidden_characters(reason, 'The reason');
  if exists (select 1 from private.post_reports where post_id = p_post and user_id = uid) then
    perform private.refuse('You have reported this post already: an admin will look at it.');
  end if;
  if (select count(*) from private.post_reports where user_id = uid and created_at > now() - interval '1 day') >= private.report_limit() then
    perform private.refuse(format('You can report %s posts a day. Try again tomorrow.', private.report_limit()));
  end if;
  insert into private.post_reports (post_id, user_id, reason, weight) values (p_post, uid, reason, private.trust_weight(uid));
  select sum(weight) into total from private.post_reports where post_id = p_post;
  if p.hidden is null and p.reviewed_at is null and total >= private.report_weight_to_hide() then
    update public.posts set hidden = 'reported', hidden_reason = 'Reported by several people; an admin will review it.'
     where id = p_post;
    return jsonb_build_object('reported', true, 'hidden', true);
  end if;
  return jsonb_build_object('reported', true, 'hidden', p.hidden is not null);
end $function$;

create policy "posts as their room and moderation allow" on public.posts as permissive for select to authenticated
  using (private.post_visible(posts.*, ( SELECT auth.uid() AS uid), ( SELECT private.is_admin() AS is_admin)));

grant execute on routine private.post_visible(public.posts,uuid,boolean) to authenticated;
