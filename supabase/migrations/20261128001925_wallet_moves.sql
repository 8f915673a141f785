-- wallet_moves: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

drop view if exists public.wallet_history;

CREATE OR REPLACE FUNCTION public.my_statement(p_from date, p_to date)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
 SET jit TO 'off'
AS $function$
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

  -- The period's movements and the sum of those before, each read by time on its part's index.
  with within as (
    select m.* from private.wallet_moves m where m.created_at >= opens and m.created_at < closes
  ),
  opening as (
    select coalesce(sum(m.effect), 0) as cash from private.wallet_moves m where m.created_at < opens
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
        'value', t.value, 'fee', t.fee, 'total', case t.side when 'buy' then t.value + t.fee else t.value - t.fee end)
        order by t.created_at, t.id)
      from (select m.id, m.created_at, m.type as side, m.name, m.amount, m.price, m.value, m.fee
              from public.my_trades m
            union all
            select tr.id, tr.created_at, 'offering sale', k.name, tr.amount, tr.price, tr.value, tr.seller_fee
              from public.trades tr join public.tokens k on k.id = tr.token_id
             where tr.proceeds_to = me) t
      where t.created_at >= opens and t.created_at < closes), '[]'),
    'positions', positions,
    'lots', lots,
    'realized', (select coalesce(sum((l ->> 'gain')::numeric), 0) from jsonb_array_elements(lots) l),
    'positions_value', (select coalesce(sum((x ->> 'value')::numeric), 0) from jsonb_array_elements(positions) x)
  );
end $function$;

create view private.wallet_moves with (security_invoker = true) as
select 'wt-' || w.id as id, w.created_at, w.id::numeric as seq,
       case w.type when 'deposit' then 'Deposit' else 'Withdrawal' end as type,
       coalesce(w.method, case w.type when 'deposit' then 'Deposit' else 'Withdrawal' end) as description,
       case w.type when 'deposit' then w.amount else -w.amount end as amount,
       case when w.type = 'deposit' and w.status = 'completed' then w.amount
            when w.type = 'withdrawal' and w.status not in ('failed', 'cancelled') then -w.amount
            else 0 end as effect,
       initcap(w.status) as status, w.message, w.id as wallet_id, null::bigint as trade_id
from public.wallet_transactions w
where w.user_id = auth.uid()
union all
select 'tr-' || m.id, m.created_at, m.id + 0.1,
       case m.type when 'buy' then 'Buy' else 'Sell' end,
       format('%s %s at %s', m.amount, m.name, private.money(m.price)),
       case m.type when 'buy' then -m.value else m.value end,
       case m.type when 'buy' then -m.value else m.value end,
       'Completed', null, null, m.id
from public.my_trades m
union all
select 'fee-' || m.id, m.created_at, m.id + 0.2, 'Trade Fee',
       format('On the %s of %s %s', m.type, m.amount, m.name), -m.fee, -m.fee, 'Completed', null, null, m.id
from public.my_trades m
where m.fee > 0
union all
select 'ipo-' || tr.id, tr.created_at, tr.id + 0.1, 'Sell',
       format('Offering: %s %s at %s', tr.amount, t.name, private.money(tr.price)),
       tr.value, tr.value, 'Completed', null, null, tr.id
from public.trades tr join public.tokens t on t.id = tr.token_id
where tr.proceeds_to = auth.uid()
union all
select 'ipofee-' || tr.id, tr.created_at, tr.id + 0.2, 'Trade Fee',
       format('On the offering sale of %s %s', tr.amount, t.name), -tr.seller_fee, -tr.seller_fee, 'Completed', null, null, tr.id
from public.trades tr join public.tokens t on t.id = tr.token_id
where tr.proceeds_to = auth.uid() and tr.seller_fee > 0
union all
select 'share-' || tr.id, tr.created_at, tr.id + 0.3, 'Fee Share',
       format('Your share of the fees on %s %s at %s', tr.amount, t.name, private.money(tr.price)),
       tr.creator_share, tr.creator_share, 'Completed', null, null, tr.id
from public.trades tr join public.tokens t on t.id = tr.token_id
where tr.creator_id = auth.uid() and tr.creator_share > 0;

create view public.wallet_history with (security_invoker = true) as
select id, type, description, amount, effect, status, message, wallet_id, trade_id, created_at,
       sum(effect) over running as balance,
       row_number() over running as position
from private.wallet_moves
window running as (order by created_at, type in ('Trade Fee', 'Fee Share'), seq, id rows unbounded preceding);

grant select on table private.wallet_moves to authenticated;

revoke all on table public.wallet_history from anon;
