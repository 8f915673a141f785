-- quote_bids: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

drop routine if exists private.check_order_funds(uuid,uuid,text,text,text,bigint,numeric,integer);

CREATE OR REPLACE FUNCTION private.check_bid_terms(f public.offerings, tok public.tokens, p_user uuid, p_price numeric, p_amount numeric)
 RETURNS void
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if tok.owner_id = p_user then perform private.refuse('You cannot bid in your own token''s offering.'); end if;
  if p_price < f.reserve_price then
    perform private.refuse(format('Bids start at the issue price, %s.', private.money(f.reserve_price)));
  end if;
  if p_amount > f.account_cap then
    perform private.refuse(format('One account may bid for at most %s tokens in this offering.',
      to_char(f.account_cap, 'FM999,999,999,990')));
  end if;
end $function$;

CREATE OR REPLACE FUNCTION private.check_order_funds(p_user uuid, p_token uuid, p_token_name text, p_side text, p_type text, p_amount bigint, p_price numeric, p_bps integer, p_released numeric DEFAULT 0)
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
  select coalesce(max(available), 0) + p_released into budget from public.cash_accounts where user_id = p_user;
  if p_type = 'limit' and budget < private.buy_cost(p_price, p_amount, p_bps) then
    raise exception 'Insufficient funds: this order needs % (value + % fee) and you have % available.',
      private.money(private.buy_cost(p_price, p_amount, p_bps)),
      trim_scale(p_bps / 100.0)::text || '%', private.money(budget) using errcode = 'P0001';
  end if;
  return budget;
end $function$;

CREATE OR REPLACE FUNCTION public.place_offering_bid(p_token uuid, p_price numeric, p_amount numeric)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := auth.uid();
  settings public.exchange_settings := private.check_order_request(uid, 'buy', 'limit', p_amount, p_price);
  f public.offerings := private.lock_open_offering(p_token);
  tok public.tokens;
  was public.offering_bids;
  bid public.offering_bids;
  cost numeric := private.buy_cost(p_price, p_amount, f.fee_bps);
begin
  select * into tok from public.tokens where id = p_token;
  perform private.check_bid_terms(f, tok, uid, p_price, p_amount);
  perform 1 from public.cash_accounts where user_id = uid for update;
  select * into was from public.offering_bids where offering_id = f.id and user_id = uid for update;
  if was.user_id is not null then
    update public.cash_accounts set available = available + was.reserved, reserved = reserved - was.reserved where user_id = uid;
  end if;
  perform private.check_order_funds(uid, p_token, tok.name, 'buy', 'limit', p_amount::bigint, p_price, f.fee_bps);
  update public.cash_accounts set available = available - cost, reserved = reserved + cost where user_id = uid;
  insert into public.offering_bids (offering_id, user_id, price, amount, reserved)
  values (f.id, uid, p_price, p_amount, cost)
  on conflict (offering_id, user_id) do update
    set price = excluded.price, amount = excluded.amount, reserved = excluded.reserved,
        placed_at = case when excluded.price = was.price and excluded.amount <= was.amount then was.placed_at
                         else excluded.placed_at end
  returning * into bid;
  perform private.tell_market(p_token, 'offering');
  return jsonb_build_object('price', bid.price, 'amount', bid.amount, 'reserved', bid.reserved, 'placed_at', bid.placed_at,
                            'closes_at', f.closes_at);
end $function$;

CREATE OR REPLACE FUNCTION public.quote_offering_bid(p_token uuid, p_price numeric, p_amount numeric)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  uid uuid := auth.uid();
  f public.offerings;
  tok public.tokens;
  released numeric;
  value numeric;
  refusal text;
begin
  if p_price is null or p_price = 'NaN' or p_price <= 0 then perform private.refuse('A bid needs a price above $0.00.'); end if;
  if p_amount is null or p_amount = 'NaN' or p_amount < 1 or p_amount <> trunc(p_amount) then
    perform private.refuse('The amount must be a whole number of tokens, at least 1.');
  end if;
  select * into f from public.offerings where token_id = p_token and closed_at is null;
  if f.id is null then perform private.refuse('This token has no open offering.'); end if;
  select * into tok from public.tokens where id = p_token;
  select coalesce(max(reserved), 0) into released from public.offering_bids where offering_id = f.id and user_id = uid;
  value := private.trade_value(p_price, p_amount::bigint);
  begin
    perform private.check_bid_terms(f, tok, uid, p_price, p_amount);
    perform private.check_order_funds(uid, p_token, tok.name, 'buy', 'limit', p_amount::bigint, p_price, f.fee_bps, released);
  exception when sqlstate 'P0001' then
    refusal := sqlerrm;
  end;
  return jsonb_build_object('value', value, 'fee', private.fee(value, f.fee_bps),
    'total', private.buy_cost(p_price, p_amount::bigint, f.fee_bps), 'usable', (select coalesce(max(available), 0)
      from public.cash_accounts where user_id = uid) + released, 'refusal', refusal);
end $function$;

revoke all on routine private.check_bid_terms(public.offerings,public.tokens,uuid,numeric,numeric) from public;

revoke all on routine private.check_order_funds(uuid,uuid,text,text,text,bigint,numeric,integer,numeric) from public;

revoke all on routine public.quote_offering_bid(uuid,numeric,numeric) from anon;
revoke all on routine public.quote_offering_bid(uuid,numeric,numeric) from public;
