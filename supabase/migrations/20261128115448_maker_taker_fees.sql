-- maker_taker_fees: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

drop view if exists public.wallet_history;

drop view if exists private.wallet_moves;

drop view if exists public.my_trades;

drop function if exists private.fill_fee(numeric,numeric,numeric,numeric,integer);

drop function if exists private.settle_fills(uuid,text,jsonb,timestamp with time zone,integer);

drop function if exists public.admin_revenue(text,integer);

alter table public.orders drop constraint if exists "orders_fees_paid_check";

alter table public.trades drop constraint if exists "trades_buyer_fee_check";

alter table public.trades drop constraint if exists "trades_check1";

alter table public.trades drop constraint if exists "trades_seller_fee_check";

alter table public.exchange_settings add column "maker_fee_bps" integer default 200 not null;

alter table public.trades add column "maker_fee_bps" integer;

CREATE OR REPLACE FUNCTION private.close_next_offering()
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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

  insert into private.account_mail (user_id, subject, body)
  select b.user_id,
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
         end
    from public.offering_bids b where b.offering_id = f.id;
  perform pg_notify('repx_mail', '');
  perform private.tell_market(f.token_id, 'offering');
  perform private.tell_accounts(array(select b.user_id from public.offering_bids b where b.offering_id = f.id), 'fills', f.token_id);
  perform private.tell_accounts(array[tok.owner_id], 'cash', f.token_id);
  return true;
end $function$;

CREATE OR REPLACE FUNCTION private.fill_fee(base_value numeric, before numeric, value numeric, bps integer)
 RETURNS numeric
 LANGUAGE sql
 IMMUTABLE
AS $function$
  select private.fee(base_value + before + value, bps) - private.fee(base_value + before, bps)
$function$;

CREATE OR REPLACE FUNCTION private.settle_fills(p_token uuid, p_taker_side text, p_fills jsonb, p_at timestamp with time zone DEFAULT now(), p_bps integer DEFAULT NULL::integer, p_maker_bps integer DEFAULT NULL::integer)
 RETURNS numeric
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  rules public.exchange_settings := (select e from public.exchange_settings e); -- read once: the fees and their record agree
  bps integer := coalesce(p_bps, rules.fee_bps);
  maker_bps integer := least(coalesce(p_maker_bps, rules.maker_fee_bps), bps);
  share_bps integer := rules.creator_fee_share_bps;
  taker_fees numeric;
  sellers integer;
  sellers_found integer;
