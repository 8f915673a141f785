-- The admin removes the authenticator app of someone who lost it.
--
-- With two-step verification on, a person whose phone is lost, wiped or replaced cannot sign in,
-- nor reset the password (that too asks for the app's code). After checking who they are, support
-- removes the app: admin_remove_two_step deletes the account's factors and ends its sessions, so
-- whoever holds one must sign in again with the password; the person then signs in with the
-- password alone and may turn the verification on again with the new phone. Audited as
-- account.two_step_off, with the reason. The account's details say whether the app is on
-- (admin_account_details recreated whole from 20261124004100, with profile.two_step added).

create or replace function public.admin_account_details(p_user uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  p public.profiles;
begin
  perform private.require_admin();
  select * into p from public.profiles where id = p_user and role <> 'system';
  if not found then perform private.refuse('There is no such account.'); end if;
  return jsonb_build_object(
    'profile', to_jsonb(p) || jsonb_build_object('email', (select email from auth.users where id = p_user),
      'last_sign_in_at', (select last_sign_in_at from auth.users where id = p_user),
      'two_step', exists (select from auth.mfa_factors f where f.user_id = p_user and f.status = 'verified')),
    'cash', (select to_jsonb(c) - 'user_id' from public.cash_accounts c where c.user_id = p_user),
    'holdings', coalesce((select jsonb_agg(jsonb_build_object('token', k.name, 'token_id', k.id, 'amount', h.amount, 'reserved', h.reserved) order by h.amount desc)
      from public.holdings h join public.tokens k on k.id = h.token_id where h.user_id = p_user and h.amount > 0), '[]'),
    'open_orders', coalesce((select jsonb_agg(jsonb_build_object('id', o.id, 'token', k.name, 'side', o.side, 'price', o.price, 'amount', o.amount - o.filled, 'created_at', o.created_at) order by o.created_at desc)
      from public.orders o join public.tokens k on k.id = o.token_id where o.user_id = p_user and o.status = 'open'), '[]'),
    'trades', coalesce((select jsonb_agg(x order by x.created_at desc) from (
      select t.id, k.name as token, case when t.buyer_id = p_user then 'buy' else 'sell' end as side, t.price, t.amount, t.created_at
      from public.trades t join public.tokens k on k.id = t.token_id where t.buyer_id = p_user or t.seller_id = p_user
      order by t.created_at desc limit 20) x), '[]'),
    'payments', coalesce((select jsonb_agg(x order by x.created_at desc) from (
      select w.id, w.type, w.amount, w.status, w.method, w.message, w.created_at from public.wallet_transactions w where w.user_id = p_user
      order by w.created_at desc limit 20) x), '[]'),
    'sessions', coalesce((select jsonb_agg(jsonb_build_object('id', s.id, 'created_at', s.created_at, 'refreshed_at', s.refreshed_at,
        'user_agent', s.user_agent, 'ip', host(s.ip)) order by s.created_at desc)
      from auth.sessions s where s.user_id = p_user), '[]'),
    'activity', coalesce((select jsonb_agg(x order by x.created_at desc) from (
      select l.created_at, a.username as actor, l.action, l.reason from public.audit_log l left join public.profiles a on a.id = l.actor_id
      where l.target_user = p_user order by l.created_at desc limit 50) x), '[]')
  );
end $$;

create or replace function public.admin_remove_two_step(p_user uuid, p_reason text) returns void
language plpgsql security definer set search_path = '' as $$
declare
  admin uuid := private.require_admin();
  target public.profiles;
  ended integer;
begin
  if char_length(trim(coalesce(p_reason, ''))) not between 3 and 500 then
    perform private.refuse('Give a reason of 3 to 500 characters for removing the authenticator app.');
  end if;
  target := private.managed_account(p_user);
  if not exists (select from auth.mfa_factors where user_id = p_user and status = 'verified') then
    perform private.refuse('Two-step verification is not on for this account.');
  end if;
  delete from auth.mfa_factors where user_id = p_user;
  delete from auth.sessions where user_id = p_user;
  get diagnostics ended = row_count;
  perform private.audit('account.two_step_off', p_user, target.username, null, jsonb_build_object('sessions_ended', ended),
    trim(p_reason));
end $$;

revoke execute on function public.admin_remove_two_step(uuid, text) from public, anon;
