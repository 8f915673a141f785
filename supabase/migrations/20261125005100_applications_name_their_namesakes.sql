-- A token application names the tokens already on the market under the same name (letter case
-- and spacing aside), so the admin who reviews 'Sarah Chen' sees that @sarahchen is listed as
-- Sarah Chen before issuing a second one: people share names, but a reputation exchange must not
-- let one pass for another. The answer gains `namesakes` (name, username, verified), hence the
-- drop; the function is otherwise 20261122000800's.

create or replace function private.name_key(p_name text) returns text
language sql immutable parallel safe as $$
  select lower(regexp_replace(btrim(p_name), '\s+', ' ', 'g'))
$$;

create index if not exists tokens_name_key on public.tokens (private.name_key(name));

drop function public.admin_list_applications(text);
create function public.admin_list_applications(p_status text default 'pending')
returns table (id bigint, user_id uuid, username text, email text, display_name text, category text, bio text, socials jsonb,
               status text, reason text, token_id uuid, created_at timestamptz, decided_at timestamptz, namesakes jsonb)
language plpgsql stable security definer set search_path = '' as $$
begin
  perform private.require_admin();
  return query
    select a.id, a.user_id, p.username, u.email::text, a.display_name, a.category, a.bio, a.socials, a.status, a.reason,
           a.token_id, a.created_at, a.decided_at,
           coalesce((select jsonb_agg(jsonb_build_object('name', t.name, 'username', t.username, 'verified', t.verified)
                                      order by t.username)
                       from public.tokens t
                      where private.name_key(t.name) = private.name_key(a.display_name)
                        and t.owner_id is distinct from a.user_id), '[]'::jsonb)
    from public.token_applications a join public.profiles p on p.id = a.user_id join auth.users u on u.id = a.user_id
    where p_status is null or a.status = p_status
    order by a.created_at, a.id
    limit 500;
end $$;

revoke execute on function public.admin_list_applications(text) from public, anon;
