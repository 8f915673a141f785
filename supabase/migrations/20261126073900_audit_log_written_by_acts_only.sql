-- audit_log_written_by_acts_only: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

revoke insert, update, delete, truncate on table public.audit_log from service_role;
