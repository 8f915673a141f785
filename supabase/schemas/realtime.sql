-- Realtime: which changes reach open screens at once, and what they carry.
--
-- The market is watched far more than it is traded, so its changes go out as Broadcast from the
-- database, Supabase's way for data many may see: each change of a book, the tape or a token's
-- state is one message on the private topic 'market' (private.tell_market), carrying the figures
-- that changed, so an open screen patches itself rather than reading again. Each account has its
-- own private topic, 'account:<id>' (private.tell_accounts): it tells the owner's screens that
-- their orders, cash or alerts changed, and names no figure (the screens read their own rows, as
-- row-level security lets them). realtime.send queues a message; Supabase Realtime (or the local
-- server's, realtime/messages.ts) relays it to the topic's members, whom the policies below
-- authorized once, when they joined. Nothing here NOTIFYs: a notifying commit takes one global
-- lock, which would serialize all trading.
--
-- Tables that change now and then (settings, payments, applications) announce each change by
-- NOTIFY instead: the local server relays it as postgres_changes, row-level security deciding who
-- receives it, and on a hosted project they join Supabase Realtime's publication.

create policy "signed-in users hear the market" on realtime.messages
  for select to authenticated using ((select realtime.topic()) = 'market');
create policy "people hear their own account" on realtime.messages
  for select to authenticated using ((select realtime.topic()) = 'account:' || (select auth.uid())::text);
-- Who has a token's trading page open ("N watching"): presence on the private topic
-- 'watchers:<token id>', for signed-in people only, each tracking under their own user id (the
-- server refuses a key shaped like someone else's id), so the page counts accounts, not sockets.
create policy "signed-in people see who watches a token" on realtime.messages
  for select to authenticated using ((select realtime.topic()) like 'watchers:%');
create policy "signed-in people are seen watching a token" on realtime.messages
  for insert to authenticated with check ((select realtime.topic()) like 'watchers:%' and extension = 'presence');
-- A token's discussion (discussion.sql): its public posts to anyone signed in; its holders' room's
-- ids to those in the room when they join.
create policy "signed-in people hear a token's discussion" on realtime.messages
  for select to authenticated using ((select realtime.topic()) like 'discussion:%');
create policy "holders hear their room" on realtime.messages
  for select to authenticated using ((select realtime.topic()) like 'holders:%' and
    (select private.in_holders_room(substr(realtime.topic(), 9)::uuid, (select auth.uid()))));

-- The book's levels at these prices now: each {side, price} with the tokens resting there (0 for a
-- level emptied), read on the book's index. Absolute amounts, not changes: a screen that missed a
-- message is right again at the next one for that level, and one book's messages leave in the
-- order its changes committed (the book's lock orders them). PL/pgSQL, as every function an order
-- calls: it keeps its plan for the connection, where a SQL function with SET is planned at each call.
create function private.book_levels(p_token uuid, p_levels jsonb) returns jsonb
language plpgsql stable security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
begin
  return (
    select coalesce(jsonb_agg(jsonb_build_object('side', l.side, 'price', l.price, 'amount',
             (select coalesce(sum(o.amount - o.filled), 0) from public.orders o
               where o.token_id = p_token and o.side = l.side and o.status = 'open'
                 and (case when o.side = 'buy' then -o.price else o.price end)
                   = (case when l.side = 'buy' then -l.price else l.price end))) order by l.side, l.price), '[]')
    from (select distinct x.side, x.price from jsonb_to_recordset(p_levels) as x (side text, price numeric)
          where x.price is not null) l);
end $$;
revoke execute on function private.book_levels(uuid, jsonb) from public;

-- The levels of these orders (and of their take-profit and stop partners), for a message after
-- they left the book. The two orders of a pair name each other (place_oco), so the partners are
-- found by key: asking for the orders naming these would read every order, as no index holds it.
create function private.order_levels(p_orders bigint[]) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
begin
  return (select coalesce(jsonb_agg(jsonb_build_object('side', o.side, 'price', o.price)), '[]')
          from public.orders o
          where o.price is not null
            and o.id = any (p_orders || array(select p.oco_with from public.orders p
                                              where p.id = any (p_orders) and p.oco_with is not null)));
end $$;
revoke execute on function private.order_levels(bigint[]) from public;

-- One message on 'market' about one token: what happened (kind: 'trade', 'book', 'halt',
-- 'offering', 'auction' when a volatility auction starts or ends, 'listed', or 'stats' when
-- trades left its 24 hours), its figures now (price, 24h
-- change and volume, market cap, holders, halted) and how its market cap and volume moved since
-- p_before ({market_cap, volume_24h} before the change: the market's totals follow without a read), the
-- best bid and ask, the book's levels the change touched (p_levels, and those its trades took
-- from), and the trades made at p_trades_at (the settlement's time), newest first, as the tape
-- shows them.
create function private.tell_market(
  p_token uuid, p_kind text, p_levels jsonb default '[]', p_trades_at timestamptz default null,
  p_before jsonb default null
) returns void
language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  s private.token_stats;
  trades jsonb := '[]';
  levels jsonb := coalesce(p_levels, '[]');
  changed jsonb;
begin
  select * into s from private.token_stats where token_id = p_token;
  if p_trades_at is not null then
    select coalesce(jsonb_agg(jsonb_build_object('id', t.id, 'price', t.price, 'amount', t.amount, 'value', t.value,
                                                 'type', t.taker_side, 'created_at', t.created_at)
                              order by t.id desc), '[]'),
           levels || coalesce(jsonb_agg(jsonb_build_object('side', case when t.taker_side = 'buy' then 'sell' else 'buy' end,
                                                           'price', t.price)), '[]')
      into trades, levels
      from public.trades t where t.token_id = p_token and t.created_at = p_trades_at;
  end if;
  changed := private.book_levels(p_token, levels);
  perform realtime.send(jsonb_build_object(
    'token_id', p_token, 'kind', p_kind,
    'price', s.price, 'change_24h', s.change_24h, 'volume_24h', s.volume_24h, 'market_cap', s.market_cap,
    'market_cap_change', coalesce(s.market_cap - (p_before->>'market_cap')::numeric, 0),
    'volume_change', coalesce(s.volume_24h - (p_before->>'volume_24h')::numeric, 0), 'holders', s.holders, 'halted', s.halted,
    'best_bid', (select o.price from public.orders o where o.token_id = p_token and o.side = 'buy' and o.status = 'open'
                  order by o.token_id, o.side, (case when o.side = 'buy' then -o.price else o.price end), o.created_at, o.id limit 1),
    'best_ask', (select o.price from public.orders o where o.token_id = p_token and o.side = 'sell' and o.status = 'open'
                  order by o.token_id, o.side, (case when o.side = 'buy' then -o.price else o.price end), o.created_at, o.id limit 1),
    'levels', changed,
    'trades', trades,
    -- In a volatility auction's call, what the book would uncross at now (auctions.sql): open
    -- screens follow it from the message instead of each reading it again. One probe of the open
    -- auctions' partial index otherwise.
    'auction', (select jsonb_build_object('indicative_price', u.price, 'indicative_volume', u.volume,
                                          'demand', u.demand, 'supply', u.supply)
                  from public.volatility_auctions a
                  left join lateral private.auction_uncross(a.token_id, a.reference_price) u on true
                 where a.token_id = p_token and a.uncrossed_at is null)), 'token', 'market', true);
  perform private.tell_feed(p_token, changed, trades);
end $$;
revoke execute on function private.tell_market(uuid, text, jsonb, timestamptz, jsonb) from public;

-- The market-data feed for bots (docs/api.md): each change of a book goes out on 'book:<token>'
-- as {seq, bids, asks} with only the levels it changed (amount 0: the level is gone), and each
-- settlement's trades on 'trades:<token>', each trade with its own sequence. The book's seq rises
-- by exactly one per message, under the book's lock, so the messages leave in seq order and a
-- client that sees a gap reads book_snapshot again; applying the deltas after a snapshot's seq
-- gives exactly the next snapshot.
create table private.book_feed (
  token_id uuid primary key references public.tokens (id) on delete cascade,
  book_seq bigint not null default 0,
  trade_seq bigint not null default 0
);

create function private.tell_feed(p_token uuid, p_levels jsonb, p_trades jsonb) returns void
language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  book_change integer := case when jsonb_array_length(p_levels) > 0 then 1 else 0 end;
  traded integer := jsonb_array_length(p_trades);
  seqs record;
begin
  if book_change = 0 and traded = 0 then return; end if;
  insert into private.book_feed as f (token_id, book_seq, trade_seq) values (p_token, book_change, traded)
  on conflict (token_id) do update set book_seq = f.book_seq + book_change, trade_seq = f.trade_seq + traded
  returning f.book_seq, f.trade_seq into seqs;
  if book_change = 1 then
    perform realtime.send(jsonb_build_object('seq', seqs.book_seq,
      'bids', coalesce((select jsonb_agg(jsonb_build_object('price', l -> 'price', 'amount', (l ->> 'amount')::bigint) order by (l ->> 'price')::numeric desc)
                        from jsonb_array_elements(p_levels) l where l ->> 'side' = 'buy'), '[]'),
      'asks', coalesce((select jsonb_agg(jsonb_build_object('price', l -> 'price', 'amount', (l ->> 'amount')::bigint) order by (l ->> 'price')::numeric)
                        from jsonb_array_elements(p_levels) l where l ->> 'side' = 'sell'), '[]')),
      'book', 'book:' || p_token::text, true);
  end if;
  if traded > 0 then
    -- The tape's trades come newest first: the feed numbers them oldest first.
    perform realtime.send(jsonb_build_object('seq', seqs.trade_seq,
      'trades', (select jsonb_agg(t.value || jsonb_build_object('seq', seqs.trade_seq - traded + t.n) order by t.n)
                 from (select value, row_number() over (order by (value ->> 'id')::bigint) as n from jsonb_array_elements(p_trades)) t)),
      'trades', 'trades:' || p_token::text, true);
  end if;
end $$;
revoke execute on function private.tell_feed(uuid, jsonb, jsonb) from public;

-- A book as the feed numbers it: every level, bids best first and asks best first, with the
-- sequence numbers of the book's and the tape's last messages. One statement, so the levels and
-- the numbers are of one moment.
create function public.book_snapshot(p_token uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
begin
  if auth.uid() is null then raise exception 'Sign in to read the feed.' using errcode = '42501'; end if;
  if not exists (select from public.tokens k where k.id = p_token) then perform private.refuse('There is no such token.'); end if;
  return (
    select jsonb_build_object('token_id', p_token,
      'seq', coalesce((select f.book_seq from private.book_feed f where f.token_id = p_token), 0),
      'trade_seq', coalesce((select f.trade_seq from private.book_feed f where f.token_id = p_token), 0),
      'bids', coalesce((select jsonb_agg(jsonb_build_object('price', l.price, 'amount', l.amount) order by l.price desc)
                        from (select o.price, sum(o.amount - o.filled)::bigint as amount from public.orders o
                              where o.token_id = p_token and o.side = 'buy' and o.status = 'open' group by o.price) l), '[]'),
      'asks', coalesce((select jsonb_agg(jsonb_build_object('price', l.price, 'amount', l.amount) order by l.price)
                        from (select o.price, sum(o.amount - o.filled)::bigint as amount from public.orders o
                              where o.token_id = p_token and o.side = 'sell' and o.status = 'open' group by o.price) l), '[]')));
end $$;
revoke execute on function public.book_snapshot(uuid) from public, anon;

create policy "signed-in users and their keys hear the feed" on realtime.messages
  for select to authenticated using ((select realtime.topic()) like 'book:%' or (select realtime.topic()) like 'trades:%');

-- One message to each of these accounts' topics: what of theirs changed ('orders': an order
-- rested, was cancelled, expired or waits; 'fills': an order of theirs traded; 'cash': money came
-- without an order, a fee share or an offering's proceeds; 'alert': a price alert fired), and on
-- which token.
create function private.tell_accounts(p_accounts uuid[], p_what text, p_token uuid default null) returns void
language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
begin
  perform realtime.send(jsonb_build_object('what', p_what, 'token_id', p_token), 'account', 'account:' || x.a::text, true)
     from (select distinct a from unnest(p_accounts) a where a is not null) x;
end $$;
revoke execute on function private.tell_accounts(uuid[], text, uuid) from public;

create function private.notify_realtime() returns trigger
language plpgsql as $$
begin
  perform pg_notify('repx_realtime', json_build_object(
    'schema', tg_table_schema, 'table', tg_table_name, 'type', tg_op,
    'commit_timestamp', to_char(now() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'record', to_jsonb(new))::text);
  return null;
end $$;
revoke execute on function private.notify_realtime() from public;

-- Adds a table to Supabase Realtime's publication where there is one (a hosted project); the
-- local server relays the changes itself.
create function private.publish_realtime(p_table regclass) returns void
language plpgsql as $$
begin
  if exists (select 1 from pg_publication where pubname = 'supabase_realtime') then
    execute format('alter publication supabase_realtime add table %s', p_table);
  end if;
end $$;
revoke execute on function private.publish_realtime(regclass) from public;

-- A change of settings reaches open screens at once (the order panel's fee).
create trigger exchange_settings_notify after update on public.exchange_settings
  for each row execute function private.notify_realtime();

-- The owner of a deposit or withdrawal sees its status change live.
create trigger wallet_transactions_notify after insert or update on public.wallet_transactions
  for each row execute function private.notify_realtime();
select private.publish_realtime('public.wallet_transactions');

-- An applicant sees the decision on their token application live.
create trigger token_applications_notify after insert or update on public.token_applications
  for each row execute function private.notify_realtime();
select private.publish_realtime('public.token_applications');

-- The owner of an Auto-Invest plan sees each run as the scheduler records it, on any screen: once,
-- with its outcome (a run's row is first written as running, inside its transaction).
create trigger invest_runs_notify after insert or update on public.invest_runs
  for each row when (new.status <> 'running') execute function private.notify_realtime();
select private.publish_realtime('public.invest_runs');

-- A person sees their social account's proof and each read arrive live (social.sql).
create trigger social_accounts_notify after insert or update of status, read_at on public.social_accounts
  for each row execute function private.notify_realtime();
select private.publish_realtime('public.social_accounts');
