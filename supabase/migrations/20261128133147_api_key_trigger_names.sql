-- api_key_trigger_names: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

drop trigger if exists "no_api_key_writes" on public.profiles;

drop trigger if exists "no_api_key_writes" on public.watchlist;

drop trigger if exists "no_api_key_writes" on storage.objects;

CREATE TRIGGER profiles_no_api_key_writes BEFORE INSERT OR DELETE OR UPDATE ON public.profiles FOR EACH STATEMENT EXECUTE FUNCTION private.refuse_api_key_write('change a profile');

CREATE TRIGGER watchlist_no_api_key_writes BEFORE INSERT OR DELETE OR UPDATE ON public.watchlist FOR EACH STATEMENT EXECUTE FUNCTION private.refuse_api_key_write('change the watchlist');

CREATE TRIGGER objects_no_api_key_writes BEFORE INSERT OR DELETE OR UPDATE ON storage.objects FOR EACH STATEMENT EXECUTE FUNCTION private.refuse_api_key_write('upload or remove a picture');
