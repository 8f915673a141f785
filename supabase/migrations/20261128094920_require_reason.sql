-- require_reason: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.require_reason(p_reason text, p_refusal text)
 RETURNS void
 LANGUAGE plpgsql
 IMMUTABLE
AS $function$
begin
  if char_length(trim(coalesce(p_reason, ''))) not between 3 and 500 then perform private.refuse(p_refusal); end if;
end $function$;

CREATE OR REPLACE FUNCTION public.admin_end_sessions(p_user uuid, p_reason text)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  admin uuid := private.require_admin();
  target public.profiles;
  ended integer;
begin
  perform private.require_reason(p_reason, 'Give a reason of 3 to 500 characters for signing the account out.');
  target := private.managed_account(p_user);
  delete from auth.sessions where user_id = p_user;
  get diagnostics ended = row_count;
  perform private.audit('account.sign_out', p_user, target.username, null, jsonb_build_object('sessions_ended', ended),
    trim(p_reason));
  return ended;
end $function$;

CREATE OR REPLACE FUNCTION public.admin_reject_application(p_id bigint, p_reason text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  admin uuid := private.require_admin();
  app public.token_applications;
begin
  perform private.require_reason(p_reason, 'Give the applicant a reason of 3 to 500 characters.');
  select * into app from public.token_applications where id = p_id for update;
  if not found then perform private.refuse('There is no such application.'); end if;
  if app.status <> 'pending' then perform private.refuse(format('This application was already %s.', app.status)); end if;
  update public.token_applications set status = 'rejected', reason = trim(p_reason), decided_by = admin, decided_at = now()
   where id = p_id returning * into app;
  perform private.audit('application.reject', app.user_id, 'application ' || p_id, jsonb_build_object('status', 'pending'),
    jsonb_build_object('status', 'rejected'), trim(p_reason));
  return to_jsonb(app);
end $function$;

CREATE OR REPLACE FUNCTION public.admin_remove_two_step(p_user uuid, p_reason text)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  admin uuid := private.require_admin();
  target public.profiles;
  ended integer;
begin
  perform private.require_reason(p_reason, 'Give a reason of 3 to 500 characters for removing the authenticator app.');
  target := private.managed_account(p_user);
  if not private.has_app(p_user) then
    perform private.refuse('Two-step verification is not on for this account.');
  end if;
  delete from auth.mfa_factors where user_id = p_user;
  delete from auth.sessions where user_id = p_user;
  get diagnostics ended = row_count;
  perform private.audit('account.two_step_off', p_user, target.username, null, jsonb_build_object('sessions_ended', ended),
    trim(p_reason));
end $function$;

CREATE OR REPLACE FUNCTION public.admin_set_account_status(p_user uuid, p_status text, p_reason text DEFAULT NULL::text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  admin uuid := private.require_admin();
  target public.profiles;
  o record;
  dropped record;
  cancelled integer := 0;
  bids integer := 0;
  sessions integer;
begin
  if p_status is null or p_status not in ('active', 'suspended') then perform private.refuse('Status must be active or suspended.'); end if;
  if p_status = 'suspended' then
    perform private.require_reason(p_reason, 'Give a reason of 3 to 500 characters for the suspension.');
  end if;
  target := private.managed_account(p_user);
  if target.status = p_status then perform private.refuse(format('The account is already %s.', p_status)); end if;
  update public.profiles set status = p_status where id = p_user;
  if p_status = 'suspended' then
    -- Locks as everyone takes them: the open offerings bid in first (as a bid and a close do),
    -- then every book the account has an order in, in token order, before its cash account (as
    -- the engine: a book, then cash), so that a trade on one of them cannot wait on this while it
    -- waits on that trade. The loop locks again a book an order placed meanwhile rests in.
    perform 1 from public.offerings f
     where f.closed_at is null and f.id in (select b.offering_id from public.offering_bids b where b.user_id = p_user)
     order by f.id for update;
    perform 1 from public.tokens k
     where k.id in (select r.token_id from public.orders r where r.user_id = p_user and r.status in ('open', 'pending'))
     order by k.id for update;
    for o in select id, token_id from public.orders where user_id = p_user and status in ('open', 'pending') order by token_id, id loop
      perform 1 from public.tokens where id = o.token_id for no key update;
      perform private.release_order(o.id);
      perform private.tell_market(o.token_id, 'book', private.order_levels(array[o.id]));
      cancelled := cancelled + 1;
    end loop;
    perform 1 from public.cash_accounts where user_id = p_user for update;
    for dropped in delete from public.offering_bids x using public.offerings f
              where x.user_id = p_user and f.id = x.offering_id and f.closed_at is null
              returning x.reserved, f.token_id loop
      update public.cash_accounts set available = available + dropped.reserved, reserved = reserved - dropped.reserved
       where user_id = p_user;
      perform private.tell_market(dropped.token_id, 'offering');
      bids := bids + 1;
    end loop;
    delete from auth.sessions where user_id = p_user;
    get diagnostics sessions = row_count;
  end if;
  perform private.audit(case p_status when 'suspended' then 'account.suspend' else 'account.reinstate' end, p_user, target.username,
    jsonb_build_object('status', target.status),
    jsonb_build_object('status', p_status, 'orders_cancelled', cancelled, 'bids_cancelled', bids, 'sessions_ended', coalesce(sessions, 0)),
    nullif(trim(coalesce(p_reason, '')), ''));
  return jsonb_build_object('status', p_status, 'orders_cancelled', cancelled, 'bids_cancelled', bids,
                            'sessions_ended', coalesce(sessions, 0));
end $function$;

revoke all on routine private.require_reason(text,text) from public;
