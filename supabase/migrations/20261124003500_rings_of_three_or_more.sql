-- Rings of three or more accounts, as issue 9 asks, and only where the same tokens come back.
--
-- The ring rule joined the trade graph with itself three times: it found only rings of three
-- accounts, and any three accounts that had traded a token in a cycle, in any order and any
-- amounts, within a day. Over the bench's 32 traders, who all meet each other on every book, that
-- was 18,611 "high" alerts a day: normal trading. Rings of four or more would have multiplied it.
--
-- A ring is now what circular trading leaves: the same number of a token's tokens passing from
-- account to account and back to the first, each account selling on what it was sold. A trade's
-- next hop is its buyer's next sale of the same number of that token's tokens (trades on one token
-- are serialized by its row lock, so their ids are their order in time). Every trade has at most
-- one next hop, so the walk is linear in the trades: at most ring_max_accounts hops from each.
-- Tokens passed on in other lots (a sale split across several buyers) are not followed.

create or replace function private.fraud_rings(p_since timestamptz, p_max_accounts integer)
returns table (token_id uuid, accounts uuid[], trades bigint[])
language sql stable security definer set search_path = ''
-- The walk's row estimates are far too high, and would have it compiled by JIT: 0.3 s, for a 0.1 s query.
set jit = off as $$
  with recursive recent as (
    select t.id, t.token_id, t.seller_id, t.buyer_id, t.amount from public.trades t where t.created_at > p_since
  ), next_hop as materialized (
    -- computed once, not at every step of the walk
    select x.id, x.next_id, n.buyer_id as next_buyer from (
      select e.id, e.bought,
             -- the smallest later sale in the partition: rows run newest first, so the frame is the later rows
             min(e.id) filter (where not e.bought) over (partition by e.token_id, e.account, e.amount order by e.id desc
                                                          rows between unbounded preceding and 1 preceding) as next_id
      from (select id, token_id, buyer_id as account, amount, true as bought from recent
            union all
            select id, token_id, seller_id, amount, false from recent) e
    ) x join recent n on n.id = x.next_id
    where x.bought
  ), chain as (
    select r.token_id, r.seller_id as origin, r.buyer_id as holder, r.id as last_id,
           array[r.seller_id, r.buyer_id] as path, array[r.id] as ids
    from recent r
    union all
    select c.token_id, c.origin, h.next_buyer, h.next_id, c.path || h.next_buyer, c.ids || h.next_id
    from chain c join next_hop h on h.id = c.last_id
    where c.holder <> c.origin and cardinality(c.path) <= p_max_accounts
      and (h.next_buyer = c.origin or h.next_buyer <> all(c.path))
  ), closed as (
    -- back to the first account after three or more (two is wash trading, its own rule)
    select c.token_id, array(select distinct a from unnest(c.path) a order by a) as accounts, c.ids
    from chain c where c.holder = c.origin and cardinality(c.path) > 3
  )
  select k.token_id, k.accounts, array_agg(distinct x.id order by x.id)
  from closed k cross join lateral unnest(k.ids) x(id)
  group by k.token_id, k.accounts
$$;
revoke all on function private.fraud_rings(timestamptz, integer) from public, anon, authenticated;

create or replace function private.scan_fraud(p_window interval default interval '24 hours')
returns integer language plpgsql security definer set search_path = '' as $$
declare
  wash_min_each_way constant int := 2;      -- trades each way between the same two accounts
  ring_max_accounts constant int := 8;      -- the longest ring followed
  spoof_min_value constant numeric := 1000; -- a 'large' order, in dollars
  spoof_max_life constant interval := interval '10 seconds';
  spoof_min_count constant int := 3;
  ratio_min_cancels constant int := 20;
  ratio_factor constant int := 10;          -- cancels per fill
  share_min constant numeric := 0.5;        -- of a token's bought volume
  share_min_volume constant numeric := 1000;
  share_min_trades constant int := 5;
  young constant interval := interval '24 hours';
  young_min_value constant numeric := 5000;
  since timestamptz := now() - p_window;
  seen integer := 0;
  r record;