begin
  if exists (select 1 from jsonb_to_recordset(p_fills) b(buyer uuid) join jsonb_to_recordset(p_fills) s(seller uuid) on b.buyer = s.seller) then
    raise exception 'An account cannot trade with itself.' using errcode = 'P0001';
  end if;
  with fill as (
    select f.*, private.trade_value(f.price, f.amount) as value, t.owner_id as creator,
           case when f.seller = private.issuance_account() then coalesce(t.owner_id, f.seller) else f.seller end as payee
    from private.fill_rows(p_fills) as f
    cross join (select owner_id from public.tokens where id = p_token) t
  ),
  charged as (
    select fill.*,
      private.fill_fee(coalesce(bo.filled_value, 0),
        coalesce(sum(fill.value) over (partition by coalesce(fill.buy_order, -fill.seq) order by fill.seq
                                       rows between unbounded preceding and 1 preceding), 0), fill.value,
        case when p_taker_side = 'buy' then bps else maker_bps end) as buyer_fee,
      private.fill_fee(coalesce(so.filled_value, 0),
        coalesce(sum(fill.value) over (partition by coalesce(fill.sell_order, -fill.seq) order by fill.seq
                                       rows between unbounded preceding and 1 preceding), 0), fill.value,
        case when p_taker_side = 'sell' then bps else maker_bps end) as seller_fee
    from fill
    left join public.orders bo on bo.id = fill.buy_order
    left join public.orders so on so.id = fill.sell_order
  ),
  -- A rebate is at most the same fill's taker fee (each is rounded on its own order's total).
  priced as (
    select c.seq, c.buyer, c.seller, c.buy_order, c.sell_order, c.price, c.amount, c.buyer_reserved, c.buyer_completes,
           c.seller_reserved, c.value, c.creator, c.payee,
           case when p_taker_side = 'sell' then greatest(c.buyer_fee, -c.seller_fee) else c.buyer_fee end as buyer_fee,
           case when p_taker_side = 'buy' then greatest(c.seller_fee, -c.buyer_fee) else c.seller_fee end as seller_fee
    from charged c
  ),
  moved as (
    select priced.*,
           case when buyer_reserved = 0 then 0
                when buyer_completes then buyer_reserved
                else least(buyer_reserved, value + buyer_fee) end as release,
           case when creator is null then 0 else round(greatest(buyer_fee + seller_fee, 0) * share_bps / 10000.0, 2) end as creator_share
    from priced
  ),
  trade as (
    insert into public.trades (token_id, buy_order_id, sell_order_id, buyer_id, seller_id, price, amount, taker_side,
                               buyer_fee, seller_fee, created_at, proceeds_to, fee_bps, maker_fee_bps, creator_id, creator_share)
    select p_token, buy_order, sell_order, buyer, seller, price, amount, p_taker_side,
           buyer_fee, seller_fee, p_at, nullif(payee, seller), bps, maker_bps, creator, creator_share
    from moved order by seq
  ),
  cash as (
    update public.cash_accounts c
       set available = c.available + m.available, reserved = c.reserved + m.reserved
      from (select user_id, sum(available) as available, sum(reserved) as reserved from (
              select buyer as user_id, release - value - buyer_fee as available, -release as reserved from moved
              union all
              select payee, value - seller_fee, 0 from moved
              union all
              select creator, creator_share, 0 from moved where creator_share > 0) x
            group by user_id) m
     where c.user_id = m.user_id
  ),
  sold as (
    update public.holdings h
       set amount = h.amount - m.amount, reserved = h.reserved - m.reserved
      from (select seller, sum(amount) as amount, sum(case when seller_reserved then amount else 0 end) as reserved
            from moved group by seller) m
     where h.user_id = m.seller and h.token_id = p_token
    returning h.user_id
  ),
  bought as (
    insert into public.holdings (user_id, token_id, amount)
    select buyer, p_token, sum(amount) from moved group by buyer
    on conflict (user_id, token_id) do update set amount = public.holdings.amount + excluded.amount
  ),
  filled as (
    update public.orders o
       set filled = o.filled + m.amount, filled_value = o.filled_value + m.value, fees_paid = o.fees_paid + m.fee,
           reserved = o.reserved - m.release,
           status = case when o.filled + m.amount = o.amount then 'filled' else o.status end
      from (select buy_order as id, sum(amount) as amount, sum(value) as value, sum(buyer_fee) as fee, sum(release) as release
            from moved where buy_order is not null group by buy_order
            union all
            select sell_order, sum(amount), sum(value), sum(seller_fee), 0
            from moved where sell_order is not null group by sell_order) m
     where o.id = m.id
  )
  select (select count(*) from sold), (select count(distinct seller) from moved),
         (select coalesce(sum(case when p_taker_side = 'buy' then buyer_fee else seller_fee end), 0) from moved)
    into sellers_found, sellers, taker_fees;
  if sellers_found < sellers then raise exception 'The seller holds none of these tokens.' using errcode = 'P0001'; end if;
  return taker_fees;
end $function$;

CREATE OR REPLACE FUNCTION private.taker_fee(t public.trades)
 RETURNS numeric
 LANGUAGE sql
 IMMUTABLE
AS $function$ select case when t.taker_side = 'buy' then t.buyer_fee else t.seller_fee end $function$;

CREATE OR REPLACE FUNCTION public.admin_revenue(p_group text DEFAULT 'day'::text, p_days integer DEFAULT 30)
 RETURNS TABLE(bucket text, starts timestamp with time zone, trades bigint, volume numeric, fees numeric, taker_fees numeric, maker_fees numeric, creator_share numeric, revenue numeric)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  since timestamptz;
