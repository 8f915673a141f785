-- Fraud detection: rules in SQL over real orders and trades, run on a schedule (the local server
-- every FRAUD_SCAN_MS; on a hosted project, pg_cron: supabase/cron.sql) and on demand by an
-- admin. Each alert names its rule, severity, accounts and evidence (the orders and trades), and
-- moves open -> reviewing -> dismissed or confirmed; confirming may suspend the accounts. A pattern
-- that goes on updates its open alert instead of raising another; a reviewed pattern is raised
-- again only with evidence its review did not see, so an admin can put a false positive away.

create table public.fraud_alerts (
  id bigint generated always as identity primary key,
  rule text not null check (rule in ('wash_trading', 'ring', 'spoofing', 'cancel_ratio', 'concentration', 'new_account', 'layering', 'linked_accounts', 'pump_and_dump',
                                'marking_close', 'trading_ahead')),
  severity text not null check (severity in ('low', 'medium', 'high')),
  -- The accounts involved, sorted, so one pattern maps to one alert.
  accounts uuid[] not null check (cardinality(accounts) >= 1),
  token_id uuid references public.tokens (id) on delete cascade,
  summary text not null,
  evidence jsonb not null default '{}',
  status text not null default 'open' check (status in ('open', 'reviewing', 'dismissed', 'confirmed')),
  note text,
  reviewed_by uuid references public.profiles (id),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- One active alert per pattern (rule, token, accounts).
create unique index fraud_alerts_active_idx on public.fraud_alerts (rule, coalesce(token_id, '00000000-0000-0000-0000-000000000000'::uuid), accounts)
  where status in ('open', 'reviewing');
create index fraud_alerts_status_idx on public.fraud_alerts (status, created_at desc);
-- A pattern's reviewed alerts, which raise_alert reads before raising it again.
create index fraud_alerts_pattern_idx
  on public.fraud_alerts (rule, coalesce(token_id, '00000000-0000-0000-0000-000000000000'::uuid), accounts);
alter table public.fraud_alerts enable row level security;
create policy "admins read fraud alerts" on public.fraud_alerts for select to authenticated using ((select private.is_admin()));
revoke all on public.fraud_alerts from anon;
revoke insert, update, delete, truncate on public.fraud_alerts from authenticated;

-- Every rule over the last `p_window`; returns how many patterns were seen. Thresholds are named
-- at the top.
create function private.scan_fraud(p_window interval default interval '24 hours')
returns integer language plpgsql security definer set search_path = '' as $$
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
end $$;
revoke execute on function private.scan_fraud(interval) from public;

-- Pairs of accounts one person may be behind: they signed in from the same address within
-- `p_seen` (the local machine's own aside), or saved the same bank account (label and last four).
create function private.linked_accounts(p_seen interval) returns table (a uuid, b uuid, why text)
language sql stable security definer set search_path = '' as $$
  select distinct least(x.user_id, y.user_id), greatest(x.user_id, y.user_id), 'address ' || host(x.ip)
  from auth.sessions x join auth.sessions y on y.ip = x.ip and y.user_id <> x.user_id
  where x.ip is not null and not host(x.ip) in ('127.0.0.1', '::1')
    and x.created_at > now() - p_seen and y.created_at > now() - p_seen
  union
  select distinct least(x.user_id, y.user_id), greatest(x.user_id, y.user_id), 'bank account •••• ' || x.account_last4
  from public.payout_destinations x join public.payout_destinations y
    on y.account_last4 = x.account_last4 and lower(y.label) = lower(x.label) and y.user_id <> x.user_id
$$;
revoke execute on function private.linked_accounts(interval) from public;

-- Wash trading is trading without a change of ownership. Surveillance desks look for the pattern
-- together with its purpose (FINRA Rule 6140): two accounts trade a token back and forth and the
-- pair's net position barely moves. A pair is flagged when it traded at least twice each way and
-- what passed one way and what passed back nearly cancel out: the net, in tokens, at most a quarter
-- of all the tokens they traded. A trader who buys from a market maker and sells some back is a
-- real change of ownership, and is not flagged.
create function private.fraud_wash(p_since timestamptz)
returns table (token_id uuid, a uuid, b uuid, one_way bigint, other_way bigint, trades bigint[], volume numeric,
               net numeric, gross numeric)
language sql stable security definer set search_path = '' as $$
  select t.token_id, least(t.buyer_id, t.seller_id), greatest(t.buyer_id, t.seller_id),
         count(*) filter (where t.buyer_id < t.seller_id), count(*) filter (where t.buyer_id > t.seller_id),
         array_agg(t.id order by t.id), sum(t.value),
         -- tokens that went from the first account (by id) to the second, less those that came back
         abs(sum(case when t.buyer_id > t.seller_id then t.amount else -t.amount end)), sum(t.amount)
  from public.trades t where t.created_at > p_since
  group by 1, 2, 3
  having count(*) filter (where t.buyer_id < t.seller_id) >= 2         -- at least twice each way
     and count(*) filter (where t.buyer_id > t.seller_id) >= 2
     and abs(sum(case when t.buyer_id > t.seller_id then t.amount else -t.amount end)) <= 0.25 * sum(t.amount)
$$;
revoke execute on function private.fraud_wash(timestamp with time zone) from public;

-- A ring is what circular trading leaves: the same number of a token's tokens passing from account
-- to account, three or more, and back to the first, each account selling on what it was sold.
-- Accounts that merely meet each other on busy books are not a ring. A trade's next hop is its
-- buyer's next sale of the same number of that token's tokens (trades on one token are serialized
-- by its row lock, so their ids are their order in time). Every trade has at most one next hop, so
-- the walk is linear in the trades: at most p_max_accounts hops from each. Tokens passed on in
-- other lots (a sale split across several buyers) are not followed. A ring and its reverse are one
-- pattern.
create function private.fraud_rings(p_since timestamptz, p_max_accounts integer)
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
revoke execute on function private.fraud_rings(timestamp with time zone, integer) from public;

-- Raises or updates one pattern's alert. An open pattern's row is written only when its severity,
-- summary or evidence changed.
create function private.raise_alert(p_rule text, p_severity text, p_accounts uuid[], p_token uuid, p_summary text, p_evidence jsonb)
returns void language plpgsql security definer set search_path = '' as $$
declare
  accts uuid[] := array(select distinct a from unnest(p_accounts) a order by a);
  ids jsonb := coalesce(p_evidence -> 'trades', p_evidence -> 'orders', '[]');
begin
  if exists (
    select 1 from public.fraud_alerts f
    where f.rule = p_rule and coalesce(f.token_id, '00000000-0000-0000-0000-000000000000'::uuid) = coalesce(p_token, '00000000-0000-0000-0000-000000000000'::uuid)
      and f.accounts = accts and f.status in ('dismissed', 'confirmed')
      and coalesce(f.evidence -> 'trades', f.evidence -> 'orders', '[]') @> ids
  ) then
    return; -- reviewed, and nothing new since
  end if;
  insert into public.fraud_alerts (rule, severity, accounts, token_id, summary, evidence)
  values (p_rule, p_severity, accts, p_token, p_summary, p_evidence)
  on conflict (rule, coalesce(token_id, '00000000-0000-0000-0000-000000000000'::uuid), accounts) where status in ('open', 'reviewing')
  do update set severity = excluded.severity, summary = excluded.summary, evidence = excluded.evidence, updated_at = now()
  where (fraud_alerts.severity, fraud_alerts.summary, fraud_alerts.evidence)
        is distinct from (excluded.severity, excluded.summary, excluded.evidence);
end $$;
revoke execute on function private.raise_alert(text, text, uuid[], uuid, text, jsonb) from public;

-- The admin's side: the alerts newest first, a scan on demand, and the review.
create function public.admin_list_alerts(p_status text default null)
returns table (id bigint, rule text, severity text, status text, summary text, accounts jsonb, token_id uuid, token_name text,
               evidence jsonb, note text, created_at timestamptz, updated_at timestamptz)
language plpgsql stable security definer set search_path = '' as $$
begin
  perform private.require_admin();
  return query
    select a.id, a.rule, a.severity, a.status, a.summary,
           (select jsonb_agg(jsonb_build_object('id', p.id, 'username', p.username) order by p.username) from public.profiles p where p.id = any (a.accounts)),
           a.token_id, k.name, a.evidence, a.note, a.created_at, a.updated_at
    from public.fraud_alerts a left join public.tokens k on k.id = a.token_id
    where p_status is null or a.status = p_status
    order by case a.status when 'open' then 0 when 'reviewing' then 1 else 2 end, a.updated_at desc
    limit 500;
end $$;
revoke execute on function public.admin_list_alerts(text) from public, anon;

create function public.admin_run_fraud_scan() returns integer
language plpgsql security definer set search_path = '' as $$
begin
  perform private.require_admin();
  return private.scan_fraud();
end $$;
revoke execute on function public.admin_run_fraud_scan() from public, anon;

-- open -> reviewing -> dismissed | confirmed. Confirming may suspend the accounts involved.
create function public.admin_review_alert(p_id bigint, p_status text, p_note text default null, p_suspend boolean default false)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  admin uuid := private.require_admin();
  a public.fraud_alerts;
  acct uuid;
  suspended integer := 0;
begin
  if p_status is null or p_status not in ('reviewing', 'dismissed', 'confirmed') then
    perform private.refuse('An alert moves to reviewing, dismissed or confirmed.');
  end if;
  select * into a from public.fraud_alerts where id = p_id for update;
  if not found then perform private.refuse('There is no such alert.'); end if;
  if a.status in ('dismissed', 'confirmed') then perform private.refuse(format('This alert was already %s.', a.status)); end if;
  if p_status = 'reviewing' and a.status = 'reviewing' then perform private.refuse('This alert is already being reviewed.'); end if;
  if p_suspend and p_status <> 'confirmed' then perform private.refuse('Only a confirmed alert suspends accounts.'); end if;
  update public.fraud_alerts set status = p_status, note = coalesce(nullif(trim(p_note), ''), note), reviewed_by = admin, updated_at = now()
   where id = p_id;
  perform private.audit('alert.' || p_status, case when cardinality(a.accounts) = 1 then a.accounts[1] end, 'alert ' || p_id || ' (' || a.rule || ')',
    jsonb_build_object('status', a.status), jsonb_build_object('status', p_status, 'suspend', p_suspend), nullif(trim(coalesce(p_note, '')), ''));
  if p_suspend then
    foreach acct in array a.accounts loop
      if acct <> admin and exists (select 1 from public.profiles where id = acct and status = 'active' and role = 'user') then
        perform public.admin_set_account_status(acct, 'suspended', format('Confirmed %s alert #%s.', replace(a.rule, '_', ' '), p_id));
        suspended := suspended + 1;
      end if;
    end loop;
  end if;
  return jsonb_build_object('id', p_id, 'status', p_status, 'suspended', suspended);
end $$;
revoke execute on function public.admin_review_alert(bigint, text, text, boolean) from public, anon;
