-- tokens_of: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.check_maker_terms(p_user uuid, tok public.tokens, p_side text, p_amount bigint, p_price numeric, p_post_only boolean)
 RETURNS void
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  other text := case when p_side = 'buy' then 'sell' else 'buy' end;
  best numeric;
  offered bigint;
begin
  if p_post_only then
    select case when p_side = 'buy' then min(price) else max(price) end into best
      from public.orders where token_id = tok.id and side = other and status = 'open'
       and (case when p_side = 'buy' then price <= p_price else price >= p_price end);
    if best is not null then
      perform private.refuse(format('Post-only: at %s this order would trade at once with the best %s at %s, so it was not placed. Choose a price %s %s, or turn post-only off.',
        private.money(p_price), case when p_side = 'buy' then 'ask' else 'bid' end, private.money(best),
        case when p_side = 'buy' then 'below' else 'above' end, private.money(best)));
    end if;
  else
    select coalesce(sum(amount - filled), 0) into offered
      from public.orders where token_id = tok.id and side = other and status = 'open' and user_id <> p_user
       and (case when p_side = 'buy' then price <= p_price else price >= p_price end);
    if offered < p_amount then
      perform private.refuse(format('Fill or kill: %s %s %s at %s or better right now, fewer than the %s asked, so nothing was placed.',
        private.tokens_of(offered, tok.name), case when offered = 1 then 'is' else 'are' end, case when p_side = 'buy' then 'offered' else 'bid for' end, private.money(p_price), p_amount));
    end if;
  end if;
end $function$;

CREATE OR REPLACE FUNCTION private.check_order_funds(p_user uuid, p_token uuid, p_token_name text, p_side text, p_type text, p_amount bigint, p_price numeric, p_bps integer)
 RETURNS numeric
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  have numeric;
  vesting bigint;
  budget numeric;
begin
  if p_side = 'sell' then
    select coalesce(max(available), 0), coalesce(max(locked), 0) into have, vesting
      from public.holdings where user_id = p_user and token_id = p_token;
    if have < p_amount then
      raise exception 'You have % available to sell%; this order needs %.', private.tokens_of(have, p_token_name),
        case when vesting > 0 then format(' (%s more are still vesting)', vesting) else '' end, p_amount using errcode = 'P0001';
    end if;
    return 0;
  end if;
  select coalesce(max(available), 0) into budget from public.cash_accounts where user_id = p_user;
  if p_type = 'limit' and budget < private.buy_cost(p_price, p_amount, p_bps) then
    raise exception 'Insufficient funds: this order needs % (value + % fee) and you have % available.',
      private.money(private.buy_cost(p_price, p_amount, p_bps)),
      trim_scale(p_bps / 100.0)::text || '%', private.money(budget) using errcode = 'P0001';
  end if;
  return budget;
end $function$;

CREATE OR REPLACE FUNCTION private.tokens_of(n numeric, token_name text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$
  select to_char(n, 'FM999,999,999,990') || ' ' || token_name || case when n = 1 then ' token' else ' tokens' end
$function$;

revoke all on routine private.tokens_of(numeric,text) from public;