begin
  perform private.require_admin();
  if p_group is null or p_group not in ('day', 'week', 'token') then perform private.refuse('Group revenue by day, week or token.'); end if;
  if p_days is not null and p_days not between 1 and 3650 then perform private.refuse('The period is 1 to 3,650 days.'); end if;
  since := case when p_days is null then coalesce((select min(created_at) from public.trades), now())
                else date_trunc('day', now()) - make_interval(days => p_days - 1) end;
  if p_group = 'token' then
    return query
      select k.name || ' (@' || k.username || ')', min(t.created_at), count(*), sum(t.value), sum(t.buyer_fee + t.seller_fee),
             sum(private.taker_fee(t)), sum(t.buyer_fee + t.seller_fee - private.taker_fee(t)),
             sum(t.creator_share), sum(t.buyer_fee + t.seller_fee - t.creator_share)
      from public.trades t join public.tokens k on k.id = t.token_id
      where t.created_at >= since
      group by k.id, k.name, k.username
      order by sum(t.buyer_fee + t.seller_fee - t.creator_share) desc, k.name;
  else
    return query
      select to_char(b, case p_group when 'day' then 'YYYY-MM-DD' else 'IYYY-"W"IW' end), b,
             count(t.id), coalesce(sum(t.value), 0), coalesce(sum(t.buyer_fee + t.seller_fee), 0),
             coalesce(sum(private.taker_fee(t)), 0), coalesce(sum(t.buyer_fee + t.seller_fee - private.taker_fee(t)), 0),
             coalesce(sum(t.creator_share), 0), coalesce(sum(t.buyer_fee + t.seller_fee - t.creator_share), 0)
      from generate_series(date_trunc(p_group, since), date_trunc(p_group, now()), ('1 ' || p_group)::interval) b
      left join public.trades t on t.created_at >= greatest(b, since) and t.created_at < b + ('1 ' || p_group)::interval
      group by b
      order by b desc;
  end if;
end $function$;

CREATE OR REPLACE FUNCTION public.admin_update_settings(p_changes jsonb, p_reason text DEFAULT NULL::text)
 RETURNS public.exchange_settings
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  admin uuid := private.require_admin();
  editable constant text[] := array['fee_bps', 'maker_fee_bps', 'min_order_amount', 'max_price', 'max_open_orders', 'trading_halted', 'halt_reason',
    'deposit_min', 'deposit_max', 'withdrawal_min', 'withdrawal_daily_limit', 'token_supply', 'token_founder_bps', 'token_issue_price',
    'new_bank_account_hold_hours', 'market_band_bps', 'auto_invest_min', 'auto_invest_max', 'auto_invest_max_plans', 'creator_fee_share_bps',
    'founder_vesting_months', 'founder_cliff_months', 'offering_window_minutes', 'offering_cap_bps', 'admins_need_two_step'];
  before public.exchange_settings;
  after public.exchange_settings;
  k text;
