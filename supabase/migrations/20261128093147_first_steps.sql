-- first_steps: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

CREATE OR REPLACE FUNCTION public.my_first_steps()
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := private.active_caller();
begin
  return jsonb_build_object(
    'new', (select p.created_at > now() - interval '30 days' from public.profiles p where p.id = uid),
    'deposited', exists (select 1 from public.wallet_transactions w
                          where w.user_id = uid and w.type = 'deposit' and w.status = 'completed'),
    'traded', exists (select 1 from public.trades t where t.buyer_id = uid)
              or exists (select 1 from public.trades t where t.seller_id = uid),
    'connected', exists (select 1 from public.social_accounts a where a.user_id = uid and a.status = 'connected'),
    'applied', exists (select 1 from public.token_applications a where a.user_id = uid)
               or exists (select 1 from public.tokens k where k.owner_id = uid));
end $function$;

revoke all on routine public.my_first_steps() from anon;
revoke all on routine public.my_first_steps() from public;
