-- A screen's first read in one request, where it would otherwise take many: each request costs a
-- round trip, a token check and a transaction of its own, and a browser sends at most six at once
-- to one address. Each part is the same read the screen makes on its own afterwards, when a
-- message says that part changed (mf-trading/src/trading/data.ts), through the same views and
-- functions, as the caller: row-level security decides here as there.

-- The trading screen of one token: the token with its market figures, the last 24 hours' line,
-- the book, the latest five trades, the caller's cash and tokens to trade with, their open orders
-- here, the founder's vesting, and the token's latest offering with the caller's bid in it.
create function public.trading_screen(p_token uuid) returns jsonb
language sql stable set search_path = '' as $$
  select jsonb_build_object(
    'token', (select to_jsonb(m) from public.market_tokens m where m.id = p_token),
    'history', (select coalesce(jsonb_agg(h order by h.bucket), '[]') from public.price_history(p_token, 24) h),
    'book', (select coalesce(jsonb_agg(jsonb_build_object('side', b.side, 'price', b.price, 'amount', b.amount)), '[]')
               from public.order_book b where b.token_id = p_token),
    'tape', (select coalesce(jsonb_agg(t order by t.created_at desc, t.id desc), '[]')
               from (select r.id, r.price, r.amount, r.type, r.created_at from public.recent_trades r
                      where r.token_id = p_token order by r.created_at desc, r.id desc limit 5) t),
    'cash', coalesce((select c.available from public.cash_accounts c where c.user_id = (select auth.uid())), 0),
    'held', coalesce((select h.available from public.holdings h
                       where h.user_id = (select auth.uid()) and h.token_id = p_token), 0),
    'orders', (select coalesce(jsonb_agg(o order by o.created_at desc, o.id desc), '[]')
                 from public.list_open_orders(p_token) o),
    'vesting', (select jsonb_build_object('total', v.total, 'vested', v.vested, 'cliff_at', v.cliff_at, 'ends_at', v.ends_at)
                  from public.token_vesting v where v.token_id = p_token),
    'offering', (select to_jsonb(f) || jsonb_build_object('bid', (
                          select jsonb_build_object('price', b.price, 'amount', b.amount, 'reserved', b.reserved,
                                                    'placed_at', b.placed_at, 'allocated', b.allocated)
                            from public.offering_bids b where b.offering_id = f.id and b.user_id = (select auth.uid())))
                   from public.offering_book f where f.token_id = p_token order by f.opens_at desc limit 1),
    'auction', (select to_jsonb(a) from public.volatility_auction_book a where a.token_id = p_token and a.uncrossed_at is null)
  )
$$;
revoke execute on function public.trading_screen(uuid) from public, anon;

-- The market screen's figures around its list: the four figures above it, the categories that
-- have tokens, the offerings open now, and the RepX index (its hourly levels over the last
-- `p_index_days` days, its latest basket, its rules). The list's page is read on its own: its
-- search, filters and sort are PostgREST's (mf-market/src/market/query.ts).
create function public.market_screen(p_index_days integer default 7) returns jsonb
language sql stable set search_path = '' as $$
  select jsonb_build_object(
    'summary', (select to_jsonb(s) from public.market_summary s),
    'categories', (select coalesce(jsonb_agg(c.category order by c.category), '[]') from public.token_categories c),
    'offerings', (select coalesce(jsonb_agg(jsonb_build_object(
                     'token_id', o.token_id, 'closes_at', o.closes_at, 'indicative_price', o.indicative_price)), '[]')
                    from public.offering_book o where o.closed_at is null),
    'index', jsonb_build_object(
      'levels', (select coalesce(jsonb_agg(jsonb_build_object('at', l.at, 'level', l.level) order by l.at), '[]')
                   from public.index_levels l
                  where l.period = 'hour' and l.at >= now() - make_interval(days => least(greatest(p_index_days, 1), 366))),
      'basket', (select coalesce(jsonb_agg(jsonb_build_object(
                    'token_id', b.token_id, 'name', b.name, 'username', b.username, 'weight', b.weight,
                    'units', b.units, 'price', b.price) order by b.weight desc, b.name), '[]')
                   from public.index_basket b),
      'method', (select to_jsonb(m) from public.index_method() m))
  )
$$;
revoke execute on function public.market_screen(integer) from public, anon;