begin
  -- Wash trading: two accounts trading one token back and forth.
  for r in
    select t.token_id, least(t.buyer_id, t.seller_id) as a, greatest(t.buyer_id, t.seller_id) as b,
           count(*) filter (where t.buyer_id < t.seller_id) as one_way, count(*) filter (where t.buyer_id > t.seller_id) as other_way,
           array_agg(t.id order by t.id) as trades, sum(t.value) as volume
    from public.trades t where t.created_at > since
    group by 1, 2, 3
    having count(*) filter (where t.buyer_id < t.seller_id) >= wash_min_each_way and count(*) filter (where t.buyer_id > t.seller_id) >= wash_min_each_way
  loop
    perform private.raise_alert('wash_trading', case when r.one_way + r.other_way >= 10 then 'high' else 'medium' end, array[r.a, r.b], r.token_id,
      format('Two accounts traded this token back and forth %s times (%s).', r.one_way + r.other_way, private.money(r.volume)),
      jsonb_build_object('trades', to_jsonb(r.trades), 'each_way', jsonb_build_array(r.one_way, r.other_way)));
    seen := seen + 1;
  end loop;

  -- Rings: the same tokens passing around three or more accounts and back; one alert per token and
  -- set of accounts, whichever way and however many times round.
  for r in select * from private.fraud_rings(since, ring_max_accounts) loop
    perform private.raise_alert('ring', 'high', r.accounts, r.token_id,
      format('The same tokens passed around a ring of %s accounts and back (%s trades).', cardinality(r.accounts), cardinality(r.trades)),
      jsonb_build_object('trades', to_jsonb(r.trades)));
    seen := seen + 1;
  end loop;

  -- Spoofing: large orders cancelled within seconds, repeatedly.
  for r in
    select o.user_id, o.token_id, count(*) as n, array_agg(o.id order by o.id) as orders, sum(o.price * o.amount) as value
    from public.orders o
    where o.created_at > since and o.status = 'cancelled' and o.filled = 0 and o.type = 'limit'
      and o.price * o.amount >= spoof_min_value and o.closed_at - o.created_at <= spoof_max_life
    group by o.user_id, o.token_id
    having count(*) >= spoof_min_count
  loop
    perform private.raise_alert('spoofing', case when r.n >= 10 then 'high' else 'medium' end, array[r.user_id], r.token_id,
      format('%s large orders (%s) cancelled within seconds of being placed.', r.n, private.money(r.value)),
      jsonb_build_object('orders', to_jsonb(r.orders)));
    seen := seen + 1;
  end loop;

  -- A high cancel-to-fill ratio.
  for r in
    select o.user_id, count(*) filter (where o.status = 'cancelled' and o.filled = 0) as cancels, count(*) filter (where o.filled > 0) as fills,
           (array_agg(o.id order by o.id desc) filter (where o.status = 'cancelled' and o.filled = 0))[1:50] as orders
    from public.orders o where o.created_at > since
    group by o.user_id
    having count(*) filter (where o.status = 'cancelled' and o.filled = 0) >= ratio_min_cancels
       and count(*) filter (where o.status = 'cancelled' and o.filled = 0) > ratio_factor * count(*) filter (where o.filled > 0)
  loop
    perform private.raise_alert('cancel_ratio', 'low', array[r.user_id], null,
      format('%s orders cancelled for %s filled.', r.cancels, r.fills), jsonb_build_object('orders', to_jsonb(r.orders), 'fills', r.fills));
    seen := seen + 1;
  end loop;

  -- Concentration: one account buying most of a token's volume.
  for r in
    with bought as (
      select t.token_id, t.buyer_id, sum(t.value) as volume, count(*) as n, array_agg(t.id order by t.id) as trades
      from public.trades t where t.created_at > since group by t.token_id, t.buyer_id
    ), total as (select token_id, sum(volume) as volume from bought group by token_id)
    select b.*, b.volume / tt.volume as share from bought b join total tt using (token_id)
    where tt.volume >= share_min_volume and b.n >= share_min_trades and b.volume / tt.volume > share_min
  loop
    perform private.raise_alert('concentration', 'medium', array[r.buyer_id], r.token_id,
      format('One account bought %s%% of this token''s volume (%s).', round(r.share * 100), private.money(r.volume)),
      jsonb_build_object('trades', to_jsonb(r.trades[1:50]), 'share', round(r.share, 4)));
    seen := seen + 1;
  end loop;

  -- A new account trading big.
  for r in
    select p.id, sum(t.value) as value, array_agg(t.id order by t.id) as trades
    from public.profiles p join public.trades t on (t.buyer_id = p.id or t.seller_id = p.id) and t.created_at > since
    where p.created_at > now() - young and p.role = 'user'
      and t.token_id is distinct from (select k.id from public.tokens k where k.owner_id = p.id)
    group by p.id
    having sum(t.value) >= young_min_value
  loop
    perform private.raise_alert('new_account', 'medium', array[r.id], null,
      format('An account under a day old traded %s.', private.money(r.value)), jsonb_build_object('trades', to_jsonb(r.trades[1:50])));
    seen := seen + 1;
  end loop;
  return seen;
end $$;
