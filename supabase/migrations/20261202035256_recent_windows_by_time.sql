-- recent_windows_by_time: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.scan_fraud(p_window interval DEFAULT '24:00:00'::interval)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
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
  layer_min_levels constant int := 3;       -- distinct prices resting on the other side
  layer_before constant interval := interval '10 minutes';
  layer_after constant interval := interval '60 seconds';
  linked_min_trades constant int := 3;      -- trades between two linked accounts
  linked_seen constant interval := interval '30 days';
  pump_window constant interval := interval '1 hour'; -- the burst before the person's sale
  pump_buyers constant int := 3;
  pump_rise constant numeric := 1.2;        -- the burst's peak over the price before it
  dump_rise constant numeric := 1.15;       -- the person's sale over the price before the burst
  young_min_value constant numeric := 5000;
  mark_last constant interval := interval '60 seconds'; -- the final stretch of an hour before its close
  mark_move constant numeric := 0.02;       -- the closing trade's move from the trade before
  mark_min_closes constant int := 2;
  ahead_window constant interval := interval '2 hours'; -- a buy this long before the person's news
  ahead_min_value constant numeric := 100;
  since timestamptz := now() - p_window;
  seen integer := 0;
  r record;
begin
  -- Wash trading: two accounts trading one token back and forth, ending about where they began.
  for r in select * from private.fraud_wash(since) loop
    perform private.raise_alert('wash_trading', case when r.one_way + r.other_way >= 10 then 'high' else 'medium' end, array[r.a, r.b], r.token_id,
      format('Two accounts traded this token back and forth %s times (%s).', r.one_way + r.other_way, private.money(r.volume)),
      jsonb_build_object('trades', to_jsonb(r.trades), 'each_way', jsonb_build_array(r.one_way, r.other_way),
                         'net_tokens', r.net, 'gross_tokens', r.gross));
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
    where o.created_at > since and o.status = 'cancelled' and o.filled = 0 and o.type = 'limit' and o.time_in_force in ('gtc', 'gtd')
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
    from public.orders o where o.created_at > since and o.time_in_force in ('gtc', 'gtd') -- an ioc or fok order cancels by design
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

  -- Layering: several price levels placed on one side, a trade on the other side while they rest,
  -- then the levels cancelled unfilled within a minute. The levels were there to move the price
  -- the trade got, not to trade (the spoofing rule above wants large single orders, gone within
  -- seconds; layering spreads smaller ones over levels, and waits for the trade).
  for r in
    with traded as (
      select t.id, t.token_id, t.created_at, u.user_id, u.side
      from public.trades t
      cross join lateral (values (t.seller_id, 'sell'), (t.buyer_id, 'buy')) as u (user_id, side)
      where t.created_at > since
    ),
    layered as (
      select tr.user_id, tr.token_id, tr.id as trade_id, o.id as order_id, o.price
      from traded tr
      join public.orders o on o.user_id = tr.user_id and o.token_id = tr.token_id and o.side <> tr.side
       and o.status = 'cancelled' and o.filled = 0 and o.type = 'limit'
       and o.created_at between tr.created_at - layer_before and tr.created_at
       and o.closed_at between tr.created_at and tr.created_at + layer_after
    )
    select l.user_id, l.token_id, array_agg(distinct l.trade_id) as trades, array_agg(distinct l.order_id) as layers
    from layered l
    group by l.user_id, l.token_id
    having count(distinct l.price) >= layer_min_levels
  loop
    perform private.raise_alert('layering', 'high', array[r.user_id], r.token_id,
      format('%s orders at several prices rested on one side while this account traded on the other, then were cancelled unfilled.',
             cardinality(r.layers)),
      jsonb_build_object('orders', to_jsonb(r.layers), 'trades', to_jsonb(r.trades)));
    seen := seen + 1;
  end loop;

  -- Linked accounts trading with each other: two accounts that signed in from the same address
  -- (the local machine's own aside) or saved the same bank account, and traded a token with each
  -- other at least linked_min_trades times. One person behind two accounts moves value or paints
  -- volume between them, in either direction; the wash rule above wants the back-and-forth.
  for r in
    select l.a, l.b, t.token_id, array_agg(distinct l.why) as why, count(distinct t.id) as n,
           array_agg(distinct t.id) as trades
    from private.linked_accounts(linked_seen) l
    join public.trades t on t.created_at > since
     and ((t.buyer_id = l.a and t.seller_id = l.b) or (t.buyer_id = l.b and t.seller_id = l.a))
    group by l.a, l.b, t.token_id
    having count(distinct t.id) >= linked_min_trades
  loop
    perform private.raise_alert('linked_accounts', 'medium', array[r.a, r.b], r.token_id,
      format('Two accounts that share %s traded this token with each other %s times.', array_to_string(r.why, ' and '), r.n),
      jsonb_build_object('trades', to_jsonb(r.trades), 'shared', to_jsonb(r.why)));
    seen := seen + 1;
  end loop;

  -- Pump and dump: several accounts' buying lifts a token's price within an hour, and its own
  -- person sells into the rise. The price before is the last trade before that hour (the issue
  -- price when there was none). The alert names the person; its evidence is the burst's trades
  -- and their sales.
  for r in
    with sales as (
      select t.id, t.token_id, t.created_at, t.price, k.owner_id, k.issue_price
      from public.trades t join public.tokens k on k.id = t.token_id
      where t.created_at > since and k.owner_id is not null and t.seller_id = k.owner_id
    ),
    framed as (
      select s.id, s.token_id, s.owner_id, s.price,
             coalesce((select p.price from public.trades p
                        where p.token_id = s.token_id and p.created_at < s.created_at - pump_window
                        order by p.created_at desc, p.id desc limit 1), s.issue_price) as before,
             b.trades, b.buyers, b.peak
      from sales s
      cross join lateral (
        select array_agg(b.id order by b.id) as trades, count(distinct b.buyer_id) as buyers, max(b.price) as peak
        from public.trades b
        where b.token_id = s.token_id and b.created_at between s.created_at - pump_window and s.created_at
          and b.buyer_id <> s.owner_id and b.id < s.id) b
    )
    select f.owner_id, f.token_id, array_agg(f.id order by f.id) as sales, (array_agg(f.trades order by f.id))[1] as burst
    from framed f
    where f.buyers >= pump_buyers and f.peak >= pump_rise * f.before and f.price >= dump_rise * f.before
    group by f.owner_id, f.token_id
  loop
    perform private.raise_alert('pump_and_dump', 'high', array[r.owner_id], r.token_id,
      format('Several accounts'' buying lifted the price within an hour, and the token''s own person sold into the rise (%s sale%s).',
             cardinality(r.sales), case when cardinality(r.sales) = 1 then '' else 's' end),
      jsonb_build_object('trades', to_jsonb(r.burst), 'sales', to_jsonb(r.sales)));
    seen := seen + 1;
  end loop;

  -- Marking the close: the last trade before an hour's close (a candle's; at midnight, the day's
  -- that the index's levels read) made in the hour's final minute by an account whose order moved
  -- the price 2% or more from the trade before, at two or more closes of one token. A close is
  -- marked to move what is read at it, not to trade.
  for r in
    with closing as (
      select distinct on (t.token_id, date_trunc('hour', t.created_at))
             t.id, t.token_id, t.created_at, t.price,
             case when t.taker_side = 'buy' then t.buyer_id else t.seller_id end as taker
      from public.trades t
      where t.created_at > since and t.created_at < date_trunc('hour', now())
      order by t.token_id, date_trunc('hour', t.created_at), t.created_at desc, t.id desc
    )
    select c.taker, c.token_id, array_agg(c.id order by c.id) as trades, count(*) as closes
    from closing c
    cross join lateral (select b.price from public.trades b
                         where b.token_id = c.token_id and (b.created_at, b.id) < (c.created_at, c.id)
                         order by b.token_id, b.created_at desc, b.id desc limit 1) p
    where c.created_at >= date_trunc('hour', c.created_at) + interval '1 hour' - mark_last
      and abs(c.price - p.price) >= mark_move * p.price
    group by c.taker, c.token_id
    having count(*) >= mark_min_closes
  loop
    perform private.raise_alert('marking_close', 'medium', array[r.taker], r.token_id,
      format('This account made the last trade before %s hourly closes, in their final minute, each moving the price 2%% or more.', r.closes),
      jsonb_build_object('trades', to_jsonb(r.trades)));
    seen := seen + 1;
  end loop;

  -- Trading ahead of one's own news: an account linked to a token's person (a shared sign-in
  -- address or bank account) bought the token in the two hours before the person posted: about
  -- their token on RepX, or on a connected account, as RepX read it (social.sql). The person
  -- trades through someone else on what only they know is coming.
  for r in
    with news as (
      select k.id as token_id, k.owner_id, p.created_at as at, 'post ' || p.id as what
        from public.posts p join public.tokens k on k.id = p.token_id and k.owner_id = p.author_id
       where p.created_at > since and p.reply_to is null
      union all
      select k.id, k.owner_id, e.posted_at, s.platform || ' post of ' || to_char(e.posted_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI')
        from public.social_evidence e join public.social_accounts s on s.id = e.account_id
        join public.tokens k on k.owner_id = s.user_id
       where e.posted_at > since
    )
    select n.owner_id, x.other, n.token_id, array_agg(distinct t.id) as trades, array_agg(distinct n.what) as news,
           sum(distinct t.value) as value
    from news n
    join private.linked_accounts(linked_seen) l on n.owner_id in (l.a, l.b)
    cross join lateral (select case when l.a = n.owner_id then l.b else l.a end as other) x
    -- Each news item's two hours of the token's trades, on its time index: a lateral, so that no
    -- guess of the links' number has the planner read every trade of the history instead (offset
    -- 0 keeps it one: PostgreSQL would flatten a plain subquery into a join).
    join lateral (select t.id, t.value from public.trades t
                   where t.token_id = n.token_id and t.buyer_id = x.other
                     and t.created_at between n.at - ahead_window and n.at offset 0) t on true
    group by n.owner_id, x.other, n.token_id
    having sum(distinct t.value) >= ahead_min_value
  loop
    perform private.raise_alert('trading_ahead', 'high', array[r.owner_id, r.other], r.token_id,
      format('An account linked to the token''s person bought %s of it in the two hours before the person''s news (%s).',
             private.money(r.value), array_to_string(r.news, ', ')),
      jsonb_build_object('trades', to_jsonb(r.trades), 'news', to_jsonb(r.news)));
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
end $function$;

CREATE INDEX orders_time_brin_idx ON public.orders USING brin (created_at);

CREATE INDEX trades_time_brin_idx ON public.trades USING brin (created_at);
