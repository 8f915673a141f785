-- Offerings: a new token's first sale is a batch (call) auction, not a race to the first buyer.
--
-- Approval (tokens.sql, admin_approve_application) opens a subscription window
-- (exchange_settings.offering_window_minutes, a day by default). During it anyone may place,
-- change and cancel one bid (a price and an amount); its cost (value + fee) is reserved as a
-- resting buy's is. Bids are sealed: the book shows only the indicative clearing price and the
-- total demand (public.offering_book). Until the close, continuous trading in the token is refused
-- (orders.sql, private.lock_book).
--
-- At the close one clearing price is set (private.offering_clearing), the price that fills the most
-- tokens; between prices that fill as many, the one that leaves the least demand unfilled; then
-- the higher. Everyone who bid at or above it pays that price; bids above it fill in full; bids at
-- it share what is left pro rata, rounded down, the tokens left over going one each by bid time
-- (private.offering_allocations). No account bids for more than a cap fixed at the opening
-- (exchange_settings.offering_cap_bps of the offering). What is not sold stays with the issuance
-- account. The close settles every allocation through the engine's settlement (matching.sql,
-- settle_fills: the person receives value - fee and their fee share), so continuous trading opens
-- at the clearing price, the last trade's.
--
-- The close happens once: the scheduler takes a due offering `for update skip locked` and closes
-- it in one transaction (a crash undoes all of it; another process skips it or finds it closed).
-- A hosted project's pg_cron drains the same function (private.drain, supabase/cron.sql).
-- Locks, always in this order: the offering, the token, then cash accounts and holdings in
-- ascending user id (as the engine's).

create table public.offerings (
  id bigint generated always as identity primary key,
  token_id uuid not null references public.tokens (id) on delete cascade,
  -- The tokens on offer, and the lowest price a bid may name: the token's issue price.
  supply bigint not null check (supply > 0),
  reserve_price numeric(12, 2) not null check (reserve_price > 0),
  -- The most one account may bid for, and the fee rate its trades pay: both fixed at the opening.
  account_cap bigint not null check (account_cap > 0),
  fee_bps integer not null check (fee_bps between 0 and 1000),
  opens_at timestamptz not null default now(),
  closes_at timestamptz not null,
  -- Set by the close: when, at what price (none without a bid), and how many tokens were sold.
  closed_at timestamptz,
  clearing_price numeric(12, 2) check (clearing_price > 0),
  sold bigint not null default 0,
  check (closes_at > opens_at),
  check (sold between 0 and supply),
  check (closed_at is not null or (clearing_price is null and sold = 0))
);
create unique index offerings_open_idx on public.offerings (token_id) where closed_at is null;
create index offerings_due_idx on public.offerings (closes_at) where closed_at is null;
create index offerings_token_idx on public.offerings (token_id, opens_at desc);
alter table public.offerings enable row level security;
create policy "offerings are visible to signed-in users" on public.offerings
  for select to authenticated using (true);
revoke all on public.offerings from anon;
revoke insert, update, delete, truncate on public.offerings from authenticated;

-- One bid per account and offering. `placed_at` is its time priority at the margin: a higher
-- price or a larger amount takes a new one, a smaller amount keeps it. At the close, `allocated`
-- is what it received and its reservation is released.
create table public.offering_bids (
  offering_id bigint not null references public.offerings (id) on delete cascade,
  user_id uuid not null references public.profiles (id) on delete cascade,
  price numeric(12, 2) not null check (price > 0),
  amount bigint not null check (amount > 0),
  reserved numeric(14, 2) not null check (reserved >= 0),
  placed_at timestamptz not null default clock_timestamp(),
  allocated bigint check (allocated between 0 and amount),
  primary key (offering_id, user_id)
);
create index offering_bids_user_idx on public.offering_bids (user_id);
alter table public.offering_bids enable row level security;
-- Sealed: a bidder sees their own bid, an admin every bid.
create policy "own bids" on public.offering_bids
  for select to authenticated using (user_id = (select auth.uid()) or (select private.is_admin()));
revoke all on public.offering_bids from anon;
revoke insert, update, delete, truncate on public.offering_bids from authenticated;

-- The price the offering would clear at now: the most tokens filled, then the least demand left
-- unfilled, then the higher price (among the prices bid). Its volume, and the total demand. Bids of
-- suspended accounts do not count. No bids: no price, nothing filled.
create function private.offering_clearing(p_offering bigint, out price numeric, out volume bigint, out demand bigint)
language sql stable security definer set search_path = '' as $$
  with bid as (
    select b.price, b.amount from public.offering_bids b
      join public.profiles p on p.id = b.user_id and p.status = 'active'
     where b.offering_id = p_offering
  ),
  curve as (
    select l.price, sum(l.amount) over (order by l.price desc) as wanted
      from (select bid.price, sum(bid.amount) as amount from bid group by bid.price) l
  ),
  best as (
    select c.price, least(c.wanted, f.supply)::bigint as volume
      from curve c cross join public.offerings f where f.id = p_offering
     order by least(c.wanted, f.supply) desc, abs(c.wanted - f.supply), c.price desc
     limit 1
  )
  select best.price, coalesce(best.volume, 0), (select coalesce(sum(bid.amount), 0)::bigint from bid)
    from (select 1) one left join best on true
$$;
revoke execute on function private.offering_clearing(bigint) from public;
-- offering_book calls it as its reader: it answers aggregates only.
grant execute on function private.offering_clearing(bigint) to authenticated;

-- What each bid receives at the clearing price: in full above it; pro rata at it, rounded down,
-- the tokens left over one each to the earliest bids (then by account id); nothing below it.
create function private.offering_allocations(p_offering bigint)
returns table (user_id uuid, price numeric, amount bigint, reserved numeric, allocated bigint)
language sql stable security definer set search_path = '' as $$
  with clearing as (select * from private.offering_clearing(p_offering)),
  bid as (
    select b.* from public.offering_bids b
      join public.profiles p on p.id = b.user_id and p.status = 'active'
     where b.offering_id = p_offering
  ),
  margin as (
    select coalesce(sum(b.amount) filter (where b.price = c.price), 0) as wanted,
           -- What the bids above the margin leave of the volume (all of the margin when undersubscribed).
           c.volume - coalesce(sum(b.amount) filter (where b.price > c.price), 0) as left_over
      from clearing c left join bid b on true
     group by c.volume
  ),
  base as (
    select b.user_id, b.price, b.amount, b.reserved, b.placed_at, b.price = c.price as marginal,
           case when b.price > c.price then b.amount
                when b.price = c.price then floor(b.amount * m.left_over / m.wanted::numeric)::bigint
                else 0 end as share
      from bid b cross join clearing c cross join margin m
  ),
  ranked as (
    select base.*,
           row_number() over (partition by base.marginal order by base.placed_at, base.user_id) as turn,
           (select m.left_over from margin m) - sum(base.share) filter (where base.marginal) over () as remainder
      from base
  )
  select r.user_id, r.price, r.amount, r.reserved,
         r.share + case when r.marginal and r.turn <= r.remainder then 1 else 0 end
    from ranked r
$$;
revoke execute on function private.offering_allocations(bigint) from public;

-- Opens a new token's offering of `p_supply` tokens, which the issuance account holds, at the
-- issue price; called by the approval. Returns the offering.
create function private.open_offering(p_token uuid, p_supply bigint, p_price numeric)
returns public.offerings language plpgsql security definer set search_path = '' as $$
declare
  s public.exchange_settings;
  f public.offerings;
begin
  select * into s from public.exchange_settings;
  insert into public.offerings (token_id, supply, reserve_price, account_cap, fee_bps, closes_at)
  values (p_token, p_supply, p_price, greatest(1, floor(p_supply * s.offering_cap_bps / 10000.0)::bigint), s.fee_bps,
          now() + make_interval(mins => s.offering_window_minutes))
  returning * into f;
  return f;
end $$;
revoke execute on function private.open_offering(uuid, bigint, numeric) from public;

-- An admin offers again what an offering left unsold (what the issuance account holds of the
-- token), by a new batch auction with the same rules: the window and cap of the settings now, the
-- lowest bid at `p_price` (the last price if none is given). Trading in the token waits for its
-- close, as at the launch; resting orders stay on the book and may be cancelled. Audited.
create function public.admin_offer_unsold(p_token uuid, p_price numeric default null) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  admin uuid := private.require_admin();
  tok public.tokens;
  unsold bigint;
  price numeric;
  f public.offerings;
begin
  select * into tok from public.tokens where id = p_token for no key update;
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
  -- Its trading state changed: open screens read the token's offering again.
  perform private.tell_market(p_token, 'offering');
  perform private.audit('offering.open', tok.owner_id, tok.name, null,
    jsonb_build_object('offering', f.id, 'supply', f.supply, 'reserve_price', f.reserve_price, 'closes_at', f.closes_at));
  return to_jsonb(f);
end $$;
revoke execute on function public.admin_offer_unsold(uuid, numeric) from public, anon;

-- The token's open offering, locked, for a change to a bid now: refused in words when there is
-- none, when its window is over, or when the token is halted.
create function private.lock_open_offering(p_token uuid) returns public.offerings
language plpgsql security definer set search_path = '' as $$
declare
  f public.offerings;
  tok public.tokens;
begin
  select * into f from public.offerings where token_id = p_token and closed_at is null for update;
  select * into tok from public.tokens where id = p_token;
  if tok.id is null then perform private.refuse('There is no such token.'); end if;
  if f.id is null then perform private.refuse(format('%s has no open offering: trade it on the order book.', tok.name)); end if;
  if clock_timestamp() >= f.closes_at then
    perform private.refuse(format('The offering of %s has closed; its bids are being settled.', tok.name));
  end if;
  if tok.halt_reason is not null then
    perform private.refuse(format('Trading in %s is halted: %s. Cancelling a bid still works.', tok.name, rtrim(tok.halt_reason, '.')));
  end if;
  return f;
end $$;
revoke execute on function private.lock_open_offering(uuid) from public;

-- Places the caller's bid in a token's open offering, or changes it: its cost (value + fee at the
-- offering's rate) is reserved from available cash, the old bid's released. A bid is a limit buy
-- in the auction: the order's checks apply (sign-in, second step, whole tokens, a price in cents,
-- suspension, an exchange-wide halt), then the offering's: no lower than the issue price, no more
-- than the account cap, not in one's own token.
create function public.place_offering_bid(p_token uuid, p_price numeric, p_amount numeric)
returns jsonb language plpgsql security definer set search_path = '' as $$
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
end $$;
revoke execute on function public.place_offering_bid(uuid, numeric, numeric) from public, anon;

-- A bid's terms against its offering: not the token's own person, at or above the issue price,
-- within the cap an account may bid for.
create function private.check_bid_terms(f public.offerings, tok public.tokens, p_user uuid, p_price numeric, p_amount numeric)
returns void language plpgsql stable security definer set search_path = '' as $$
begin
  if tok.owner_id = p_user then perform private.refuse('You cannot bid in your own token''s offering.'); end if;
  if p_price < f.reserve_price then
    perform private.refuse(format('Bids start at the issue price, %s.', private.money(f.reserve_price)));
  end if;
  if p_amount > f.account_cap then
    perform private.refuse(format('One account may bid for at most %s tokens in this offering.',
      to_char(f.account_cap, 'FM999,999,999,990')));
  end if;
end $$;
revoke execute on function private.check_bid_terms(public.offerings, public.tokens, uuid, numeric, numeric) from public;

-- What a bid would cost (value, fee at the offering's fee, total) and what place_offering_bid would
-- refuse it for, in its words: its terms, and its funds with the caller's current bid released, as
-- a change releases it. The offering panel's check of a bid as it is typed; it writes nothing.
create function public.quote_offering_bid(p_token uuid, p_price numeric, p_amount numeric) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
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
end $$;
revoke execute on function public.quote_offering_bid(uuid, numeric, numeric) from public, anon;

-- Cancels the caller's bid in a token's open offering and releases its reservation.
create function public.cancel_offering_bid(p_token uuid) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  uid uuid := auth.uid();
  f public.offerings;
  was public.offering_bids;
begin
  if uid is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_second_step();
  perform private.require_scope('trade');
  select * into f from public.offerings where token_id = p_token and closed_at is null for update;
  if f.id is null or clock_timestamp() >= f.closes_at then
    perform private.refuse('This offering has closed; its bids are settled.');
  end if;
  perform 1 from public.cash_accounts where user_id = uid for update;
  delete from public.offering_bids where offering_id = f.id and user_id = uid returning * into was;
  if was.user_id is null then perform private.refuse('You have no bid in this offering.'); end if;
  update public.cash_accounts set available = available + was.reserved, reserved = reserved - was.reserved where user_id = uid;
  perform private.tell_market(p_token, 'offering');
  return jsonb_build_object('released', was.reserved);
end $$;
revoke execute on function public.cancel_offering_bid(uuid) from public, anon;

-- Closes the offering that has been due longest, if any: allocates, settles every allocation as
-- one trade of the issuance account's at the clearing price, releases every reservation, records
-- the result and mails each bidder. Returns whether it closed one. An offering waits while its
-- token or the exchange is halted.
create function private.close_next_offering() returns boolean
language plpgsql security definer set search_path = '' as $$
declare
  f public.offerings;
  c record;
  tok public.tokens;
  fills jsonb;
  total_sold bigint;
begin
  select o.* into f from public.offerings o
   where o.closed_at is null and o.closes_at <= now()
     and not (select trading_halted from public.exchange_settings)
     and not exists (select 1 from public.tokens t where t.id = o.token_id and t.halt_reason is not null)
   order by o.closes_at
   limit 1 for update of o skip locked;
  if f.id is null then return false; end if;
  select * into tok from public.tokens where id = f.token_id for no key update;
  if tok.halt_reason is not null then return false; end if;
  perform 1 from public.cash_accounts
   where user_id in (select b.user_id from public.offering_bids b where b.offering_id = f.id) or user_id = tok.owner_id
   order by user_id for update;
  perform 1 from public.holdings
   where token_id = f.token_id
     and (user_id in (select b.user_id from public.offering_bids b where b.offering_id = f.id) or user_id = private.issuance_account())
   order by user_id for update;

  select * into c from private.offering_clearing(f.id);
  update public.offering_bids b set allocated = a.allocated
    from private.offering_allocations(f.id) a where b.offering_id = f.id and b.user_id = a.user_id;
  update public.offering_bids set allocated = 0 where offering_id = f.id and allocated is null; -- suspended accounts
  select coalesce(sum(b.allocated), 0) into total_sold from public.offering_bids b where b.offering_id = f.id;

  -- Each allocation is a trade: the bid's whole reservation is released, its value and fee paid.
  select jsonb_agg(jsonb_build_object('seq', n, 'buyer', user_id, 'seller', private.issuance_account(),
           'price', c.price, 'amount', allocated, 'buyer_reserved', reserved, 'buyer_completes', true,
           'seller_reserved', false) order by n)
    into fills
    from (select b.*, row_number() over (order by b.user_id) as n
            from public.offering_bids b where b.offering_id = f.id and b.allocated > 0) x;
  if fills is not null then
    perform private.settle_fills(f.token_id, 'buy', fills, now(), f.fee_bps, f.fee_bps);
  end if;
  -- Every other reservation (bids below the price, or of suspended accounts) goes back.
  update public.cash_accounts ca set available = ca.available + b.reserved, reserved = ca.reserved - b.reserved
    from public.offering_bids b
   where b.offering_id = f.id and b.user_id = ca.user_id and b.allocated = 0;
  update public.offering_bids set reserved = 0 where offering_id = f.id;
  update public.offerings set closed_at = now(), clearing_price = case when total_sold > 0 then c.price end, sold = total_sold
   where id = f.id;

  perform private.notify(b.user_id, 'offering',
         format('%s offering: %s', tok.name, case when b.allocated > 0 then format('%s tokens at %s', to_char(b.allocated, 'FM999,999,999,990'), private.money(c.price))
                                                 else 'no tokens' end),
         case when b.allocated > 0
              then format('The offering of %s closed at %s a token. Your bid for %s at %s received %s tokens; you paid %s plus the fee, and the rest of what your bid held back is available again.',
                          tok.name, private.money(c.price), to_char(b.amount, 'FM999,999,999,990'), private.money(b.price),
                          to_char(b.allocated, 'FM999,999,999,990'),
                          private.money(private.trade_value(c.price, b.allocated)))
              else format('The offering of %s closed%s. Your bid for %s at %s received no tokens, and all it held back is available again.',
                          tok.name, case when total_sold > 0 then ' at ' || private.money(c.price) || ' a token' else '' end,
                          to_char(b.amount, 'FM999,999,999,990'), private.money(b.price))
         end, '/trading/' || f.token_id)
    from public.offering_bids b where b.offering_id = f.id;
  perform private.tell_market(f.token_id, 'offering');
  perform private.tell_accounts(array(select b.user_id from public.offering_bids b where b.offering_id = f.id), 'fills', f.token_id);
  perform private.tell_accounts(array[tok.owner_id], 'cash', f.token_id);
  return true;
end $$;
revoke execute on function private.close_next_offering() from public;


-- What a screen reads of an offering: its terms, its window, its result once closed, and while it
-- is open the indicative clearing price, the volume it would fill and the total demand, never who
-- bid (a plain view: it reads the sealed bids as its owner, and names no account).
create view public.offering_book as
  select f.id, f.token_id, f.supply, f.reserve_price, f.account_cap, f.fee_bps, f.opens_at, f.closes_at, f.closed_at,
         f.clearing_price, f.sold, c.price as indicative_price, c.volume as indicative_volume, c.demand
    from public.offerings f
    left join lateral (select * from private.offering_clearing(f.id) where f.closed_at is null) c on true;
revoke all on public.offering_book from anon;
grant select on public.offering_book to authenticated;
