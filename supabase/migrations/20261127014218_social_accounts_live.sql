-- social_accounts_live: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

CREATE TRIGGER social_accounts_notify AFTER INSERT OR UPDATE OF status, read_at ON public.social_accounts FOR EACH ROW EXECUTE FUNCTION private.notify_realtime();

-- On a hosted project, Supabase Realtime's publication carries it (written by hand: db:diff does not compare publications).
select private.publish_realtime('public.social_accounts');
