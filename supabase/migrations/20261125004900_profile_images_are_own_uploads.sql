-- A profile's images are its owner's uploads. The avatar is shown wherever the person's token is
-- (the market, every holder's dashboard), so until now any signed-in user could set a URL of their
-- choosing and make every viewer's browser fetch it: a tracking pixel that collects the viewers'
-- addresses, a picture nobody approved, or a javascript: URL. An image must now be a public URL of
-- an object in the person's own folder of the avatars bucket (`<id>/<file>`, as the profile's
-- Edit dialog uploads it). The URL's host is the storage server's public address, which the
-- database cannot know: the shell's Content-Security-Policy lets images come only from there.
-- Only an image that changes is checked, so an older value does not block other edits.

create or replace function private.check_profile_images() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  changed text[] := array[]::text[];
  url text;
  object_name text;
begin
  if tg_op = 'INSERT' or new.avatar_url is distinct from old.avatar_url then
    changed := changed || new.avatar_url;
  end if;
  if tg_op = 'INSERT' or new.cover_url is distinct from old.cover_url then
    changed := changed || new.cover_url;
  end if;
  foreach url in array changed loop
    continue when url is null;
    object_name := substring(url from '^https?://[^/?#@]+/storage/v1/object/public/avatars/([0-9a-f-]{36}/[A-Za-z0-9._-]+)$');
    if object_name is null
       or split_part(object_name, '/', 1) <> new.id::text
       or not exists (select 1 from storage.objects o where o.bucket_id = 'avatars' and o.name = object_name) then
      raise exception 'A profile image must be a picture uploaded to your own profile.' using errcode = 'P0001';
    end if;
  end loop;
  return new;
end $$;
revoke all on function private.check_profile_images() from public;

create trigger check_profile_images before insert or update of avatar_url, cover_url on public.profiles
  for each row execute function private.check_profile_images();
