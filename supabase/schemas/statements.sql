-- Statements: an account's cash, trades, positions and realized gains over a period of UTC dates,
-- with the totals that reconcile them, as one document the wallet turns into CSV and PDF.
--
-- Cash is the wallet's (private.wallet_moves, money.sql): a deposit once completed, a withdrawal
-- from its request unless it failed or was cancelled, trades and their fees as they settled. So
-- the opening cash plus the period's movements is the closing cash, and the statement's totals
-- are the history's own sums. The trades list holds the account's trades and the sales of its
-- person's offering (whose proceeds it received), so its values and fees add up to the same. Positions at the close are the tokens held then (today's holdings
-- less the trades since, a token issued after the close left out) at their last price by then.

create function public.my_statement(p_from date, p_to date) returns jsonb
language plpgsql stable security definer set search_path = '' set jit = off as $$
declare
  me uuid := private.active_caller();
  opens timestamptz := p_from::timestamp at time zone 'UTC';
  closes timestamptz := (p_to + 1)::timestamp at time zone 'UTC';
  summary jsonb;
  lots jsonb;
  positions jsonb;
begin
  perform private.require_second_step();
  if p_from is null or p_to is null then perform private.refuse('A statement needs a first and a last day.'); end if;
  if p_from > p_to then perform private.refuse('The statement starts after it ends.'); end if;
  if p_to > (now() at time zone 'UTC')::date then perform private.refuse('A statement cannot end after today.'); end if;
  if p_to - p_from > 366 * 5 then perform private.refuse('A statement covers at most five years.'); end if;

  -- The period's movements, each read by time on its part's index, and the opening cash. The cash
  -- now is the sum of every movement's effect (money.sql), so the opening is the cash now less the
  -- movements since, or the movements before: whichever spans less of the account's life, so a
  -- recent month's statement does not sum years of history. Only the branch taken is read.
  with within as (
    select m.* from private.wallet_moves m where m.created_at >= opens and m.created_at < closes
  ),
  opening as (
    select case
      when opens > now() - (now() - (select p.created_at from public.profiles p where p.id = me)) / 2 then
        coalesce((select c.available + c.reserved from public.cash_accounts c where c.user_id = me), 0)
        - (select coalesce(sum(m.effect), 0) from private.wallet_moves m where m.created_at >= opens)
      else (select coalesce(sum(m.effect), 0) from private.wallet_moves m where m.created_at < opens)
    end as cash
  )
  select jsonb_build_object(
    'opening_cash', (select cash from opening),
    'closing_cash', (select cash from opening) + (select coalesce(sum(m.effect), 0) from within m),
    'deposits', (select coalesce(sum(m.effect), 0) from within m where m.type = 'Deposit'),
    'withdrawals', (select coalesce(-sum(m.effect), 0) from within m where m.type = 'Withdrawal'),
    'bought', (select coalesce(-sum(m.effect), 0) from within m where m.type = 'Buy'),
    'sold', (select coalesce(sum(m.effect), 0) from within m where m.type = 'Sell'),
    'fees', (select coalesce(-sum(m.effect), 0) from within m where m.type = 'Trade Fee'),
    'fee_share', (select coalesce(sum(m.effect), 0) from within m where m.type = 'Fee Share'),
    'movements', coalesce((select jsonb_agg(jsonb_build_object(
        'at', m.created_at, 'type', m.type, 'description', m.description, 'status', m.status,
        'amount', m.amount, 'effect', m.effect)
        -- The wallet history's order (money.sql).
        order by m.created_at, m.type in ('Trade Fee', 'Fee Share'), m.seq, m.id) from within m), '[]')
  ) into summary;

  select coalesce(jsonb_agg(jsonb_build_object(
           'token', l.name, 'bought_at', l.bought_at, 'sold_at', l.sold_at, 'tokens', l.tokens, 'cost', l.cost,
           'proceeds', l.proceeds, 'fees', l.fees, 'gain', l.gain) order by l.sold_at, l.bought_at), '[]')
    into lots
    from public.my_realized_lots(opens, closes - interval '1 microsecond') l;

  select coalesce(jsonb_agg(p order by p.value desc, p.token), '[]') into positions from (
        select k.name as token, h.tokens, private.price_at(h.token_id, closes) as price,
               round(h.tokens * private.price_at(h.token_id, closes), 2) as value
        from (select x.token_id, x.amount - coalesce((
                      select sum(case when tr.buyer_id = me then tr.amount else -tr.amount end) from public.trades tr
                       where tr.token_id = x.token_id and (tr.buyer_id = me or tr.seller_id = me) and tr.created_at >= closes), 0) as tokens
                from public.holdings x where x.user_id = me) h
        join public.tokens k on k.id = h.token_id
        where h.tokens > 0 and k.created_at < closes) p;

  return summary || jsonb_build_object(
    'from', p_from,
    'to', p_to,
    'holder', (select jsonb_build_object('name', p.full_name, 'username', p.username) from public.profiles p where p.id = me),
    -- The account's trades, and the sales of its person's offering whose proceeds it received.
    'trades', coalesce((select jsonb_agg(jsonb_build_object(
        'at', t.created_at, 'side', t.side, 'token', t.name, 'tokens', t.amount, 'price', t.price,
        'value', t.value, 'fee', t.fee, 'total', case t.side when 'buy' then t.value + t.fee else t.value - t.fee end,
        'liquidity', t.liquidity)
        order by t.created_at, t.id)
      from (select m.id, m.created_at, m.type as side, m.name, m.amount, m.price, m.value, m.fee, m.liquidity
              from public.my_trades m
            union all
            select tr.id, tr.created_at, 'offering sale', k.name, tr.amount, tr.price, tr.value, tr.seller_fee, null
              from public.trades tr join public.tokens k on k.id = tr.token_id
             where tr.proceeds_to = me) t
      where t.created_at >= opens and t.created_at < closes), '[]'),
    'positions', positions,
    'lots', lots,
    'realized', (select coalesce(sum((l ->> 'gain')::numeric), 0) from jsonb_array_elements(lots) l),
    'positions_value', (select coalesce(sum((x ->> 'value')::numeric), 0) from jsonb_array_elements(positions) x)
  );
end $$;
revoke execute on function public.my_statement(date, date) from public, anon;
