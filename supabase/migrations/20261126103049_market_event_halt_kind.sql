-- market_event_halt_kind: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

alter table public.market_events drop constraint if exists "market_events_kind_check";

CREATE OR REPLACE FUNCTION public.admin_set_token_halt(p_token uuid, p_halted boolean, p_reason text DEFAULT NULL::text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  admin uuid := private.require_admin();
  tok public.tokens;
  reason text := nullif(btrim(p_reason), '');
begin
  if p_halted is null then perform private.refuse('Say whether trading in the token is halted.'); end if;
  select * into tok from public.tokens where id = p_token for update; -- the book's lock: no order is half through
  if not found then perform private.refuse('There is no such token.'); end if;
  if p_halted and (reason is null or char_length(reason) not between 3 and 200) then
    perform private.refuse('Give a reason of 3 to 200 characters: traders see it.');
  end if;
  if p_halted then perform private.refuse_hidden_characters(reason, 'The reason'); end if;
  if p_halted = (tok.halt_reason is not null) and (not p_halted or reason = tok.halt_reason) then
    perform private.refuse(format('Trading in %s is %s already.', tok.name, case when p_halted then 'halted' else 'open' end));
  end if;
  update public.tokens
     set halt_reason = case when p_halted then reason end,
         halted_at = case when p_halted then coalesce(tok.halted_at, now()) end
   where id = p_token;
  insert into public.market_events (token_id, kind) values (p_token, 'halt');
  if tok.owner_id is not null then
    insert into private.account_mail (user_id, subject, body)
    values (tok.owner_id,
      case when p_halted then 'Trading in your RepX token is halted' else 'Trading in your RepX token has resumed' end,
      case when p_halted
        then format(E'RepX halted trading in your token %s on %s: %s.\n'
                    'Orders already on the book stay there and may be cancelled; no new order is accepted until trading resumes. We will email you when it does.',
               tok.name, to_char(now() at time zone 'UTC', 'Mon FMDD, YYYY, HH24:MI "UTC"'), rtrim(reason, '.'))
        else format('Trading in your token %s resumed on %s: orders are accepted again.',
               tok.name, to_char(now() at time zone 'UTC', 'Mon FMDD, YYYY, HH24:MI "UTC"'))
      end);
    perform pg_notify('repx_mail', '');
  end if;
  perform private.audit(case when p_halted then 'token.halt' else 'token.resume' end, tok.owner_id, tok.name,
    jsonb_build_object('halt_reason', tok.halt_reason), jsonb_build_object('halt_reason', case when p_halted then reason end),
    case when p_halted then reason end);
  return jsonb_build_object('token_id', p_token, 'halted', p_halted, 'halt_reason', case when p_halted then reason end);
end $function$;

alter table public.market_events add constraint "market_events_kind_check" CHECK ((kind = ANY (ARRAY['trade'::text, 'book'::text, 'halt'::text])));
