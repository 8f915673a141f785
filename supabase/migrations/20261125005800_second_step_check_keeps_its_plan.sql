-- The second-step check and the admin check keep their plans. Both were SQL functions with
-- `set search_path` (20261125004300), which PostgreSQL cannot inline and, before version 18, plans
-- afresh at every call: the restrictive policy "after the second step" and the policies that
-- let an admin read run them in every statement on a user's money, orders and holdings, and
-- every order, cancel and withdrawal runs require_second_step. Measured with pgbench on
-- PostgreSQL 15 (4 clients, the caller's settings and the call, 2026-11-25): a user's
-- list_open_orders went from 8,100 to 19,600 calls/s, require_second_step from 15,500 to 24,000.
-- As PL/pgSQL (as the read functions became in 20261123002500), each connection plans them once.
--
-- Recreated whole: second_step_due (20261125004300), is_admin (20261125004300).

create or replace function private.second_step_due() returns boolean
language plpgsql stable security definer set search_path = '' as $$
begin
  return coalesce(auth.jwt() ->> 'aal', 'aal1') <> 'aal2'
     and exists (select from auth.mfa_factors f where f.user_id = auth.uid() and f.status = 'verified');
end $$;
revoke all on function private.second_step_due() from public, anon;
grant execute on function private.second_step_due() to authenticated;

create or replace function private.is_admin() returns boolean
language plpgsql stable security definer set search_path = '' as $$
begin
  return exists (select 1 from public.profiles where id = auth.uid() and role = 'admin' and status = 'active')
     and not private.second_step_due();
end $$;
