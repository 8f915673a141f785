-- 'NaN' is a numeric value PostgreSQL accepts (PostgREST passes the JSON string "NaN" through), and
-- it sorts above every number: an order amount or price, a deposit or a withdrawal of NaN was
-- refused, but as above the maximum ('The limit price cannot exceed $1,000,000.00.'). It is now
-- refused as the missing number it is, in the words an empty amount gets. Both functions are
-- copied whole (check_amount from 20261122000700, check_order_request from 20261125004300) but
-- for the NaN tests.

create or replace function private.check_amount(p_amount numeric, what text, lo numeric, hi numeric) returns void
language plpgsql immutable as $$
begin
  if p_amount is null or p_amount = 'NaN' or p_amount <= 0 then perform private.refuse(format('Enter a %s amount above $0.00.', what)); end if;
  if p_amount <> round(p_amount, 2) then perform private.refuse(format('A %s amount has at most two decimals.', what)); end if;
  if p_amount < lo then perform private.refuse(format('The minimum %s is %s.', what, private.money(lo))); end if;
  if p_amount > hi then perform private.refuse(format('The maximum %s is %s.', what, private.money(hi))); end if;
end $$;

create or replace function private.check_order_request(
  p_user uuid, p_side text, p_type text, p_amount numeric, p_price numeric
) returns public.exchange_settings language plpgsql stable security definer set search_path = ''
set plan_cache_mode = force_generic_plan as $$
declare
  settings public.exchange_settings;
  read record;
begin
  if p_user is null then raise exception 'Sign in to trade.' using errcode = '42501'; end if;
  perform private.require_second_step();
  select s as settings, coalesce(p.status <> 'active', false) as suspended into read
    from public.exchange_settings s left join public.profiles p on p.id = p_user;
  settings := read.settings;
  if p_side is null or p_side not in ('buy', 'sell') then
    raise exception 'The side must be buy or sell.' using errcode = '22023';
  end if;
  if p_type is null or p_type not in ('market', 'limit') then
    raise exception 'The order type must be market or limit.' using errcode = '22023';
  end if;
  if p_amount is null or p_amount = 'NaN' or p_amount < 1 or p_amount <> trunc(p_amount) then
    raise exception 'The amount must be a whole number of tokens, at least 1.' using errcode = '22023';
  end if;
  if p_type = 'limit' then
    if p_price is null or p_price = 'NaN' or p_price <= 0 then raise exception 'A limit order needs a price above $0.00.' using errcode = '22023'; end if;
    if p_price <> round(p_price, 2) then raise exception 'The limit price has at most two decimals.' using errcode = '22023'; end if;
    if p_price > settings.max_price then
      raise exception 'The limit price cannot exceed %.', private.money(settings.max_price) using errcode = '22023';
    end if;
  elsif p_price is not null then
    raise exception 'A market order takes no price: it trades at the best prices in the book.' using errcode = '22023';
  end if;
  if read.suspended then
    raise exception 'Your account is suspended: trading is disabled.' using errcode = '42501';
  end if;
  if settings.trading_halted then
    raise exception 'Trading is halted%. Cancelling open orders still works.',
      coalesce(': ' || nullif(settings.halt_reason, ''), '') using errcode = 'P0001';
  end if;
  if p_amount < settings.min_order_amount then
    raise exception 'The minimum order is % tokens.', settings.min_order_amount using errcode = '22023';
  end if;
  if p_type = 'limit' and (select count(*) from public.orders where user_id = p_user and status = 'open') >= settings.max_open_orders then
    raise exception 'You have % open orders, the most allowed. Cancel one before placing another limit order.',
      settings.max_open_orders using errcode = 'P0001';
  end if;
  return settings;
end $$;
