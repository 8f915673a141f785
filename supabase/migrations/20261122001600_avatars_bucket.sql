-- Profile images: a public bucket (anyone may view an image by its URL), 5 MB at most, images only;
-- a user writes only inside their own folder, avatars/<their user id>/.
insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
values ('avatars', 'avatars', true, 5242880, array['image/png', 'image/jpeg', 'image/gif', 'image/webp'])
on conflict (id) do nothing;

create policy "profile images are public" on storage.objects
  for select using (bucket_id = 'avatars');
create policy "users upload into their own folder" on storage.objects
  for insert to authenticated with check (bucket_id = 'avatars' and (storage.foldername(name))[1] = auth.uid()::text);
create policy "users replace their own images" on storage.objects
  for update to authenticated using (bucket_id = 'avatars' and (storage.foldername(name))[1] = auth.uid()::text)
  with check (bucket_id = 'avatars' and (storage.foldername(name))[1] = auth.uid()::text);
create policy "users remove their own images" on storage.objects
  for delete to authenticated using (bucket_id = 'avatars' and (storage.foldername(name))[1] = auth.uid()::text);

-- A person's avatar is their token's too, so it shows everywhere they appear.
create or replace function private.sync_token_avatar() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  update public.tokens set avatar_url = new.avatar_url where owner_id = new.id;
  return null;
end $$;
create trigger on_profile_avatar_changed after update of avatar_url on public.profiles
  for each row when (old.avatar_url is distinct from new.avatar_url) execute function private.sync_token_avatar();
revoke all on function private.sync_token_avatar() from public;
