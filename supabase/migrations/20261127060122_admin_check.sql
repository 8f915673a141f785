-- admin_check: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

CREATE OR REPLACE FUNCTION public.admin_check()
 RETURNS void
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  perform private.require_admin();
end $function$;

revoke all on routine public.admin_check() from anon;
revoke all on routine public.admin_check() from public;
