-- Volatility auctions: a sudden move stops continuous trading in a token and reopens it by a call
-- auction, as Xetra's volatility interruptions and the US limit-up/limit-down pauses do.
--
-- The band. Every trade in continuous trading lies within exchange_settings.volatility_band_bps of
-- the token's reference price: the price of its last trade at least five minutes old, or its last
-- auction's price when that came later (private.volatility_band). A token without a trade that
-- old has no band yet: its offering (offerings.sql) has just set its price.
--
-- The switch. An order that would meet a resting order beyond the band does not
-- (matching.sql, match_order): it trades what lies within, the token enters an auction of
-- exchange_settings.volatility_auction_seconds (private.start_volatility_auction), and what is
-- left of it rests if it is a limit order good til cancelled or til a date; a market or
-- immediate-or-cancel order's rest is cancelled, and a fill-or-kill is refused. No stop runs in
-- an auction: a cascade ends at its boundary (stops.sql, trigger_stops).
--
-- The call. Limit orders (gtc, gtd) rest without matching, even crossed; cancelling works; market,
-- immediate-or-cancel, fill-or-kill and post-only orders are refused in words (orders.sql,
-- execute_order). Anyone sees the indicative price and volume (public.volatility_auction_book).
--
-- The uncross. When the call period ends, the scheduler (private.step_volatility_auctions, pg_cron
-- on a hosted project) finds one price: the most tokens traded; then the least left unmatched at
-- it; then the nearest the reference; then the higher. Orders fill at it by price, then time.
-- Each pair settles through the engine's settlement (settle_fills), both sides at the taker fee,
-- as an offering's allocations do. Then continuous trading resumes with that price as the
-- reference, and the waiting stops are checked against it. Locks, in the engine's order: the
-- auction, the token, then cash accounts and holdings in ascending user id.

create table public.volatility_auctions (
  id bigint generated always as identity primary key,
  token_id uuid not null references public.tokens (id) on delete cascade,
  -- The band the order met: its centre, its width, and the price beyond it the order would have traded at.
  reference_price numeric(12, 2) not null check (reference_price > 0),
  band_bps integer not null check (band_bps > 0),
  trigger_price numeric(12, 2) not null check (trigger_price > 0),
  trigger_order bigint not null,
  started_at timestamptz not null default clock_timestamp(),
  ends_at timestamptz not null check (ends_at > started_at),
  -- The token's holders were told (the scheduler's first step after the start).
  announced boolean not null default false,
  -- Set by the uncross: when, at what price (none when nothing crossed), and how many tokens traded.
  uncrossed_at timestamptz,
  uncross_price numeric(12, 2) check (uncross_price > 0),
  volume bigint not null default 0 check (volume >= 0)
);
create unique index volatility_auctions_open_idx on public.volatility_auctions (token_id) where uncrossed_at is null;
create index volatility_auctions_due_idx on public.volatility_auctions (ends_at) where uncrossed_at is null;
create index volatility_auctions_token_idx on public.volatility_auctions (token_id, started_at desc);
create index volatility_auctions_unannounced_idx on public.volatility_auctions (started_at) where not announced;
alter table public.volatility_auctions enable row level security;
-- A market fact, public to every signed-in trader.
create policy "volatility auctions are visible to signed-in users" on public.volatility_auctions
  for select to authenticated using (true);
revoke all on public.volatility_auctions from anon;
revoke insert, update, delete, truncate on public.volatility_auctions from authenticated;

-- The band around a token's reference price now: the last trade at least five minutes old, or
-- the last auction's price (its trigger's when nothing crossed in it: the move nobody answered in
-- the call period stands) when that came later. No reference, no band (low and high null).
create function private.volatility_band(p_token uuid, out reference numeric, out low numeric, out high numeric)
language plpgsql stable security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  traded_at timestamptz;
  traded numeric;
  auctioned_at timestamptz;
  auctioned numeric;
  bps integer := (select e.volatility_band_bps from public.exchange_settings e);
