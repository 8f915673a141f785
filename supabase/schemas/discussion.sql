-- The discussion on each token: posts and replies, reactions, the holders' room, and moderation
-- (docs/discussion.md).
--
-- Anyone signed in posts on a token's public discussion; the token's own person may open a room
-- that only holders of at least N of its tokens read and write. Each post shows its author's
-- reputation, trust and position in the token, then and now. 'top' ranks posts by their author's
-- standing (trust-weighted: reputation and position count only as far as the account is trusted)
-- and by trust-weighted reactions, decayed by age, so a ring of fresh accounts lifts nothing.
-- Posts are plain text; the browser shows links as text and links, never as HTML.
--
-- A post several trusted accounts report is hidden until an admin reviews it; an admin hides and
-- restores with a reason, audited; the person hides replies in their own room; a suspended
-- account's posts are hidden. New posts go out live by Broadcast on 'discussion:<token>' (the
-- post itself, so open screens read nothing); a holders' room's post says only its id on
-- 'holders:<token>', and its holders read it as row-level security lets them.

create table public.holders_rooms (
  token_id uuid primary key references public.tokens (id) on delete cascade,
  min_tokens bigint not null check (min_tokens between 1 and 1000000000),
  opened_at timestamptz not null default now()
);
alter table public.holders_rooms enable row level security;
create policy "holders' rooms are visible to signed-in users" on public.holders_rooms
  for select to authenticated using (true);
revoke all on public.holders_rooms from anon;
revoke insert, update, delete, truncate on public.holders_rooms from authenticated;

