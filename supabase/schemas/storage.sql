-- Storage: profile images.
--
-- A public bucket (anyone may view an image by its URL), 5 MB at most, images only; a user writes
-- only inside their own folder, avatars/<their user id>/.
insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
values ('avatars', 'avatars', true, 5242880, array['image/png', 'image/jpeg', 'image/gif', 'image/webp'])
on conflict (id) do nothing;

create policy "profile images are public" on storage.objects
  for select using (bucket_id = 'avatars');
create policy "users upload into their own folder" on storage.objects
  for insert to authenticated with check (bucket_id = 'avatars' and (storage.foldername(name))[1] = (select auth.uid())::text);
create policy "users replace their own images" on storage.objects
  for update to authenticated using (bucket_id = 'avatars' and (storage.foldername(name))[1] = (select auth.uid())::text)
  with check (bucket_id = 'avatars' and (storage.foldername(name))[1] = (select auth.uid())::text);
create policy "users remove their own images" on storage.objects
  for delete to authenticated using (bucket_id = 'avatars' and (storage.foldername(name))[1] = (select auth.uid())::text);

-- A profile's images are its owner's uploads. The avatar is shown wherever the person's token is
-- (the market, every holder's dashboard), so a URL of anyone's choosing would make every viewer's
-- browser fetch it: a tracking pixel that collects the viewers' addresses, a picture nobody
-- approved, or a javascript: URL. An image must be a public URL of an object in the person's own
-- folder of the avatars bucket (`<id>/<file>`, as the profile's Edit dialog uploads it), on this
-- project's own address (private.deployment): a look-alike path on another host, an internal
-- address or another port is refused. Only an image that changes is checked, so an older value
-- does not block other edits.
create function private.check_profile_images() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  changed text[] := array[]::text[];
  url text;
  object_name text;
  origin text := (select d.public_url from private.deployment d);
begin
  if tg_op = 'INSERT' or new.avatar_url is distinct from old.avatar_url then
    changed := changed || new.avatar_url;
  end if;
  if tg_op = 'INSERT' or new.cover_url is distinct from old.cover_url then
    changed := changed || new.cover_url;
  end if;
  foreach url in array changed loop
    continue when url is null;
    object_name := case when left(url, length(origin) + 1) = origin || '/' then
      substring(substr(url, length(origin) + 1) from '^/storage/v1/object/public/avatars/([0-9a-f-]{36}/[A-Za-z0-9._-]+)$') end;
    if object_name is null
       or split_part(object_name, '/', 1) <> new.id::text
       or not exists (select 1 from storage.objects o where o.bucket_id = 'avatars' and o.name = object_name) then
      raise exception 'A profile image must be a picture uploaded to your own profile.' using errcode = 'P0001';
    end if;
  end loop;
  return new;
end $$;
revoke execute on function private.check_profile_images() from public;
create trigger check_profile_images before insert or update of avatar_url, cover_url on public.profiles
  for each row execute function private.check_profile_images();

-- A person's avatar is their token's too, so it shows everywhere they appear.
create function private.sync_token_avatar() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  update public.tokens set avatar_url = new.avatar_url where owner_id = new.id;
  return null;
end $$;
revoke execute on function private.sync_token_avatar() from public;
create trigger on_profile_avatar_changed after update of avatar_url on public.profiles
  for each row when (old.avatar_url is distinct from new.avatar_url) execute function private.sync_token_avatar();

-- A person keeps at most 20 MB of images in the avatars bucket (four at the bucket's 5 MB limit),
-- so that one account cannot fill the storage. The person's profile row is locked first, so two
-- uploads at once count each other. 53400 is a limit reached: the storage server answers 413.
create function private.check_image_quota() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  quota constant bigint := 20 * 1024 * 1024;
  used bigint;
begin
  if new.bucket_id <> 'avatars' or new.owner is null then return new; end if;
  perform 1 from public.profiles where id = new.owner for no key update;
  select coalesce(sum((o.metadata ->> 'size')::bigint), 0) into used
    from storage.objects o where o.bucket_id = new.bucket_id and o.owner = new.owner and o.name <> new.name;
  if used + coalesce((new.metadata ->> 'size')::bigint, 0) > quota then
    raise exception 'You can keep up to 20 MB of images: remove one to upload another.' using errcode = '53400';
  end if;
  return new;
end $$;
revoke execute on function private.check_image_quota() from public;
create trigger check_image_quota before insert or update on storage.objects
  for each row execute function private.check_image_quota();