begin
  select t.created_at, t.price into traded_at, traded from public.trades t
   where t.token_id = p_token and t.created_at <= now() - interval '5 minutes'
   order by t.token_id, t.created_at desc, t.id desc limit 1;
  select a.uncrossed_at, coalesce(a.uncross_price, a.trigger_price) into auctioned_at, auctioned
    from public.volatility_auctions a
   where a.token_id = p_token and a.uncrossed_at is not null
   order by a.token_id, a.started_at desc limit 1;
  reference := case when auctioned_at > traded_at or traded_at is null then auctioned else traded end;
  low := ceil(reference * (1 - bps / 10000.0) * 100) / 100;
  high := floor(reference * (1 + bps / 10000.0) * 100) / 100;
end $$;
revoke execute on function private.volatility_band(uuid) from public;

-- Starts a token's volatility auction: the order `p_order` would have traded at `p_beyond`, beyond
-- the band around `p_reference`. The caller holds the book's lock. Returns when the call ends.
create function private.start_volatility_auction(tok public.tokens, p_order bigint, p_beyond numeric, p_reference numeric)
returns timestamptz language plpgsql security definer set search_path = '' as $$
declare
  rules public.exchange_settings := (select e from public.exchange_settings e);
  until timestamptz := clock_timestamp() + make_interval(secs => rules.volatility_auction_seconds);
begin
  insert into public.volatility_auctions (token_id, reference_price, band_bps, trigger_price, trigger_order, ends_at)
  values (tok.id, p_reference, rules.volatility_band_bps, p_beyond, p_order, until);
  update public.tokens set auction_until = until where id = tok.id;
  return until;
end $$;
revoke execute on function private.start_volatility_auction(public.tokens, bigint, numeric, numeric) from public;

-- Why an order that must trade at once, or must not trade at all (market, immediate-or-cancel,
-- fill-or-kill, post-only), is refused while the token is in an auction: the engine's words and
-- the order panel's (quote_order).
create function private.auction_refusal(tok public.tokens) returns text
language sql immutable set search_path = '' as $$
  select format('%s is in a volatility auction until %s UTC: orders are collected and trade at one price when it ends. A limit order good til cancelled or til a date joins the auction; market, immediate-or-cancel, fill-or-kill and post-only orders wait until continuous trading resumes.',
    tok.name, to_char(tok.auction_until at time zone 'UTC', 'HH24:MI:SS'))
$$;
revoke execute on function private.auction_refusal(public.tokens) from public;

-- Why a fill-or-kill that would meet an order at `p_beyond`, beyond the volatility band around
-- `p_reference`, is refused: the engine's words and the order panel's (quote_order).
create function private.band_refusal(tok public.tokens, p_beyond numeric, p_reference numeric) returns text
language sql stable set search_path = '' as $$
  select format('Fill or kill: at %s this order would trade beyond the volatility band around %s''s reference price of %s, so nothing was placed.',
    private.money(p_beyond), tok.name, private.money(p_reference))
$$;
revoke execute on function private.band_refusal(public.tokens, numeric, numeric) from public;

-- The price a token's book would uncross at now, and what would trade: the most tokens, then the
-- least left unmatched at that price, then the nearest `p_reference`, then the higher. Demand and
-- supply are what is bid at or above it and offered at or below it. No row when nothing crosses.
create function private.auction_uncross(p_token uuid, p_reference numeric)
returns table (price numeric, volume bigint, demand bigint, supply bigint)
language sql stable security definer set search_path = '' as $$
  with levels as (
    select o.price,
           coalesce(sum(o.amount - o.filled) filter (where o.side = 'buy'), 0) as bid,
           coalesce(sum(o.amount - o.filled) filter (where o.side = 'sell'), 0) as offered
      from public.orders o
     where o.token_id = p_token and o.status = 'open'
     group by o.price
  ),
  curve as (
    select l.price, sum(l.bid) over (order by l.price desc) as demand, sum(l.offered) over (order by l.price) as supply
      from levels l
  )
  select c.price, least(c.demand, c.supply)::bigint, c.demand::bigint, c.supply::bigint
    from curve c
   where least(c.demand, c.supply) > 0
   order by least(c.demand, c.supply) desc, abs(c.demand - c.supply), abs(c.price - p_reference), c.price desc
   limit 1
$$;
revoke execute on function private.auction_uncross(uuid, numeric) from public;
-- volatility_auction_book calls it as its reader: it answers aggregates of the public book only.
grant execute on function private.auction_uncross(uuid, numeric) to authenticated;

