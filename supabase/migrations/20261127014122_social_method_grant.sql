-- social_method_grant: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

revoke all on routine public.social_method() from public;
revoke all on routine public.social_method() from anon;
