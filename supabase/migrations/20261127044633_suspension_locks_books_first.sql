-- suspension_locks_books_first: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

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
  if p_status = 'suspended' and char_length(trim(coalesce(p_reason, ''))) not between 3 and 500 then
    perform private.refuse('Give a reason of 3 to 500 characters for the suspension.');
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
      perform 1 from public.tokens where id = o.token_id for update;
      perform private.release_order(o.id);
      insert into public.market_events (token_id, kind) values (o.token_id, 'book');
      cancelled := cancelled + 1;
    end loop;
    perform 1 from public.cash_accounts where user_id = p_user for update;
    for dropped in delete from public.offering_bids x using public.offerings f
              where x.user_id = p_user and f.id = x.offering_id and f.closed_at is null
              returning x.reserved, f.token_id loop
      update public.cash_accounts set available = available + dropped.reserved, reserved = reserved - dropped.reserved
       where user_id = p_user;
      insert into public.market_events (token_id, kind) values (dropped.token_id, 'book');
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