-- A token's auctions as screens read them: the open one with its indicative price, the volume that
-- would trade and the demand and supply at that price; closed ones with their result.
create view public.volatility_auction_book as
  select a.id, a.token_id, a.reference_price, a.band_bps, a.trigger_price, a.started_at, a.ends_at,
         a.uncrossed_at, a.uncross_price, a.volume,
         c.price as indicative_price, c.volume as indicative_volume, c.demand, c.supply
    from public.volatility_auctions a
    left join lateral (select * from private.auction_uncross(a.token_id, a.reference_price) u where a.uncrossed_at is null) c on true;
revoke all on public.volatility_auction_book from anon;
grant select on public.volatility_auction_book to authenticated;

-- The scheduler's step: tells the holders of a token whose auction has just started, else
-- uncrosses the auction that has been due longest. Says whether it did either. An auction waits
-- while its token or the exchange is halted.
create function private.step_volatility_auctions() returns boolean
language plpgsql security definer set search_path = '' as $$
declare
  a public.volatility_auctions;
begin
  select v.* into a from public.volatility_auctions v
   where not v.announced order by v.started_at limit 1 for update of v skip locked;
  if a.id is not null then
    perform private.tell_auction_holders(a, false);
    update public.volatility_auctions set announced = true where id = a.id;
    return true;
  end if;
  select v.* into a from public.volatility_auctions v
   where v.uncrossed_at is null and v.ends_at <= now()
     and not (select e.trading_halted from public.exchange_settings e)
     and not exists (select 1 from public.tokens t where t.id = v.token_id and t.halt_reason is not null)
   order by v.ends_at limit 1 for update of v skip locked;
  if a.id is null then return false; end if;
  perform private.uncross_auction(a);
  return true;
end $$;
revoke execute on function private.step_volatility_auctions() from public;

-- Uncrosses auction `a` (locked by the caller): every pair of orders that trade at the one price,
-- settled a pair at a time (a buy's whole reservation is released when it completes, so one call
-- must not name one order twice); then continuous trading resumes and the stops are checked.
create function private.uncross_auction(a public.volatility_auctions) returns void
language plpgsql security definer set search_path = '' as $$
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
end $$;
revoke execute on function private.uncross_auction(public.volatility_auctions) from public;

-- Tells the token's holders that its auction started (and until when), or that trading resumed
-- (at what price): in the bell, by mail if they chose so (kind 'auction').
create function private.tell_auction_holders(a public.volatility_auctions, p_resumed boolean) returns void
language plpgsql security definer set search_path = '' as $$
declare
  tok public.tokens := (select t from public.tokens t where t.id = a.token_id);
  done public.volatility_auctions := (select v from public.volatility_auctions v where v.id = a.id);
begin
  perform private.notify(h.user_id, 'auction',
    case when p_resumed then format('%s: trading resumed', tok.name) else format('%s: volatility auction', tok.name) end,
    case when not p_resumed
         then format('A trade in %s at %s would have moved its price beyond %s of its reference price of %s, so continuous trading stopped for a volatility auction until %s UTC. Limit orders are collected and trade at one price when it ends; cancelling works.',
                     tok.name, private.money(a.trigger_price), trim_scale(a.band_bps / 100.0)::text || '%',
                     private.money(a.reference_price), to_char(a.ends_at at time zone 'UTC', 'HH24:MI:SS'))
         when done.volume > 0
         then format('The volatility auction in %s ended at %s a token, with %s tokens traded. Continuous trading has resumed.',
                     tok.name, private.money(done.uncross_price), to_char(done.volume, 'FM999,999,999,990'))
         else format('The volatility auction in %s ended with no trade. Continuous trading has resumed.', tok.name) end,
    '/trading/' || tok.id, false)
    from public.holdings h
   where h.token_id = a.token_id and h.amount > 0 and h.user_id <> private.issuance_account();
  -- One message for all of them, not one each.
  perform private.tell_accounts(array(select h.user_id from public.holdings h
                                       where h.token_id = a.token_id and h.amount > 0 and h.user_id <> private.issuance_account()),
                                'notice');
end $$;
revoke execute on function private.tell_auction_holders(public.volatility_auctions, boolean) from public;
