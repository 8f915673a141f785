-- Market orders trade within a band around the last price. A market order took the other side's
-- best prices wherever they were: on a thin book, one ask far above the last price (a slip of a
-- finger, or someone waiting for one) filled a market buy at that price while the order panel's
-- estimate, and its confirmation, showed the last price (spec section 9). Exchanges band market
-- orders; here a market buy pays at most, and a market sell accepts at least, the last price
-- moved by the exchange's setting (market_band_bps, 20% by default; the admin's System Settings
-- change it), rounded to the cent inward. What lies beyond is not met: the rest of the order is
-- cancelled, as when the book runs out, and an order that meets nothing but orders beyond the band
-- is refused in words. Limit orders are as before: their price is their owner's band.
--
-- match_order and admin_update_settings are re-created whole (20261123002400 with 20261124003100's
-- plan setting, 20261125004500), as migrations do.

alter table public.exchange_settings
  add column market_band_bps integer not null default 2000 check (market_band_bps between 100 and 5000);

create or replace function private.match_order(
  p_user uuid, p_token uuid, p_order bigint, p_side text, p_type text, p_amount bigint, p_price numeric,
  p_budget numeric, p_bps integer,
  out fills jsonb, out expire bigint[], out remaining bigint, out spent_value numeric, out makers uuid[]
) language plpgsql security definer set search_path = '' set plan_cache_mode = force_generic_plan as $$
declare
  other text := case when p_side = 'buy' then 'sell' else 'buy' end;
  -- A market order's band: the token's last price (its issue price before a trade) and the
  -- exchange's distance from it, the furthest price a market buy pays or a market sell accepts.
  ref numeric := case when p_type = 'market' then coalesce(
    (select s.price from private.token_stats s where s.token_id = p_token),
    (select t.issue_price from public.tokens t where t.id = p_token)) end;
  band numeric := case when p_type = 'market' then (select e.market_band_bps from public.exchange_settings e) / 10000.0 end;
  -- The worst rank the order accepts, as ranked on the other side: its limit price, or the band's edge.
  worst numeric := case when p_type = 'market' and p_side = 'buy' then floor(ref * (1 + band) * 100) / 100
                        when p_type = 'market' then -ceil(ref * (1 - band) * 100) / 100
                        when p_side = 'buy' then p_price else -p_price end;
  book cursor for
    select o.id, o.user_id, o.price, o.amount - o.filled as open_amount, o.reserved
    from public.orders o
    where o.token_id = p_token and o.side = other and o.status = 'open'
      and (case when o.side = 'buy' then -o.price else o.price end) <= worst
    order by o.token_id, o.side, (case when o.side = 'buy' then -o.price else o.price end), o.created_at, o.id
    for update;
  maker record;
  n bigint;
  seq integer := 0;
begin
  fills := '[]';
  expire := '{}';
  makers := '{}';
  remaining := p_amount;
  spent_value := 0;
  for maker in book loop
    if maker.user_id = p_user then
      expire := expire || maker.id; -- met one's own order: expire it, go on
      continue;
    end if;
    n := least(remaining, maker.open_amount);
    if p_side = 'buy' and p_type = 'market' then
      n := least(n, floor((p_budget - spent_value - private.fee(spent_value, p_bps)) / (maker.price * (1 + p_bps / 10000.0)))::bigint);
      while n > 0 and spent_value + private.trade_value(maker.price, n) + private.fee(spent_value + private.trade_value(maker.price, n), p_bps) > p_budget loop
        n := n - 1;
      end loop;
      exit when n <= 0;
    end if;
    seq := seq + 1;
    fills := fills || jsonb_build_object('seq', seq, 'price', maker.price, 'amount', n,
      'buyer', case when p_side = 'buy' then p_user else maker.user_id end,
      'seller', case when p_side = 'buy' then maker.user_id else p_user end,
      'buy_order', case when p_side = 'buy' then p_order else maker.id end,
      'sell_order', case when p_side = 'buy' then maker.id else p_order end,
      'buyer_reserved', case when p_side = 'buy' then 0 else maker.reserved end,
      'buyer_completes', n = maker.open_amount,
      'seller_reserved', p_side = 'buy');
    spent_value := spent_value + private.trade_value(maker.price, n);
    remaining := remaining - n;
    if not maker.user_id = any(makers) then makers := makers || maker.user_id; end if;
    exit when remaining = 0; -- before the next order is read and locked
  end loop;
  -- Nothing met, and the nearest of others' orders lies beyond the band: said as such, not as no orders.
  if p_type = 'market' and seq = 0 and (
    select min(case when o.side = 'buy' then -o.price else o.price end) from public.orders o
    where o.token_id = p_token and o.side = other and o.status = 'open' and o.user_id <> p_user) > worst then
    raise exception 'No % order for % is within % of its last price (%): a market order trades no further from it. Place a limit order at the price you accept.',
      other, (select t.name from public.tokens t where t.id = p_token),
      rtrim(rtrim(to_char(band * 100, 'FM990.99'), '0'), '.') || '%', '$' || to_char(ref, 'FM999,999,990.00')
      using errcode = 'P0001';
  end if;
end $$;

create or replace function public.admin_update_settings(p_changes jsonb, p_reason text default null)
returns public.exchange_settings language plpgsql security definer set search_path = '' as $$
declare
  admin uuid := private.require_admin();
  editable constant text[] := array['fee_bps', 'min_order_amount', 'max_price', 'max_open_orders', 'trading_halted', 'halt_reason',
    'deposit_min', 'deposit_max', 'withdrawal_min', 'withdrawal_daily_limit', 'token_supply', 'token_founder_bps', 'token_issue_price',
    'new_bank_account_hold_hours', 'market_band_bps'];
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
    perform private.refuse('A setting has a value of the wrong kind: numbers for amounts and limits, true or false for the halt.');
  end;
  if after.fee_bps is null or after.max_price is null or after.deposit_min is null or after.deposit_max is null or after.withdrawal_min is null
     or after.withdrawal_daily_limit is null or after.min_order_amount is null or after.max_open_orders is null
     or after.trading_halted is null or after.token_supply is null or after.token_founder_bps is null or after.token_issue_price is null
     or after.new_bank_account_hold_hours is null or after.market_band_bps is null then
    perform private.refuse('A setting cannot be empty.');
  end if;
  if after.fee_bps <> trunc(after.fee_bps) or after.fee_bps not between 0 and 1000 then
    perform private.refuse('The trading fee must be between 0 and 1,000 basis points (0% to 10%).');
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
  begin
    update public.exchange_settings set
      fee_bps = after.fee_bps, min_order_amount = after.min_order_amount, max_price = after.max_price, max_open_orders = after.max_open_orders,
      trading_halted = after.trading_halted, halt_reason = nullif(trim(after.halt_reason), ''),
      deposit_min = after.deposit_min, deposit_max = after.deposit_max, withdrawal_min = after.withdrawal_min,
      withdrawal_daily_limit = after.withdrawal_daily_limit, token_supply = after.token_supply,
      token_founder_bps = after.token_founder_bps, token_issue_price = after.token_issue_price,
      new_bank_account_hold_hours = after.new_bank_account_hold_hours, market_band_bps = after.market_band_bps,
      updated_at = now()
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
end $$;