create table public.posts (
  id bigint generated always as identity primary key,
  token_id uuid not null references public.tokens (id) on delete cascade,
  room text not null default 'public' check (room in ('public', 'holders')),
  author_id uuid not null references public.profiles (id) on delete cascade,
  reply_to bigint references public.posts (id) on delete cascade,
  body text not null check (char_length(body) between 1 and 1000),
  -- The author's tokens of this one when they posted: the badge's "then".
  held_then bigint not null default 0,
  -- The author's standing when they posted, and the trust-weighted reactions since ('top').
  standing double precision not null default 0,
  votes double precision not null default 0,
  created_at timestamptz not null default now(),
  -- Why it is hidden, when it is: 'reported' (until an admin reviews it), 'admin', 'owner' (a
  -- reply in the person's own room).
  hidden text check (hidden in ('reported', 'admin', 'owner')),
  hidden_reason text,
  reviewed_at timestamptz
);
create index posts_token_idx on public.posts (token_id, room, created_at desc) where reply_to is null;
create index posts_replies_idx on public.posts (reply_to, created_at) where reply_to is not null;
create index posts_author_idx on public.posts (author_id, created_at desc);
alter table public.posts enable row level security;
revoke all on public.posts from anon;
revoke insert, update, delete, truncate on public.posts from authenticated;

-- Reactions and reports are read only through the functions below (counts, the admin's queue).
create table private.post_reactions (
  post_id bigint not null references public.posts (id) on delete cascade,
  user_id uuid not null references public.profiles (id) on delete cascade,
  kind text not null check (kind in ('like', 'insightful', 'disagree')),
  -- The reactor's trust weight when they reacted: what it added to the post's votes.
  weight double precision not null,
  created_at timestamptz not null default now(),
  primary key (post_id, user_id, kind)
);
create index post_reactions_user_idx on private.post_reactions (user_id, created_at desc);

create table private.post_reports (
  post_id bigint not null references public.posts (id) on delete cascade,
  user_id uuid not null references public.profiles (id) on delete cascade,
  reason text not null,
  weight double precision not null,
  created_at timestamptz not null default now(),
  primary key (post_id, user_id)
);
create index post_reports_user_idx on private.post_reports (user_id, created_at desc);

-- The limits, one home each.
create function private.post_limit() returns integer language sql immutable as 'select 10'; -- posts per 10 minutes
create function private.reaction_limit() returns integer language sql immutable as 'select 60'; -- reactions per 10 minutes
create function private.report_limit() returns integer language sql immutable as 'select 20'; -- reports per day
-- Reports from accounts whose trust weights add up to this hide a post until it is reviewed.
create function private.report_weight_to_hide() returns double precision language sql immutable as 'select 1.5::double precision';
grant execute on function private.post_limit(), private.reaction_limit(), private.report_limit() to authenticated;

-- An account's trust weight (reputation.sql): 1 for all while no trust is computed, then the
-- computed weight, 0 for an account no trust reaches.
create function private.trust_weight(p_user uuid) returns double precision
language plpgsql stable security definer set search_path = '' as $$
begin
  if not exists (select 1 from private.account_trust) then return 1; end if;
  return coalesce((select weight from private.account_trust where user_id = p_user), 0);
end $$;
revoke execute on function private.trust_weight(uuid) from public;

-- Whether this account may read and write the token's holders' room: its person, an admin, or a
-- holder of at least the room's minimum, now (a sale below it ends the access at once).
create function private.in_holders_room(p_token uuid, p_user uuid) returns boolean
language plpgsql stable security definer set search_path = '' as $$
begin
  return exists (select 1 from public.holders_rooms r where r.token_id = p_token)
     and (exists (select 1 from public.tokens t where t.id = p_token and t.owner_id = p_user)
          or private.is_admin()
          or exists (select 1 from public.holdings h join public.holders_rooms r on r.token_id = h.token_id
                      where h.token_id = p_token and h.user_id = p_user and h.amount >= r.min_tokens));
end $$;
grant execute on function private.in_holders_room(uuid, uuid) to authenticated;

-- Who sees a post: its author and admins always; others while it is shown, its author is not
-- suspended, and, in a holders' room, while they are in it.
create function private.post_visible(p public.posts, p_user uuid, p_admin boolean) returns boolean
language plpgsql stable security definer set search_path = '' as $$
begin
  if p.author_id = p_user or p_admin then return true; end if;
  return p.hidden is null
     and not exists (select 1 from public.profiles a where a.id = p.author_id and a.status <> 'active')
     and (p.room = 'public' or private.in_holders_room(p.token_id, p_user));
end $$;
grant execute on function private.post_visible(public.posts, uuid, boolean) to authenticated;
-- Whether the reader is an admin is asked once per statement, not once per row.
create policy "posts as their room and moderation allow" on public.posts
  for select to authenticated using (private.post_visible(posts, (select auth.uid()), (select private.is_admin())));

-- These posts as the discussion shows them, in the order given: each author with reputation and
-- trust, their position then and now, whether they are the token's person, the reactions (and the
-- caller's own), and, with p_replies, each post's replies, oldest first (those shown to others,
-- and the caller's own: the caller was let into the posts' room already). One statement for a
-- page, not one per post: a page of 20 posts with their replies is read in a few milliseconds.
create function private.posts_json(p_ids bigint[], p_caller uuid, p_replies boolean) returns jsonb
language sql stable security definer set search_path = '' as $$
  select coalesce(jsonb_agg(jsonb_build_object(
    'id', p.id, 'token_id', p.token_id, 'room', p.room, 'reply_to', p.reply_to, 'body', p.body, 'created_at', p.created_at,
    'hidden', p.hidden,
    'author', jsonb_build_object('id', a.id, 'username', a.username, 'full_name', a.full_name, 'avatar_url', a.avatar_url,
      'verified', a.verified, 'reputation', own.reputation_score,
      'trust', round((case when trust.off then 1 else coalesce(tr.weight, 0) end)::numeric, 2)),
    'is_person', tok.owner_id = p.author_id,
    'position', jsonb_build_object('then', p.held_then, 'now', coalesce(h.amount, 0),
      'badge', case when coalesce(h.amount, 0) = 0 then null
                    when h.amount::numeric / tok.total_supply >= 0.01 then 'Whale'
                    when h.amount::numeric / tok.total_supply >= 0.001 then 'Large holder' else 'Holder' end,
      'sold_since', coalesce(h.amount, 0) < p.held_then),
    'reactions', jsonb_build_object('like', rx.likes, 'insightful', rx.insightful, 'disagree', rx.disagree, 'mine', rx.mine),
    'replies', case when p_replies then private.posts_json(array(
        select c.id from public.posts c
         where c.reply_to = p.id
           and (c.author_id = p_caller
                or (c.hidden is null and not exists (select 1 from public.profiles au where au.id = c.author_id and au.status <> 'active')))
         order by c.created_at, c.id limit 50), p_caller, false) end,
    'reply_count', case when p_replies then (select count(*) from public.posts c where c.reply_to = p.id and c.hidden is null) end
  ) order by x.ord), '[]')
  from unnest(p_ids) with ordinality as x (id, ord)
  join public.posts p on p.id = x.id
  join public.profiles a on a.id = p.author_id
  join public.tokens tok on tok.id = p.token_id
  cross join (select not exists (select 1 from private.account_trust) as off) trust
  left join public.holdings h on h.user_id = p.author_id and h.token_id = p.token_id
  left join public.tokens own on own.owner_id = a.id
  left join private.account_trust tr on tr.user_id = a.id
  cross join lateral (
    select count(*) filter (where r.kind = 'like') as likes, count(*) filter (where r.kind = 'insightful') as insightful,
           count(*) filter (where r.kind = 'disagree') as disagree,
           coalesce(jsonb_agg(r.kind) filter (where r.user_id = p_caller), '[]') as mine
      from private.post_reactions r where r.post_id = p.id) rx
$$;
revoke execute on function private.posts_json(bigint[], uuid, boolean) from public;

-- One post as the discussion shows it (posts_json).
create function private.post_json(p public.posts, p_caller uuid, p_replies boolean) returns jsonb
language sql stable security definer set search_path = '' as $$
  select private.posts_json(array[p.id], p_caller, p_replies) -> 0
$$;
revoke execute on function private.post_json(public.posts, uuid, boolean) from public;

-- The refusal when a room is closed to the caller, in words.
create function private.require_room(p_token uuid, p_room text, p_user uuid) returns void
language plpgsql stable security definer set search_path = '' as $$
declare
  need bigint := (select min_tokens from public.holders_rooms where token_id = p_token);
begin
  if p_room is null or p_room not in ('public', 'holders') then
    perform private.refuse('A discussion''s room is public or holders.');
  end if;
  if p_room = 'holders' and not private.in_holders_room(p_token, p_user) then
    if need is null then perform private.refuse('This token has no holders'' room.'); end if;
    perform private.refuse(format('The holders'' room is for holders of at least %s: hold that many to read and post here.',
      private.tokens_of(need, (select name from public.tokens where id = p_token))));
  end if;
end $$;
revoke execute on function private.require_room(uuid, text, uuid) from public;

-- Posts on a token, or replies to a post (in the post's room). Returns the post as the
-- discussion shows it. The author's standing is fixed now: trust weight × (2 + reputation / 50 +
-- log10(1 + the position's value in dollars) / 2).
create function public.create_post(p_token uuid, p_body text, p_reply_to bigint default null, p_room text default 'public')
returns jsonb
language plpgsql security definer set search_path = '' as $$
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
end $$;
revoke execute on function public.create_post(uuid, text, bigint, text) from public, anon;

-- A page of a token's discussion, top posts with their replies. 'top': (1 + standing + votes) /
-- (hours since posted + 2)^1.5; 'new': newest first.
create function public.token_posts(p_token uuid, p_order text default 'top', p_limit integer default 20,
                                   p_offset integer default 0, p_room text default 'public')
returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  uid uuid := auth.uid();
begin
  if uid is null then perform private.refuse('Sign in first.'); end if;
  if p_order is null or p_order not in ('top', 'new') then perform private.refuse('Order a discussion by top or new.'); end if;
  if p_limit is null or p_limit not between 1 and 100 then perform private.refuse('Ask for 1 to 100 posts at a time.'); end if;
  if p_offset is null or p_offset < 0 then perform private.refuse('The offset is 0 or more.'); end if;
  perform private.require_room(p_token, p_room, uid);
  return private.posts_json(array(
    select p.id
      from public.posts p
     where p.token_id = p_token and p.room = p_room and p.reply_to is null
       and (p.hidden is null or p.author_id = uid)
       and not exists (select 1 from public.profiles a where a.id = p.author_id and a.status <> 'active' and a.id <> uid)
     order by case when p_order = 'top'
                then (1 + p.standing + p.votes) / power(extract(epoch from now() - p.created_at)::float8 / 3600 + 2, 1.5::float8) end desc nulls last,
              p.created_at desc, p.id desc
     limit p_limit offset p_offset), uid, true);
end $$;
revoke execute on function public.token_posts(uuid, text, integer, integer, text) from public, anon;

-- Adds the caller's reaction of this kind, or takes it back when it is there. Returns whether it
-- is there now.
create function public.react_to_post(p_post bigint, p_kind text) returns boolean
language plpgsql security definer set search_path = '' as $$
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
end $$;
revoke execute on function public.react_to_post(bigint, text) from public, anon;

-- The token's person opens their holders' room, or changes its minimum.
create function public.open_holders_room(p_token uuid, p_min_tokens integer) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.person_caller('open a holders'' room');
  tok public.tokens;
  room public.holders_rooms;
begin
  select * into tok from public.tokens where id = p_token;
  if not found then perform private.refuse('That token does not exist.'); end if;
  if tok.owner_id is distinct from uid then perform private.refuse('Only the token''s own person opens its holders'' room.'); end if;
  if p_min_tokens is null or p_min_tokens < 1 or p_min_tokens > tok.total_supply then
    perform private.refuse(format('The minimum is a whole number of tokens from 1 to %s.', to_char(tok.total_supply, 'FM999,999,999,990')));
  end if;
  insert into public.holders_rooms (token_id, min_tokens) values (p_token, p_min_tokens)
  on conflict (token_id) do update set min_tokens = excluded.min_tokens
  returning * into room;
  return to_jsonb(room);
end $$;
revoke execute on function public.open_holders_room(uuid, integer) from public, anon;

-- Moderation.

-- Reports a post, with a reason. Once reports from accounts whose trust weights add up to
-- report_weight_to_hide() are in, the post is hidden until an admin reviews it (a post an admin
-- has reviewed stays as the admin left it).
create function public.report_post(p_post bigint, p_reason text) returns jsonb
language plpgsql security definer set search_path = '' as $$
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
end $$;
revoke execute on function public.report_post(bigint, text) from public, anon;

-- The admin's Reports queue: reported posts not reviewed since their last report, most reported
-- first, with the reasons.
create function public.admin_post_reports(p_limit integer default 100) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
begin
  perform private.require_admin();
  return (
    select coalesce(jsonb_agg(x.post order by x.reports desc, x.last desc), '[]')
    from (
      select private.post_json(p, auth.uid(), false) || jsonb_build_object(
               'token_name', t.name, 'hidden_reason', p.hidden_reason,
               'reports', count(r.*), 'last_report', max(r.created_at),
               'reasons', jsonb_agg(jsonb_build_object('reason', r.reason, 'by', u.username, 'at', r.created_at) order by r.created_at)) as post,
             count(r.*) as reports, max(r.created_at) as last
        from public.posts p
        join private.post_reports r on r.post_id = p.id
        join public.tokens t on t.id = p.token_id
        join public.profiles u on u.id = r.user_id
       where p.reviewed_at is null or r.created_at > p.reviewed_at
       group by p.id, p.*, t.name
       order by count(r.*) desc, max(r.created_at) desc
       limit least(greatest(coalesce(p_limit, 100), 1), 500)
    ) x);
end $$;
revoke execute on function public.admin_post_reports(integer) from public, anon;

-- An admin hides a post (and so its replies' thread) or shows it again, with a reason; either
-- reviews its reports.
create function public.admin_hide_post(p_post bigint, p_reason text) returns jsonb
language plpgsql security definer set search_path = '' as $$
begin
  return private.moderate_post(p_post, true, p_reason);
end $$;
revoke execute on function public.admin_hide_post(bigint, text) from public, anon;

create function public.admin_restore_post(p_post bigint, p_reason text) returns jsonb
language plpgsql security definer set search_path = '' as $$
begin
  return private.moderate_post(p_post, false, p_reason);
end $$;
revoke execute on function public.admin_restore_post(bigint, text) from public, anon;

create function private.moderate_post(p_post bigint, p_hide boolean, p_reason text) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  p public.posts;
  reason text := btrim(p_reason);
begin
  perform private.require_admin();
  perform private.require_reason(reason, 'Give a reason of 3 to 500 characters: it is kept in the audit log.');
  select * into p from public.posts where id = p_post for update;
  if not found then perform private.refuse('That post does not exist.'); end if;
  update public.posts
     set hidden = case when p_hide then 'admin' end, hidden_reason = case when p_hide then reason end, reviewed_at = now()
   where id = p_post;
  perform private.audit(case when p_hide then 'post.hide' else 'post.restore' end, p.author_id, p.id::text,
    jsonb_build_object('hidden', p.hidden), jsonb_build_object('hidden', case when p_hide then 'admin' end), reason);
  return jsonb_build_object('id', p.id, 'hidden', p_hide);
end $$;
revoke execute on function private.moderate_post(bigint, boolean, text) from public;

-- The token's person hides a reply in their holders' room (never in the public discussion, where
-- only reports and admins hide), or shows it again.
create function public.hide_room_reply(p_post bigint, p_hidden boolean default true) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.person_caller('hide a reply');
  p public.posts;
begin
  select * into p from public.posts where id = p_post for update;
  if not found or (select owner_id from public.tokens where id = p.token_id) is distinct from uid then
    perform private.refuse('Only the token''s own person hides replies in its holders'' room.');
  end if;
  if p.room <> 'holders' or p.reply_to is null then
    perform private.refuse('You can hide replies in your holders'' room only; in the public discussion, report a post instead.');
  end if;
  if p.hidden is not null and p.hidden <> 'owner' then perform private.refuse('An admin has this reply under review.'); end if;
  update public.posts set hidden = case when p_hidden then 'owner' end,
                          hidden_reason = case when p_hidden then 'Hidden by the token''s person.' end
   where id = p_post;
  return jsonb_build_object('id', p.id, 'hidden', p_hidden);
end $$;
revoke execute on function public.hide_room_reply(bigint, boolean) from public, anon;
