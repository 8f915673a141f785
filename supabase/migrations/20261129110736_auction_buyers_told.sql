-- auction_buyers_told: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.uncross_auction(a public.volatility_auctions)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  tok public.tokens;
  c record;
  pairs jsonb;
  pair record;
  at timestamptz := clock_timestamp();
  bps integer := private.fee_bps();
  before jsonb;
  traders uuid[];
begin
  select * into tok from public.tokens where id = a.token_id for no key update;
  select * into c from private.auction_uncross(a.token_id, a.reference_price);
  if c.volume > 0 then
    -- Buys by price (highest first) then time, sells by price (lowest first) then time, each
    -- covering a stretch of the volume; a pair trades where their stretches meet.
    with buys as (
      select o.id, o.user_id, sum(o.amount - o.filled) over w - (o.amount - o.filled) as lo, sum(o.amount - o.filled) over w as hi
        from public.orders o
       where o.token_id = a.token_id and o.side = 'buy' and o.status = 'open' and o.price >= c.price
      window w as (order by o.price desc, o.created_at, o.id)
    ),
    sells as (
      select o.id, o.user_id, sum(o.amount - o.filled) over w - (o.amount - o.filled) as lo, sum(o.amount - o.filled) over w as hi
        from public.orders o
       where o.token_id = a.token_id and o.side = 'sell' and o.status = 'open' and o.price <= c.price
      window w as (order by o.price, o.created_at, o.id)
    )
    select jsonb_agg(jsonb_build_object('buy', b.id, 'sell', s.id, 'buyer', b.user_id, 'seller', s.user_id,
                                        'amount', least(b.hi, s.hi, c.volume) - greatest(b.lo, s.lo))
                     order by greatest(b.lo, s.lo))
      into pairs
      from buys b join sells s on b.lo < s.hi and s.lo < b.hi
     where greatest(b.lo, s.lo) < c.volume;
    traders := array(select distinct x from (select (p->>'buyer')::uuid from jsonb_array_elements(pairs) p
                                              union select (p->>'seller')::uuid from jsonb_array_elements(pairs) p) u(x));
    perform 1 from public.cash_accounts
     where user_id = any(traders || case when tok.owner_id is not null then array[tok.owner_id] else '{}' end)
     order by user_id for update;
    perform 1 from public.holdings where token_id = a.token_id and user_id = any(traders) order by user_id for update;
    before := (select jsonb_build_object('market_cap', s.market_cap, 'volume_24h', s.volume_24h)
                 from private.token_stats s where s.token_id = a.token_id);
    for pair in select (p->>'buy')::bigint as buy, (p->>'sell')::bigint as sell, (p->>'buyer')::uuid as buyer,
                       (p->>'seller')::uuid as seller, (p->>'amount')::bigint as amount
                  from jsonb_array_elements(pairs) p loop
      perform private.settle_fills(a.token_id, 'buy', jsonb_build_array(jsonb_build_object(
        'seq', 1, 'buyer', pair.buyer, 'seller', pair.seller, 'buy_order', pair.buy, 'sell_order', pair.sell,
        'price', c.price, 'amount', pair.amount, 'buyer_reserved', o.reserved,
        'buyer_completes', pair.amount = o.amount - o.filled, 'seller_reserved', true)), at, bps, bps)
        from public.orders o where o.id = pair.buy;
    end loop;
  end if;
  update public.volatility_auctions
     set uncrossed_at = at, uncross_price = case when c.volume > 0 then c.price end, volume = coalesce(c.volume, 0)
   where id = a.id;
  update public.tokens set auction_until = null where id = a.token_id returning * into tok;
  -- The book's levels every traded order stood at, for the book's feed.
  perform private.tell_market(a.token_id, 'auction',
    case when c.volume > 0 then private.order_levels(array(select (p->>'buy')::bigint from jsonb_array_elements(pairs) p
                                                          union select (p->>'sell')::bigint from jsonb_array_elements(pairs) p))
         else '[]' end,
    case when c.volume > 0 then at end, before);
  if c.volume > 0 then
    -- The fills' notices: the sellers' come from the settlement (private.notify_fills tells the side
    -- that rested, and an uncross records its trades as the buyers'); in an auction every order
    -- rested, so each buyer is told here.
    perform private.notify(o.user_id, 'fill', 'Filled in the Auction',
      format('Your order to buy %s at %s traded %s at the volatility auction''s price of %s%s',
        private.tokens_of(o.amount, tok.name), private.money(o.price), to_char(b.amount, 'FM999,999,999,990'),
        private.money(c.price), case when o.status = 'filled' then '.' else '; the rest still rests on the book.' end),
      '/trading/' || a.token_id, false)
      from (select (p->>'buy')::bigint as id, sum((p->>'amount')::bigint) as amount
              from jsonb_array_elements(pairs) p group by 1) b
      join public.orders o on o.id = b.id;
    perform private.tell_accounts(traders, 'fills', a.token_id);
    if tok.owner_id is not null then perform private.tell_accounts(array[tok.owner_id], 'cash', a.token_id); end if;
  end if;
  perform private.tell_auction_holders(a, true);
  -- Continuous trading resumes: the stops the auction's price has reached run now.
  if exists (select 1 from public.orders o where o.token_id = a.token_id and o.status = 'pending') then
    perform private.trigger_stops(tok, bps);
  end if;
end $function$;
