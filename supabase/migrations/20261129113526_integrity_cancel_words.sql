-- integrity_cancel_words: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

CREATE OR REPLACE FUNCTION public.token_integrity(p_token uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  tok public.tokens;
  since timestamptz := now() - interval '30 days';
  halts integer;
  auctions integer;
  volume numeric;
  flagged numeric;
  cancelled integer;
  traded integer;
  top10 numeric;
  grant_total bigint;
  vested bigint;
  sold bigint;
  reading jsonb := '[]';
  level text := 'good';
begin
  if auth.uid() is null then perform private.refuse('Sign in first.'); end if;
  select * into tok from public.tokens where id = p_token;
  if not found then perform private.refuse('That token does not exist.'); end if;

  select count(*) into halts from public.audit_log a
   where a.action = 'token.halt' and a.created_at > since and a.target = tok.name
     and a.target_user is not distinct from tok.owner_id;
  select count(*) into auctions from public.volatility_auctions v where v.token_id = p_token and v.started_at > since;
  -- The volume, and the orders that traded (an order is on one side: the two counts add up), in
  -- one pass over the token's trades of the window, on their index.
  select coalesce(sum(t.value), 0), count(distinct t.buy_order_id) + count(distinct t.sell_order_id)
    into volume, traded
    from public.trades t where t.token_id = p_token and t.created_at > since;
  -- Volume between accounts an admin confirmed were manipulating, together (fraud.sql); the
  -- trades are read again only when such an alert exists.
  flagged := 0;
  if exists (select 1 from public.fraud_alerts f where f.status = 'confirmed' and (f.token_id = p_token or f.token_id is null)) then
    select coalesce(sum(t.value), 0) into flagged from public.trades t
     where t.token_id = p_token and t.created_at > since
       and exists (select 1 from public.fraud_alerts f
                    where f.status = 'confirmed' and (f.token_id = p_token or f.token_id is null)
                      and t.buyer_id = any (f.accounts) and t.seller_id = any (f.accounts));
  end if;
  -- Orders placed in the window and closed unfilled (orders_unfilled_closed_idx, not every order).
  select count(*) into cancelled from public.orders o
   where o.token_id = p_token and o.status in ('cancelled', 'expired') and o.filled = 0 and o.created_at > since;
  select coalesce(sum(h.amount), 0) into top10 from (
    select h.amount from public.holdings h
     where h.token_id = p_token and h.amount > 0 and h.user_id <> private.issuance_account()
     order by h.amount desc limit 10) h;
  select g.total, private.vested(g, now()) into grant_total, vested
    from public.vesting_grants g where g.token_id = p_token and g.user_id = tok.owner_id;
  select coalesce(sum(t.amount), 0) into sold from public.trades t
   where t.token_id = p_token and t.seller_id = tok.owner_id and tok.owner_id is not null and t.created_at > since;

  -- The reading: one plain sentence a figure, and the worst level any of them reaches.
  reading := reading || to_jsonb(case when tok.halt_reason is not null then 'Trading is halted now: ' || tok.halt_reason || '.'
                                      when halts = 0 then 'Trading was not halted in the last 30 days.'
                                      else format('RepX halted trading %s in the last 30 days.', case when halts = 1 then 'once' else halts || ' times' end) end);
  if tok.halt_reason is not null or halts > 0 then level := 'watch'; end if;
  reading := reading || to_jsonb(case when tok.auction_until is not null
                                      then format('A sudden move paused trading for a volatility auction until %s UTC.', to_char(tok.auction_until at time zone 'UTC', 'HH24:MI'))
                                      when auctions = 0 then 'No sudden move paused trading for a volatility auction in the last 30 days.'
                                      when auctions = 1 then 'A sudden move paused trading for a volatility auction once in the last 30 days.'
                                      else format('Sudden moves paused trading for a volatility auction %s in the last 30 days.',
                                                  case when auctions = 2 then 'twice' else auctions || ' times' end) end);
  if auctions >= 3 and level = 'good' then level := 'watch'; end if;
  if volume = 0 then
    reading := reading || to_jsonb('Nothing traded in the last 30 days.'::text);
  elsif flagged = 0 then
    reading := reading || to_jsonb('None of the last 30 days'' volume was between accounts RepX found manipulating the market.'::text);
  else
    reading := reading || to_jsonb(format('%s%% of the last 30 days'' volume was between accounts RepX confirmed were manipulating the market.',
                                          trim_scale(round(100 * flagged / volume, 1))));
    level := case when flagged / volume >= 0.1 then 'concern' else 'watch' end;
  end if;
  if cancelled = 0 and traded > 0 then
    reading := reading || to_jsonb(format('No order placed in the last 30 days was cancelled unfilled; %s traded.',
      case when traded = 1 then 'one order' else traded || ' orders' end));
  elsif cancelled > 0 then
    reading := reading || to_jsonb(format('%s cancelled unfilled for each that traded%s.',
      case when round(cancelled::numeric / greatest(traded, 1), 1) = 1 then '1 order was'
           else trim_scale(round(cancelled::numeric / greatest(traded, 1), 1)) || ' orders were' end,
      case when cancelled > 10 * greatest(traded, 1) then ': a book of many orders that never trade, which can hide spoofing' else '' end));
    if cancelled > 10 * greatest(traded, 1) then level := case when level = 'concern' then level else 'watch' end; end if;
  end if;
  reading := reading || to_jsonb(format('The ten largest holders hold %s%% of the supply%s.', trim_scale(round(100 * top10 / tok.total_supply, 1)),
    case when top10 >= 0.8 * tok.total_supply then ': a few people can move the price' else '' end));
  if top10 >= 0.8 * tok.total_supply and level = 'good' then level := 'watch'; end if;
  if grant_total is not null then
    reading := reading || to_jsonb(format('The person has vested %s of their %s founder tokens and sold %s in the last 30 days.',
      to_char(vested, 'FM999,999,999,990'), to_char(grant_total, 'FM999,999,999,990'), to_char(sold, 'FM999,999,999,990')));
  elsif tok.owner_id is not null then
    reading := reading || to_jsonb(format('The person sold %s of their tokens in the last 30 days.', to_char(sold, 'FM999,999,999,990')));
  end if;

  return jsonb_build_object(
    'token_id', p_token, 'since', since, 'level', level, 'reading', reading,
    'halted_now', tok.halt_reason is not null, 'halts', halts, 'volatility_auctions', auctions,
    'auction_now', tok.auction_until is not null,
    'volume', volume, 'flagged_volume', flagged,
    'flagged_share', case when volume > 0 then round(flagged / volume, 4) else 0 end,
    'orders_cancelled', cancelled, 'orders_traded', traded,
    'cancel_to_fill', round(cancelled::numeric / greatest(traded, 1), 2),
    'top10_share', round(top10 / tok.total_supply, 4),
    'founder', case when tok.owner_id is null then null
                    else jsonb_build_object('granted', grant_total, 'vested', vested, 'sold_30d', sold) end);
end $function$;
