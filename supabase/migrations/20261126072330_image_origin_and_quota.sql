-- image_origin_and_quota: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

create table private.deployment ();

alter table private.deployment add column "id" boolean default true not null;

alter table private.deployment add column "public_url" text not null;

CREATE OR REPLACE FUNCTION private.check_image_quota()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  quota constant bigint := 20 * 1024 * 1024;
  used bigint;
begin
  if new.bucket_id <> 'avatars' or new.owner is null then return new; end if;
  perform 1 from public.profiles where id = new.owner for update;
  select coalesce(sum((o.metadata ->> 'size')::bigint), 0) into used
    from storage.objects o where o.bucket_id = new.bucket_id and o.owner = new.owner and o.name <> new.name;
  if used + coalesce((new.metadata ->> 'size')::bigint, 0) > quota then
    raise exception 'You can keep up to 20 MB of images: remove one to upload another.' using errcode = '53400';
  end if;
  return new;
end $function$;

CREATE OR REPLACE FUNCTION private.check_profile_images()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$;

alter table private.deployment add constraint "deployment_id_check" CHECK (id);

alter table private.deployment add constraint "deployment_pkey" PRIMARY KEY (id);

alter table private.deployment add constraint "deployment_public_url_check" CHECK ((public_url ~ '^https?://[^/?#@]+$'::text));

CREATE TRIGGER check_image_quota BEFORE INSERT OR UPDATE ON storage.objects FOR EACH ROW EXECUTE FUNCTION private.check_image_quota();

revoke all on function private.check_image_quota() from public, anon, authenticated, service_role;

revoke all on table private.deployment from public, anon, authenticated, service_role;
