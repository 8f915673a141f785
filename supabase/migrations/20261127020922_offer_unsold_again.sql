-- offer_unsold_again: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

CREATE OR REPLACE FUNCTION public.admin_offer_unsold(p_token uuid, p_price numeric DEFAULT NULL::numeric)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  admin uuid := private.require_admin();
  tok public.tokens;
  unsold bigint;
  price numeric;
  f public.offerings;
begin
  select * into tok from public.tokens where id = p_token for update;
  if tok.id is null then perform private.refuse('There is no such token.'); end if;
  if exists (select 1 from public.offerings where token_id = p_token and closed_at is null) then
    perform private.refuse(format('An offering of %s is open already.', tok.name));
  end if;
  if tok.halt_reason is not null then perform private.refuse(format('Trading in %s is halted: resume it first.', tok.name)); end if;
  select h.amount - h.reserved into unsold from public.holdings h
   where h.token_id = p_token and h.user_id = private.issuance_account() for update;
  if coalesce(unsold, 0) <= 0 then
    perform private.refuse(format('Nothing of %s is left to offer: the issuance account holds none.', tok.name));
  end if;
  price := coalesce(p_price, private.last_price(p_token));
  if price <= 0 or price <> round(price, 2) or price > (select max_price from public.exchange_settings) then
    perform private.refuse(format('The lowest bid must be between $0.01 and %s, in cents.',
      private.money((select max_price from public.exchange_settings))));
  end if;
  f := private.open_offering(p_token, unsold, price);
  -- Its trading state changed, as by a halt: open screens read the token's offering again.
  insert into public.market_events (token_id, kind) values (p_token, 'halt');
  perform private.audit('offering.open', tok.owner_id, tok.name, null,
    jsonb_build_object('offering', f.id, 'supply', f.supply, 'reserve_price', f.reserve_price, 'closes_at', f.closes_at));
  return to_jsonb(f);
end $function$;

revoke all on routine public.admin_offer_unsold(uuid,numeric) from anon;
revoke all on routine public.admin_offer_unsold(uuid,numeric) from public;
