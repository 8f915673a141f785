-- halt_with_reason: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

CREATE OR REPLACE FUNCTION public.admin_update_settings(p_changes jsonb, p_reason text DEFAULT NULL::text)
 RETURNS public.exchange_settings
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  admin uuid := private.require_admin();
  editable constant text[] := array['fee_bps', 'min_order_amount', 'max_price', 'max_open_orders', 'trading_halted', 'halt_reason',
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
  if after.fee_bps is null or after.max_price is null or after.deposit_min is null or after.deposit_max is null or after.withdrawal_min is null
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
      fee_bps = after.fee_bps, min_order_amount = after.min_order_amount, max_price = after.max_price, max_open_orders = after.max_open_orders,
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