begin
  if p_changes is null or jsonb_typeof(p_changes) <> 'object' or p_changes = '{}'::jsonb then
    perform private.refuse('Say which settings to change.');
  end if;
  for k in select jsonb_object_keys(p_changes) loop
    if not k = any (editable) then perform private.refuse(format('%s is not a setting.', k)); end if;
  end loop;
  select * into before from public.exchange_settings for update;
  begin
    after := jsonb_populate_record(before, p_changes);
  exception when others then
    perform private.refuse('A setting has a value of the wrong kind: numbers for amounts and limits, true or false for the halt and for two-step verification.');
  end;
  if after.fee_bps is null or after.maker_fee_bps is null or after.max_price is null or after.deposit_min is null or after.deposit_max is null or after.withdrawal_min is null
     or after.withdrawal_daily_limit is null or after.min_order_amount is null or after.max_open_orders is null
     or after.trading_halted is null or after.token_supply is null or after.token_founder_bps is null or after.token_issue_price is null
     or after.new_bank_account_hold_hours is null or after.market_band_bps is null
     or after.auto_invest_min is null or after.auto_invest_max is null or after.auto_invest_max_plans is null
     or after.creator_fee_share_bps is null or after.founder_vesting_months is null or after.founder_cliff_months is null
     or after.offering_window_minutes is null or after.offering_cap_bps is null or after.admins_need_two_step is null then
    perform private.refuse('A setting cannot be empty.');
  end if;
  if after.fee_bps <> trunc(after.fee_bps) or after.fee_bps not between 0 and 1000 then
    perform private.refuse('The trading fee must be between 0 and 1,000 basis points (0% to 10%).');
  end if;
  -- One fee for both sides (the specification's) stays one when only the taker's is changed.
  if not p_changes ? 'maker_fee_bps' and before.maker_fee_bps = before.fee_bps then
    after.maker_fee_bps := after.fee_bps;
  end if;
  if after.maker_fee_bps <> trunc(after.maker_fee_bps) or after.maker_fee_bps not between -after.fee_bps and after.fee_bps then
    perform private.refuse(format('The maker fee must be between %s and %s basis points: at most the taker fee, and a rebate (below 0) no larger than it.',
      -after.fee_bps, after.fee_bps));
  end if;
  if after.deposit_min <= 0 or after.deposit_max < after.deposit_min then
    perform private.refuse('Deposits need a minimum above $0.00 and a maximum at least as large.');
  end if;
  if after.withdrawal_min <= 0 or after.withdrawal_daily_limit < after.withdrawal_min then
    perform private.refuse('Withdrawals need a minimum above $0.00 and a daily limit at least as large.');
  end if;
  if after.min_order_amount < 1 then perform private.refuse('The minimum order is at least 1 token.'); end if;
  if after.max_open_orders not between 1 and 10000 then perform private.refuse('The open-order limit must be between 1 and 10,000.'); end if;
  if after.new_bank_account_hold_hours not between 0 and 168 then
    perform private.refuse('A new bank account waits between 0 and 168 hours (a week).');
  end if;
  if after.market_band_bps <> trunc(after.market_band_bps) or after.market_band_bps not between 100 and 5000 then
    perform private.refuse('The market order band must be between 100 and 5,000 basis points (1% to 50%).');
  end if;
  if after.auto_invest_min <= 0 or after.auto_invest_max < after.auto_invest_min then
    perform private.refuse('Auto-Invest needs a minimum above $0.00 and a maximum at least as large.');
  end if;
  if after.auto_invest_max_plans <> trunc(after.auto_invest_max_plans) or after.auto_invest_max_plans not between 1 and 100 then
    perform private.refuse('The Auto-Invest plan limit must be between 1 and 100.');
  end if;
  if after.creator_fee_share_bps <> trunc(after.creator_fee_share_bps) or after.creator_fee_share_bps not between 0 and 10000 then
    perform private.refuse('The creator''s share of the fees must be between 0 and 10,000 basis points (0% to 100%).');
  end if;
  if after.founder_vesting_months not between 0 and 120 or after.founder_cliff_months not between 0 and after.founder_vesting_months then
    perform private.refuse('Founder vesting is 0 to 120 months, with a cliff no longer than the vesting.');
  end if;
  if after.offering_window_minutes not between 1 and 10080 then
    perform private.refuse('An offering''s window is 1 to 10,080 minutes (a week).');
  end if;
  if after.offering_cap_bps <> trunc(after.offering_cap_bps) or after.offering_cap_bps not between 1 and 10000 then
    perform private.refuse('The offering''s cap per account must be between 1 and 10,000 basis points (0.01% to 100%).');
  end if;
  -- A halt and its reason go together: traders are told why, and no reason lingers without a halt.
  if after.trading_halted and nullif(trim(after.halt_reason), '') is null then
    perform private.refuse('Say why trading is halted: traders are shown the reason.');
  elsif not after.trading_halted and nullif(trim(after.halt_reason), '') is not null then
    perform private.refuse('A halt reason goes with a halt: turn the halt on, or clear the reason.');
  end if;
  -- Asking admins for two-step verification locks out every admin without an app: the one asking first.
  if after.admins_need_two_step and not before.admins_need_two_step and not private.has_app(admin) then
    perform private.refuse('Turn on two-step verification for your own account first (Profile › Settings): asking it of admins would lock you out of the admin area.');
  end if;
  begin
    update public.exchange_settings set
      fee_bps = after.fee_bps, maker_fee_bps = after.maker_fee_bps, min_order_amount = after.min_order_amount, max_price = after.max_price, max_open_orders = after.max_open_orders,
      trading_halted = after.trading_halted, halt_reason = nullif(trim(after.halt_reason), ''),
      deposit_min = after.deposit_min, deposit_max = after.deposit_max, withdrawal_min = after.withdrawal_min,
      withdrawal_daily_limit = after.withdrawal_daily_limit, token_supply = after.token_supply,
      token_founder_bps = after.token_founder_bps, token_issue_price = after.token_issue_price,
      new_bank_account_hold_hours = after.new_bank_account_hold_hours, market_band_bps = after.market_band_bps,
      auto_invest_min = after.auto_invest_min, auto_invest_max = after.auto_invest_max,
      auto_invest_max_plans = after.auto_invest_max_plans, creator_fee_share_bps = after.creator_fee_share_bps,
      founder_vesting_months = after.founder_vesting_months, founder_cliff_months = after.founder_cliff_months,
      offering_window_minutes = after.offering_window_minutes, offering_cap_bps = after.offering_cap_bps,
      admins_need_two_step = after.admins_need_two_step, updated_at = now()
    returning * into after;
  exception when check_violation then
    perform private.refuse('A setting is out of its allowed range.');
  end;
  -- Only what changed, before and after.
  perform private.audit('settings.update', null, 'exchange settings',
    (select jsonb_object_agg(b.key, b.value) from jsonb_each(to_jsonb(before)) b
      where b.key not in ('id', 'updated_at') and b.value is distinct from to_jsonb(after) -> b.key),
    (select jsonb_object_agg(a.key, a.value) from jsonb_each(to_jsonb(after)) a
      where a.key not in ('id', 'updated_at') and a.value is distinct from to_jsonb(before) -> a.key),
    nullif(trim(coalesce(p_reason, '')), ''));
  return after;
end $function$;

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
end $function$;

create view public.my_trades with (security_invoker = true) as
select
  tr.id,
  tr.token_id,
  t.name,
  t.username,
  case when tr.buyer_id = auth.uid() then 'buy' else 'sell' end as type,
  tr.amount,
  tr.price,
  tr.value,
  case when tr.buyer_id = auth.uid() then tr.buyer_fee else tr.seller_fee end as fee,
  case when tr.buyer_id = auth.uid() then tr.value + tr.buyer_fee else tr.value - tr.seller_fee end as total,
  tr.created_at,
  -- Whether the account's order traded at once (taker) or waited in the book (maker): which fee applied.
  case when (tr.buyer_id = auth.uid()) = (tr.taker_side = 'buy') then 'taker' else 'maker' end as liquidity
from public.trades tr
join public.tokens t on t.id = tr.token_id
where tr.buyer_id = auth.uid() or tr.seller_id = auth.uid();

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
       format(case when m.fee < 0 then 'Maker rebate on the %s of %s %s' else 'On the %s of %s %s' end, m.type, m.amount, m.name),
       -m.fee, -m.fee, 'Completed', null, null, m.id
from public.my_trades m
where m.fee <> 0
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

alter table public.exchange_settings add constraint "maker_fee_within_taker_fee" CHECK (((maker_fee_bps >= (- fee_bps)) AND (maker_fee_bps <= fee_bps)));

alter table public.trades add constraint "trades_check1" CHECK (((buyer_fee + seller_fee) >= (0)::numeric));

alter table public.trades add constraint "trades_check2" CHECK ((buyer_id <> seller_id));

alter table public.trades add constraint "trades_maker_fee_bps_check" CHECK (((maker_fee_bps >= '-1000'::integer) AND (maker_fee_bps <= 1000)));

revoke all on routine public.admin_revenue(text,integer) from anon;
revoke all on routine public.admin_revenue(text,integer) from public;

revoke all on routine private.fill_fee(numeric,numeric,numeric,integer) from public;

revoke all on routine private.settle_fills(uuid,text,jsonb,timestamp with time zone,integer,integer) from public;

revoke all on routine private.taker_fee(public.trades) from public;

revoke all on table public.wallet_history from anon;

grant select on table private.wallet_moves to authenticated;

revoke all on table public.my_trades from anon;
revoke insert, update, delete, truncate on table public.my_trades from authenticated;
