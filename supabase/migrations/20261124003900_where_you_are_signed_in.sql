-- Where a user is signed in, and signing one of those sessions out.
--
-- Settings offered only "sign out every other session", so a user could not tell whether a
-- stranger's session was among theirs, nor end just that one. Each of the caller's sessions is
-- listed with the browser and address it started from, when it signed in and when it was last
-- refreshed (auth.sessions: GoTrue keeps user_agent, ip and refreshed_at there, and so does the
-- local auth server), and one may be ended by its id. Ending a session stops its refresh token at
-- once and, on this project's server, its access token too.

create or replace function public.my_sessions()
returns table (id uuid, signed_in_at timestamptz, last_seen_at timestamptz, user_agent text, ip text, current boolean)
language sql stable security definer set search_path = '' as $$
  select s.id, s.created_at, greatest(s.created_at, s.refreshed_at), s.user_agent, host(s.ip),
         s.id::text = auth.jwt() ->> 'session_id'
  from auth.sessions s
  where s.user_id = (select private.active_caller())
  order by 6 desc, 3 desc, 2 desc
$$;

create or replace function public.end_my_session(p_session uuid) returns void
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := private.active_caller();
begin
  delete from auth.sessions where id = p_session and user_id = uid;
  if not found then perform private.refuse('That session has already ended.'); end if;
end $$;

revoke execute on function public.my_sessions(), public.end_my_session(uuid) from public, anon;
